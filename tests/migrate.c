/*
 * migrate.c: rank migration between workers (ZMPI_Migrate, ZMPI_Set_load;
 * docs/migrate.md).  Modes (argv[1]):
 *
 *   moves ITERS [threads] [globals]
 *       ITERS migrations with strategy "rotate" (every rank to the next
 *       worker) while each rank holds pending Isend/Irecv (eager and
 *       rendezvous sizes, on MPI_COMM_WORLD and a duplicate), started
 *       persistent requests, communicators from dup, split and split_type
 *       (shared memory and the zmpi_worker level) with an attribute, and a
 *       heap block; after each move every message, the block and the
 *       attribute are checked byte for byte and every communicator runs
 *       collectives.  "threads": each rank must resume on another OS
 *       thread after each move (run with ZMPI_WAKE_MIGRATE=0 ZMPI_STEAL=0,
 *       which keep ranks where the balancer puts them).  "globals": the
 *       program's globals must keep each rank's values (privatized build).
 *       "nohint": MPI_INFO_NULL instead, for the default strategy (zmpirun
 *       --lb rotate).
 *   greedy | refine
 *       loads stated with ZMPI_Set_load (heavy low ranks); after the step
 *       the per-thread sums must be balanced (greedy: within 5 %; refine:
 *       better than before with few moves), and a second step with the
 *       same loads must move nobody.  Same environment as "threads".
 *   measured
 *       half the ranks compute ten times longer; greedy, on measured busy
 *       time, must give each worker half of the heavy ranks (plus or
 *       minus one).
 *   errors
 *       bad hints and loads return the right error class through
 *       MPI_ERRORS_RETURN with a message naming the call and argument,
 *       and a valid call still works afterwards.
 *   fatal
 *       an invalid zmpi_lb value under MPI_ERRORS_ARE_FATAL ends the job.
 *   missing
 *       rank 0 never calls ZMPI_Migrate (it waits in a barrier): the
 *       deadlock report must name the call the other ranks wait in.
 *   cost ITERS
 *       prints the time of a ZMPI_Migrate step that moves nobody.
 */
#define _GNU_SOURCE /* syscall */
#include "zt.h"

#include <math.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef ZMPI_HAS_MIGRATE

/* Globals: under privatization each rank has its own. */
int g_value;
static long g_table[16];

/* The OS thread running the caller.  Not pthread_self(): glibc declares it
 * const, so the compiler may keep its value across a call that moved the
 * rank to another thread (docs/migrate.md). */
static unsigned long long thread_id(void)
{
    return (unsigned long long)syscall(SYS_gettid);
}

/* Message bytes above zmpi's eager limit (16 KiB): a rendezvous.  Smaller
 * in large jobs, whose memory and checking time grow with the ranks. */
#define BIG (size > 100 ? 20 * 1024 : 64 * 1024)
#define SMALL 64

static int nworkers(void)
{
    const char *w = getenv("ZMPI_WORKERS");
    return w ? atoi(w) : 1;
}

static MPI_Info lb_hint(const char *strategy)
{
    MPI_Info info;
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "zmpi_lb", strategy));
    return info;
}

/* The world ranks of c's members as c itself gathers them must be the
 * ones its group names, and a sum over c must agree. */
static void check_comm(MPI_Comm c, int wrank)
{
    int n, r;
    MPI_Group g, wg;
    ZT_OK(MPI_Comm_size(c, &n));
    ZT_OK(MPI_Comm_rank(c, &r));
    int *got = zt_malloc(sizeof(int) * (size_t)n), *idx = zt_malloc(sizeof(int) * (size_t)n);
    int *want = zt_malloc(sizeof(int) * (size_t)n);
    ZT_OK(MPI_Allgather(&wrank, 1, MPI_INT, got, 1, MPI_INT, c));
    ZT_OK(MPI_Comm_group(c, &g));
    ZT_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    ZT_OK(MPI_Group_translate_ranks(g, n, idx, wg, want));
    long sum = 0, total = 0;
    for (int i = 0; i < n; i++) {
        ZT_EQ(got[i], want[i], "world rank of a member after migration");
        sum += want[i];
    }
    long mine = wrank;
    ZT_OK(MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, c));
    ZT_EQ(total, sum, "Allreduce over a communicator after migration");
    ZT_OK(MPI_Group_free(&g));
    ZT_OK(MPI_Group_free(&wg));
    free(got), free(idx), free(want);
}

static void set_globals(int rank)
{
    g_value = 1000 + rank;
    for (int i = 0; i < 16; i++)
        g_table[i] = (long)rank * 100 + i;
}

static void check_globals(int rank)
{
    ZT_EQ(g_value, 1000 + rank, "privatized global after migration");
    for (int i = 0; i < 16; i++)
        ZT_EQ(g_table[i], (long)rank * 100 + i, "privatized static array after migration");
}

/* The communicators a rank holds across migrations. */
enum { C_DUP, C_SPLIT, C_SHARED, C_WORKER, NCOMM };

static void make_comms(MPI_Comm *c, int rank)
{
    MPI_Info info;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[C_DUP]));
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &c[C_SPLIT]));
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                              &c[C_SHARED]));
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "mpi_hw_resource_type", "zmpi_worker"));
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info,
                              &c[C_WORKER]));
    ZT_OK(MPI_Info_free(&info));
    ZT_CHECK(c[C_WORKER] != MPI_COMM_NULL, "zmpi_worker split gave no communicator");
}

/* One migration with traffic in flight around it. */
typedef struct {
    unsigned char *sbig, *sbig2, *rbig, *rbig2, *ssmall, *rsmall, *ps, *pr;
    MPI_Request psend, precv;
} bufs_t;

static void one_move(bufs_t *b, MPI_Comm *c, MPI_Info hints, int rank, int size, long it,
                     int threads)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Request r[3];
    /* Pending across the move: two receives whose sends come after it,
     * and a rendezvous send whose receive the neighbour posts after it. */
    ZT_OK(MPI_Irecv(b->rbig, BIG, MPI_BYTE, left, (int)it, MPI_COMM_WORLD, &r[0]));
    ZT_OK(MPI_Irecv(b->rsmall, SMALL, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[1]));
    zt_fill(b->sbig2, BIG, rank, 2000 + it);
    ZT_OK(MPI_Isend(b->sbig2, BIG, MPI_BYTE, right, 2, c[C_DUP], &r[2]));
    zt_fill(b->ps, BIG, rank, 3000 + it);
    ZT_OK(MPI_Start(&b->precv));
    ZT_OK(MPI_Start(&b->psend));
    unsigned long long before = thread_id();
    ZT_OK(ZMPI_Migrate(hints));
    if (threads && nworkers() > 1) {
#if defined(__x86_64__)
        ZT_CHECK(before != thread_id(),
                 "rank %d still runs on the same thread after rotate %ld", rank, it);
#endif
    }
    zt_fill(b->sbig, BIG, rank, it);
    zt_fill(b->ssmall, SMALL, rank, 1000 + it);
    ZT_OK(MPI_Send(b->sbig, BIG, MPI_BYTE, right, (int)it, MPI_COMM_WORLD));
    ZT_OK(MPI_Send(b->ssmall, SMALL, MPI_BYTE, right, 1, MPI_COMM_WORLD));
    ZT_OK(MPI_Recv(b->rbig2, BIG, MPI_BYTE, left, 2, c[C_DUP], MPI_STATUS_IGNORE));
    ZT_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    ZT_OK(MPI_Wait(&b->psend, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Wait(&b->precv, MPI_STATUS_IGNORE));
    ZT_CHECK_PAYLOAD(b->rbig, BIG, left, it);
    ZT_CHECK_PAYLOAD(b->rsmall, SMALL, left, 1000 + it);
    ZT_CHECK_PAYLOAD(b->rbig2, BIG, left, 2000 + it);
    ZT_CHECK_PAYLOAD(b->pr, BIG, left, 3000 + it);
}

static void mode_moves(long iters, int threads, int globals, int nohint)
{
    int rank, size, key, *attr_val = zt_malloc(sizeof(int)), *got, flag;
    MPI_Comm c[NCOMM];
    bufs_t b;
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    unsigned char **all[] = { &b.sbig, &b.sbig2, &b.rbig, &b.rbig2, &b.ps, &b.pr };
    for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
        *all[i] = zt_malloc(BIG);
    b.ssmall = zt_malloc(SMALL);
    b.rsmall = zt_malloc(SMALL);
    size_t heap_n = size > 100 ? 32 * 1024 : 256 * 1024;
    unsigned char *heap = zt_malloc(heap_n);
    zt_fill(heap, heap_n, rank, 4242);
    if (globals)
        set_globals(rank);
    make_comms(c, rank);
    ZT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    *attr_val = rank * 7 + 1;
    ZT_OK(MPI_Comm_set_attr(c[C_SPLIT], key, attr_val));
    ZT_OK(MPI_Send_init(b.ps, BIG, MPI_BYTE, (rank + 1) % size, 3, c[C_DUP], &b.psend));
    ZT_OK(MPI_Recv_init(b.pr, BIG, MPI_BYTE, (rank + size - 1) % size, 3, c[C_DUP], &b.precv));
    MPI_Info hints = nohint ? MPI_INFO_NULL : lb_hint("rotate");
    for (long it = 0; it < iters; it++) {
        one_move(&b, c, hints, rank, size, it, threads);
        ZT_CHECK_PAYLOAD(heap, heap_n, rank, 4242);
        ZT_OK(MPI_Comm_get_attr(c[C_SPLIT], key, &got, &flag));
        ZT_CHECK(flag && got == attr_val && *got == rank * 7 + 1,
                 "attribute lost or changed after migration %ld", it);
        if (globals)
            check_globals(rank);
        if (it % 8 == 0 || it == iters - 1)
            for (int i = 0; i < NCOMM; i++)
                check_comm(c[i], rank);
    }
    ZT_OK(MPI_Request_free(&b.psend));
    ZT_OK(MPI_Request_free(&b.precv));
    if (hints != MPI_INFO_NULL)
        ZT_OK(MPI_Info_free(&hints));
    ZT_OK(MPI_Comm_free_keyval(&key));
    for (int i = 0; i < NCOMM; i++)
        ZT_OK(MPI_Comm_free(&c[i]));
    for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
        free(*all[i]);
    free(b.ssmall), free(b.rsmall), free(heap), free(attr_val);
    if (rank == 0)
        printf("migrate moves: %ld migrations checked on %d ranks\n", iters, size);
}

/* Per OS thread, the sum of the loads of the ranks on it (rank 0 gets the
 * result; the others 0).  Returns max/mean over the threads used and sets
 * *nthreads. */
static double thread_balance(double load, int *nthreads)
{
    int rank, size;
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    unsigned long long me = thread_id();
    unsigned long long *th = zt_malloc(sizeof(*th) * (size_t)size);
    double *ld = zt_malloc(sizeof(double) * (size_t)size), ratio = 0;
    ZT_OK(MPI_Gather(&me, 1, MPI_UNSIGNED_LONG_LONG, th, 1, MPI_UNSIGNED_LONG_LONG, 0,
                     MPI_COMM_WORLD));
    ZT_OK(MPI_Gather(&load, 1, MPI_DOUBLE, ld, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    *nthreads = 0;
    if (rank == 0) {
        double sum[64] = { 0 }, total = 0, max = 0;
        unsigned long long id[64];
        for (int i = 0; i < size; i++) {
            int t = 0;
            while (t < *nthreads && id[t] != th[i])
                t++;
            if (t == *nthreads && *nthreads < 64)
                id[(*nthreads)++] = th[i];
            sum[t] += ld[i];
            total += ld[i];
        }
        for (int t = 0; t < *nthreads; t++)
            max = sum[t] > max ? sum[t] : max;
        ratio = max / (total / *nthreads);
    }
    free(th), free(ld);
    return ratio;
}

static void mode_plan(const char *strategy)
{
    int rank, size, nt;
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    double load = rank < size / 2 ? 4.0 : 1.0;
    MPI_Info hints = lb_hint(strategy);
    double before = thread_balance(load, &nt);
    ZT_OK(ZMPI_Set_load(load));
    ZT_OK(ZMPI_Migrate(hints));
    double after = thread_balance(load, &nt);
    if (rank == 0) {
        printf("migrate %s: max/mean %.3f -> %.3f on %d threads\n", strategy, before, after, nt);
        ZT_EQ(nt, nworkers(), "threads that run ranks after the step");
        if (strcmp(strategy, "greedy") == 0)
            ZT_CHECK(after <= 1.05, "greedy left max/mean %.3f", after);
        else
            ZT_CHECK(after < before, "refine did not improve max/mean %.3f", before);
    }
    /* Same loads again: the placement is as good as it gets, nobody moves. */
    unsigned long long self = thread_id();
    ZT_OK(ZMPI_Set_load(load));
    ZT_OK(ZMPI_Migrate(hints));
    ZT_CHECK(self == thread_id(), "rank %d moved by a second %s step", rank,
             strategy);
    ZT_OK(MPI_Info_free(&hints));
}

/* About `units` milliseconds of arithmetic the compiler cannot drop. */
static double work(int units)
{
    volatile double x = 1;
    for (long i = 0; i < (long)units * 200000; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static void mode_measured(void)
{
    int rank, size, nt;
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int heavy = rank < size / 2;
    MPI_Info hints = lb_hint("greedy");
    ZT_OK(ZMPI_Migrate(hints)); /* starts the measured interval */
    work(heavy ? 20 : 2);
    ZT_OK(ZMPI_Migrate(hints));
    /* Count the heavy ranks per thread. */
    double after = thread_balance(heavy ? 1.0 : 0.0, &nt);
    if (rank == 0) {
        printf("migrate measured: heavy ranks max/mean per thread %.3f on %d threads\n",
               after, nt);
        ZT_EQ(nt, nworkers(), "threads that run ranks after the step");
        double per = (double)(size / 2) / nt;
        ZT_CHECK(after * per <= per + 1.0001, "heavy ranks not spread: max/mean %.3f", after);
    }
    ZT_OK(MPI_Info_free(&hints));
}

/* The call must fail with class `cls` and a message holding `w1` and `w2`. */
static void expect_error(int rc, int cls, const char *w1, const char *w2)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, got;
    ZT_CHECK(rc != MPI_SUCCESS, "call expected to fail succeeded");
    ZT_OK(MPI_Error_class(rc, &got));
    ZT_EQ(got, cls, "error class");
    ZT_OK(MPI_Error_string(rc, msg, &len));
    ZT_CHECK(strstr(msg, w1) && strstr(msg, w2), "message '%s' lacks '%s' or '%s'", msg, w1,
             w2);
}

static void mode_errors(void)
{
    MPI_Info bad = lb_hint("bogus"), tol, freed;
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    expect_error(ZMPI_Migrate(bad), MPI_ERR_INFO_VALUE, "ZMPI_Migrate", "zmpi_lb");
    expect_error(ZMPI_Migrate(bad), MPI_ERR_INFO_VALUE, "hints", "bogus");
    ZT_OK(MPI_Info_create(&tol));
    ZT_OK(MPI_Info_set(tol, "zmpi_lb_tolerance", "-1"));
    expect_error(ZMPI_Migrate(tol), MPI_ERR_INFO_VALUE, "ZMPI_Migrate", "zmpi_lb_tolerance");
    ZT_OK(MPI_Info_create(&freed));
    MPI_Info keep = freed;
    ZT_OK(MPI_Info_free(&freed));
    expect_error(ZMPI_Migrate(keep), MPI_ERR_INFO, "ZMPI_Migrate", "hints");
    expect_error(ZMPI_Set_load(-1.0), MPI_ERR_ARG, "ZMPI_Set_load", "load");
    expect_error(ZMPI_Set_load(NAN), MPI_ERR_ARG, "ZMPI_Set_load", "load");
    /* None of them joined a step: a valid call completes. */
    ZT_OK(MPI_Info_set(tol, "zmpi_lb_tolerance", "0.1"));
    ZT_OK(ZMPI_Migrate(tol));
    ZT_OK(ZMPI_Migrate(MPI_INFO_NULL));
    ZT_OK(MPI_Info_free(&bad));
    ZT_OK(MPI_Info_free(&tol));
    if (zt_rank() == 0)
        printf("migrate errors: ok\n");
}

static void mode_cost(long iters)
{
    int rank, size;
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Info hints = lb_hint("greedy");
    ZT_OK(ZMPI_Migrate(hints));
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        ZT_OK(ZMPI_Set_load(1.0));
        ZT_OK(ZMPI_Migrate(hints));
    }
    double t = (MPI_Wtime() - t0) / (double)iters;
    if (rank == 0)
        printf("migrate cost: %.1f us per step that moves nobody (%d ranks, %d workers)\n",
               t * 1e6, size, nworkers());
    ZT_OK(MPI_Info_free(&hints));
}

int main(int argc, char **argv)
{
    ZT_OK(MPI_Init(&argc, &argv));
    const char *mode = argc > 1 ? argv[1] : "moves";
    long n = argc > 2 ? atol(argv[2]) : 20;
    int threads = 0, globals = 0, nohint = 0;
    for (int i = 3; i < argc; i++) {
        threads |= strcmp(argv[i], "threads") == 0;
        globals |= strcmp(argv[i], "globals") == 0;
        nohint |= strcmp(argv[i], "nohint") == 0;
    }
    if (strcmp(mode, "moves") == 0) {
        mode_moves(n, threads, globals, nohint);
    } else if (strcmp(mode, "greedy") == 0 || strcmp(mode, "refine") == 0) {
        mode_plan(mode);
    } else if (strcmp(mode, "measured") == 0) {
        mode_measured();
    } else if (strcmp(mode, "errors") == 0) {
        mode_errors();
    } else if (strcmp(mode, "fatal") == 0) {
        MPI_Info bad = lb_hint("bogus");
        ZMPI_Migrate(bad);
        ZT_CHECK(0, "ZMPI_Migrate with an invalid zmpi_lb returned under "
                 "MPI_ERRORS_ARE_FATAL");
    } else if (strcmp(mode, "missing") == 0) {
        if (zt_rank() == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        else
            ZMPI_Migrate(MPI_INFO_NULL);
        ZT_CHECK(0, "a collective that rank 0 skipped completed");
    } else if (strcmp(mode, "cost") == 0) {
        mode_cost(n);
    } else {
        ZT_CHECK(0, "unknown mode '%s'", mode);
    }
    ZT_OK(MPI_Finalize());
    return 0;
}

#else /* another MPI: nothing to migrate */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (zt_rank() == 0)
        printf("migrate: this MPI has no ZMPI_Migrate\n");
    MPI_Finalize();
    return 0;
}

#endif
