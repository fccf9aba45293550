/*
 * mpit_vars.c: the variables, categories and enumerations that MPI_T
 * (mpit.c) exposes, and how each is read and written.
 *
 * Control variables are the ZMPI_* settings.  Those the code reads once
 * at start are read-only here and report what the environment says;
 * ZMPI_EAGER_MAX can be changed while the job runs.  Performance
 * variables read the per-rank counters of p2p.h (zm_p2p_stats_t) and the
 * unexpected queue's level and high-water mark.
 */
#include "mpi/mpit_impl.h"
#include "io/io.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Enumerations ---------------------------------------------------- */

static const struct zmpi_t_enum_item fence_items[] = {
    { 0, "auto" },   /* publishers skip their fence where membarrier allows */
    { 1, "always" }, /* ZMPI_COLL_FENCE=1: publishers always fence */
};

static struct zmpi_t_enum fence_enum = { "zmpi_coll_fence", 2, fence_items };

/* The values are the ult layer's strategy numbers (ZM_ULT_LB_*). */
static const struct zmpi_t_enum_item lb_items[] = {
    { ZM_ULT_LB_NONE, "none" },
    { ZM_ULT_LB_GREEDY, "greedy" },
    { ZM_ULT_LB_REFINE, "refine" },
    { ZM_ULT_LB_ROTATE, "rotate" },
};

static struct zmpi_t_enum lb_enum = { "zmpi_lb", 4, lb_items };

int zm_mpit_enum_valid(MPI_T_enum e)
{
    return e == &fence_enum || e == &lb_enum || zm_mpit_event_enum_valid(e);
}

/* ---- Categories -------------------------------------------------------- */

const zm_mpit_cat_t zm_mpit_cats[ZM_MPIT_NCATS] = {
    { "zmpi", "Everything zmpi exposes through MPI_T.", -1 },
    { "zmpi_p2p", "Point-to-point messages: protocol thresholds, messages and bytes sent "
      "per protocol, the unexpected-message queue.", ZM_MPIT_CAT_ROOT },
    { "zmpi_coll", "Collectives: shared-block ring and fence settings, fast-path hits.",
      ZM_MPIT_CAT_ROOT },
    { "zmpi_job", "The job's shape, fixed when it starts: ranks, workers, stacks, files.",
      ZM_MPIT_CAT_ROOT },
};

/* ---- Control variables ----------------------------------------------- */

/* An unsigned environment setting, or `def` if unset or not a number (the
 * code that uses it refuses or warns about such a value at start). */
static unsigned long long env_ull(const char *name, unsigned long long def)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return def;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    return errno || *end ? def : v;
}

int zm_mpit_job_up(void)
{
    return zm_p2p_ranks != NULL;
}

/* Defaults of init.c and cycle.c, for values read before the job exists
 * (they must agree with those files). */
#define EAGER_DEFAULT 16384ull
#define EAGER_MIN 256ull
#define CYCLE_DEFAULT (1ull << 30)
#define STACK_DEFAULT (8ull << 20)

static void get_eager(void *buf)
{
    unsigned long long v;
    if (zm_mpit_job_up()) {
        v = zm_p2p_eager_max();
    } else {
        v = env_ull("ZMPI_EAGER_MAX", EAGER_DEFAULT);
        v = v < EAGER_MIN ? EAGER_MIN : v;
    }
    *(unsigned long long *)buf = v;
}

/* The pooled eager envelopes are sized at start for the threshold then, so
 * it can be lowered and raised back, never above that. */
static int set_eager(const void *buf)
{
    unsigned long long v = *(const unsigned long long *)buf;
    if (!zm_mpit_job_up())
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    if (v > zm_p2p_eager_cap() || zm_p2p_set_eager_max((size_t)v) != ZM_OK)
        return MPI_T_ERR_INVALID;
    return MPI_SUCCESS;
}

static void get_cycle(void *buf)
{
    *(unsigned long long *)buf = env_ull("ZMPI_CYCLE_BUFFER_MAX", CYCLE_DEFAULT);
}

static void get_np(void *buf)
{
    *(int *)buf = zm_mpit_job_up() ? zm_ult_count() : (int)env_ull("ZMPI_NP", 1);
}

static void get_workers(void *buf)
{
    int np = zm_mpit_job_up() ? zm_ult_count() : (int)env_ull("ZMPI_NP", 1);
    int nw = zm_mpit_job_up() ? zm_ult_nworkers() : (int)env_ull("ZMPI_WORKERS",
                                                          (unsigned long long)zm_arch_ncpus());
    *(int *)buf = nw > np ? np : nw;
}

static void get_stack(void *buf)
{
    *(unsigned long long *)buf = env_ull("ZMPI_STACK_SIZE", STACK_DEFAULT);
}

static void get_ring(void *buf)
{
    const char *e = getenv("ZMPI_COLL_RING");
    *(int *)buf = e ? atoi(e) : 0;
}

static void get_fence(void *buf)
{
    const char *f = getenv("ZMPI_COLL_FENCE");
    *(int *)buf = f && *f == '1';
}

static void get_lb(void *buf)
{
    const char *e = getenv("ZMPI_LB");
    int s = e && *e ? zm_ult_lb_parse(e) : ZM_ULT_LB_GREEDY;
    *(int *)buf = zm_mpit_job_up() ? zm_ult_lb_default() : s < 0 ? ZM_ULT_LB_GREEDY : s;
}

static void get_lb_report(void *buf)
{
    *(int *)buf = zm_mpit_job_up() ? zm_ult_lb_reporting() : env_ull("ZMPI_LB_REPORT", 0) == 1;
}

/* Before the job runs, the default the ult layer would take: stealing is
 * on unless ZMPI_WAKE_MIGRATE=0 keeps every rank in place. */
static void get_steal(void *buf)
{
    const char *m = getenv("ZMPI_WAKE_MIGRATE");
    *(int *)buf = zm_mpit_job_up() ? zm_ult_stealing()
                                   : (int)env_ull("ZMPI_STEAL", !(m && strcmp(m, "0") == 0));
}

static const char *tmpdir(void)
{
    const char *d = getenv("ZMPI_TMPDIR");
    return d ? d : "/dev/shm";
}

static void get_tmpdir(void *buf)
{
    strcpy(buf, tmpdir());
}

static int count_tmpdir(void)
{
    return (int)strlen(tmpdir()) + 1;
}

const zm_mpit_cvar_t zm_mpit_cvars[] = {
    { "ZMPI_EAGER_MAX", "Largest message (bytes) sent eagerly, copied into a pooled buffer "
      "when no receive is posted; larger ones wait for the receiver (rendezvous). Writable: "
      "it affects sends started afterwards on every rank, and may not exceed its value at "
      "start, for which the eager buffers were sized.",
      MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_ALL, ZM_MPIT_ULL, NULL, ZM_MPIT_CAT_P2P,
      get_eager, set_eager, NULL },
    { "ZMPI_CYCLE_BUFFER_MAX", "Most bytes of rendezvous sends buffered on the heap to break a "
      "cycle of blocked standard-mode sends. Read-only: read at start.",
      MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY, ZM_MPIT_ULL, NULL, ZM_MPIT_CAT_P2P,
      get_cycle, NULL, NULL },
    { "ZMPI_NP", "Number of ranks the job started with.",
      MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_CONSTANT, ZM_MPIT_INT, NULL, ZM_MPIT_CAT_JOB,
      get_np, NULL, NULL },
    { "ZMPI_WORKERS", "Number of worker threads that run the ranks.",
      MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_CONSTANT, ZM_MPIT_INT, NULL, ZM_MPIT_CAT_JOB,
      get_workers, NULL, NULL },
    { "ZMPI_STACK_SIZE", "Stack size of each rank in bytes.",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_CONSTANT, ZM_MPIT_ULL, NULL, ZM_MPIT_CAT_JOB,
      get_stack, NULL, NULL },
    { "ZMPI_COLL_RING", "Entries of a collective's per-rank ring (0: chosen by communicator "
      "size). Read-only: read when a communicator first runs a collective.",
      MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_SCOPE_READONLY, ZM_MPIT_INT, NULL, ZM_MPIT_CAT_COLL,
      get_ring, NULL, NULL },
    { "ZMPI_COLL_FENCE", "Whether collective publishers always fence (always) or skip the "
      "fence where the kernel's membarrier allows (auto). Read-only: decided once.",
      MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_SCOPE_READONLY, ZM_MPIT_INT, &fence_enum,
      ZM_MPIT_CAT_COLL, get_fence, NULL, NULL },
    { "ZMPI_TMPDIR", "Directory of the per-rank copies of a privatized program.",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_CONSTANT, ZM_MPIT_STR, NULL, ZM_MPIT_CAT_JOB,
      get_tmpdir, NULL, count_tmpdir },
    { "ZMPI_LB", "Default strategy of ZMPI_Migrate's balancing steps (zmpirun --lb). "
      "Read-only: read at start.",
      MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_READONLY, ZM_MPIT_INT, &lb_enum, ZM_MPIT_CAT_JOB,
      get_lb, NULL, NULL },
    { "ZMPI_LB_REPORT", "Whether balancing steps print each worker's load before and after "
      "(1) or not (0; zmpirun --lb-report). Read-only: read at start.",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_READONLY, ZM_MPIT_INT, NULL, ZM_MPIT_CAT_JOB,
      get_lb_report, NULL, NULL },
    { "ZMPI_STEAL", "Whether an idle worker takes a ready rank from a worker whose rank "
      "computes (1) or not (0; zmpirun --steal / --no-steal). Read-only: read at start.",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_READONLY, ZM_MPIT_INT, NULL, ZM_MPIT_CAT_JOB,
      get_steal, NULL, NULL },
};

const int zm_mpit_ncvars = (int)(sizeof zm_mpit_cvars / sizeof zm_mpit_cvars[0]);

/* ---- Performance variables ------------------------------------------- */

#define PROTO_PVARS(p, pname, how)                                                        \
    { "zmpi_p2p_" pname "_msgs", "Messages this rank sent " how ".",                     \
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_COUNTER, ZM_MPIT_CAT_P2P,               \
      ZM_MPIT_PV_MSGS, p, 0, 0 },                                                         \
    { "zmpi_p2p_" pname "_bytes", "Payload bytes this rank sent " how ".",               \
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_COUNTER, ZM_MPIT_CAT_P2P,               \
      ZM_MPIT_PV_BYTES, p, 0, 0 }

const zm_mpit_pvar_t zm_mpit_pvars[] = {
    PROTO_PVARS(ZM_PROTO_DIRECT, "direct", "straight into a posted receive (one copy)"),
    PROTO_PVARS(ZM_PROTO_SLOT, "slot", "into the receive slot of a receiver polling in "
                "MPI_Recv (one copy)"),
    PROTO_PVARS(ZM_PROTO_MAIL, "mail", "as mail: a message of at most 16 bytes left in the "
                "receiver's slot before its receive"),
    PROTO_PVARS(ZM_PROTO_EAGER, "eager", "eagerly: copied into a pooled buffer before the "
                "receive (two copies)"),
    PROTO_PVARS(ZM_PROTO_RNDV, "rndv", "by rendezvous: queued before the receive, which "
                "then copies from the sender's buffer"),
    PROTO_PVARS(ZM_PROTO_BUFFERED, "buffered", "through the attached MPI_Bsend buffer "
                "before the receive"),
    { "zmpi_unexp_queue_len", "Messages now in this rank's unexpected-message queue (a tiny "
      "message held as mail in the receive slot is not counted).",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_LEVEL, ZM_MPIT_CAT_P2P,
      ZM_MPIT_PV_UNEXP_LEN, 0, 1, 1 },
    { "zmpi_unexp_queue_hwm", "Most messages this rank's unexpected-message queue has held "
      "since the job started.",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_HIGHWATERMARK, ZM_MPIT_CAT_P2P,
      ZM_MPIT_PV_UNEXP_HWM, 0, 1, 1 },
    { "zmpi_coll_fast_hits", "Blocking collectives of this rank that took the shared-block "
      "fast path.",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_COUNTER, ZM_MPIT_CAT_COLL,
      ZM_MPIT_PV_COLL_FAST, 0, 0, 0 },
    { "zmpi_io_pwrites", "Write system calls MPI-IO data accesses issued in this rank's "
      "process (all its ranks).",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_COUNTER, ZM_MPIT_CAT_ROOT,
      ZM_MPIT_PV_IO_PWRITES, 0, 1, 1 },
    { "zmpi_io_preads", "Read system calls MPI-IO data accesses issued in this rank's "
      "process (all its ranks).",
      MPI_T_VERBOSITY_USER_DETAIL, MPI_T_PVAR_CLASS_COUNTER, ZM_MPIT_CAT_ROOT,
      ZM_MPIT_PV_IO_PREADS, 0, 1, 1 },
};

const int zm_mpit_npvars = (int)(sizeof zm_mpit_pvars / sizeof zm_mpit_pvars[0]);

/* Counters are written by their rank only, so relaxed loads see whole
 * values; the queue's fields change under the rank's lock. */
uint64_t zm_mpit_pvar_raw(const zm_mpit_pvar_t *d, int rank)
{
    zm_p2p_rank_t *r = zm_p2p_rank(rank);
    uint64_t v = 0;
    switch (d->kind) {
    case ZM_MPIT_PV_MSGS:
        return __atomic_load_n(&r->stats.sent[d->proto].msgs, __ATOMIC_RELAXED);
    case ZM_MPIT_PV_BYTES:
        return __atomic_load_n(&r->stats.sent[d->proto].bytes, __ATOMIC_RELAXED);
    case ZM_MPIT_PV_COLL_FAST:
        return __atomic_load_n(&r->stats.coll_fast, __ATOMIC_RELAXED);
    case ZM_MPIT_PV_IO_PWRITES:
        return atomic_load_explicit(&zm_io_pwrites, memory_order_relaxed);
    case ZM_MPIT_PV_IO_PREADS:
        return atomic_load_explicit(&zm_io_preads, memory_order_relaxed);
    default:
        zm_spin_lock(&r->lock);
        v = (uint64_t)(d->kind == ZM_MPIT_PV_UNEXP_LEN ? r->unexp_len : r->unexp_hwm);
        zm_spin_unlock(&r->lock);
        return v;
    }
}
