/*
 * net_coll_wrong.c: collectives whose ranks disagree, run across processes
 * (tests/net_coll.cmake), where each rank sees only the messages it
 * receives: the ranks that see the mismatch must get the error that a
 * one-process job reports, and no rank may be left waiting.
 *
 * Usage: net_coll_wrong <mistake> return|fatal
 *   return  the mistake runs on a duplicate of MPI_COMM_WORLD under
 *           MPI_ERRORS_RETURN; every rank that gets an error checks its
 *           class and message, and at least one rank must get one (the
 *           ranks then count them on MPI_COMM_WORLD, which the mistake did
 *           not touch);
 *   fatal   the same under MPI_ERRORS_ARE_FATAL: the job must end with the
 *           message (checked by tests/expect_fail.sh).
 * Mistakes (odd ranks are the other process when ranks are interleaved
 * over 2 processes):
 *   kind       rank 1 calls MPI_Allreduce, the others MPI_Bcast
 *   root       rank 1 takes itself for the root of a Bcast whose root is
 *              0, then all call MPI_Barrier (the Bcast may pass unnoticed:
 *              the Barrier then reports that the calls before it differ)
 *   op         odd ranks reduce with MPI_MAX, even ranks with MPI_SUM
 *   type       odd ranks reduce MPI_INT, even ranks MPI_FLOAT
 *   count      odd ranks reduce 4 elements, even ranks 2
 *   gather     Allgather: odd ranks send 8 ints, even ranks 4
 *   big        Bcast of 2000 ints from rank 0; the last rank expects 1500
 *   bigsmall   Bcast of 2000 ints from rank 0; rank 1 expects 100 (so the
 *              data comes in a message of its own that rank 1 does not
 *              expect, and must drop for rank 0 to finish).  In one
 *              process (or where rank 1 shares its process), rank 1 takes
 *              the fast Bcast and the others its general path: those see
 *              it and report instead of waiting for rank 1 there (they hung
 *              before: src/coll/fast.c, zm_coll_bcast_split)
 *   nbkind     rank 1 starts MPI_Iallreduce, the others MPI_Ibcast
 *   nbcount    Iallreduce: odd ranks 4 elements, even ranks 2
 *   late       Gatherv to rank 0: rank 1 sends 5 ints where 4 are
 *              expected, and the last rank sends 64 KiB (above the
 *              network's eager limits) only once rank 0 has stopped at
 *              rank 1's mismatch (rank 0 sends it a token after its call
 *              returned).  Rank 0's process must take in and drop that
 *              late rendezvous, else its sender waits forever while its
 *              transfer pending keeps the job-wide deadlock detection
 *              quiet.  Only where the last rank is in another process
 *              than rank 0 (a sender in rank 0's own process waits the
 *              same way, but the deadlock detection reports it)
 *   nblate     the same with MPI_Igatherv and MPI_Wait
 */
#include "zt.h"

/* One way the failing call may be reported: its class and strings that
 * its message holds. */
typedef struct expect {
    int cls;
    const char *s1, *s2;
} expect_t;

typedef struct mistake {
    const char *name;
    int (*run)(MPI_Comm comm, int rank, int size);
    int nb;                         /* non-blocking: the class only */
    expect_t ok[3];                 /* the acceptable reports */
} mistake_t;

static int m_kind(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 1, 2, 3, 4 }, w[4];
    (void)size;
    if (rank == 1)
        return MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, comm);
    return MPI_Bcast(v, 4, MPI_INT, 0, comm);
}

static int m_root(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 0 };
    (void)size;
    int rc = MPI_Bcast(v, 4, MPI_INT, rank == 1 ? 1 : 0, comm);
    int rc2 = MPI_Barrier(comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int m_op(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 1, 2, 3, 4 }, w[4];
    (void)size;
    return MPI_Allreduce(v, w, 4, MPI_INT, rank % 2 ? MPI_MAX : MPI_SUM, comm);
}

static int m_type(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 1, 2, 3, 4 }, w[4];
    (void)size;
    return MPI_Allreduce(v, w, 4, rank % 2 ? MPI_INT : MPI_FLOAT, MPI_SUM, comm);
}

static int m_count(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 1, 2, 3, 4 }, w[4];
    (void)size;
    return MPI_Allreduce(v, w, rank % 2 ? 4 : 2, MPI_INT, MPI_SUM, comm);
}

static int m_gather(MPI_Comm comm, int rank, int size)
{
    int c = rank % 2 ? 8 : 4, v[8] = { 0 };
    int *w = zt_malloc(sizeof(int) * 8 * (size_t)size);
    int rc = MPI_Allgather(v, c, MPI_INT, w, c, MPI_INT, comm);
    free(w);
    return rc;
}

static int m_big(MPI_Comm comm, int rank, int size)
{
    int *v = zt_malloc(sizeof(int) * 2000);
    memset(v, 0, sizeof(int) * 2000);
    int rc = MPI_Bcast(v, rank == size - 1 ? 1500 : 2000, MPI_INT, 0, comm);
    free(v);
    return rc;
}

static int m_bigsmall(MPI_Comm comm, int rank, int size)
{
    int *v = zt_malloc(sizeof(int) * 2000);
    (void)size;
    memset(v, 0, sizeof(int) * 2000);
    int rc = MPI_Bcast(v, rank == 1 ? 100 : 2000, MPI_INT, 0, comm);
    free(v);
    return rc;
}

static int m_nbkind(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 1, 2, 3, 4 }, w[4];
    MPI_Request q;
    (void)size;
    int rc = rank == 1 ? MPI_Iallreduce(v, w, 4, MPI_INT, MPI_SUM, comm, &q)
                       : MPI_Ibcast(v, 4, MPI_INT, 0, comm, &q);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&q, MPI_STATUS_IGNORE);
}

static int m_nbcount(MPI_Comm comm, int rank, int size)
{
    int v[4] = { 1, 2, 3, 4 }, w[4];
    MPI_Request q;
    (void)size;
    int rc = MPI_Iallreduce(v, w, rank % 2 ? 4 : 2, MPI_INT, MPI_SUM, comm, &q);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* "late" and "nblate": see the top of the file. */
static int late_gatherv(MPI_Comm comm, int rank, int size, int nb)
{
    enum { BIG = 16384 };
    int late = size - 1, n = rank == late ? BIG : rank == 1 ? 5 : 4, token = 0, rc;
    ZT_CHECK(size >= 3, "late needs 3 ranks or more");
    int *v = zt_malloc(sizeof(int) * BIG), *w = NULL, *counts = NULL, *displs = NULL;
    memset(v, 0, sizeof(int) * BIG);
    if (rank == 0) {
        counts = zt_malloc(sizeof(int) * (size_t)size);
        displs = zt_malloc(sizeof(int) * (size_t)size);
        for (int r = 0, off = 0; r < size; off += counts[r], r++) {
            counts[r] = r == late ? BIG : 4;
            displs[r] = off;
        }
        w = zt_malloc(sizeof(int) * (size_t)(BIG + 4 * size));
    }
    if (rank == late)
        ZT_OK(MPI_Recv(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (nb) {
        MPI_Request q;
        rc = MPI_Igatherv(v, n, MPI_INT, w, counts, displs, MPI_INT, 0, comm, &q);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Gatherv(v, n, MPI_INT, w, counts, displs, MPI_INT, 0, comm);
    }
    if (rank == 0) {
        ZT_CHECK(rc != MPI_SUCCESS, "rank 0's %sgatherv missed rank 1's mismatch", nb ? "I" : "");
        ZT_OK(MPI_Send(&token, 1, MPI_INT, late, 77, MPI_COMM_WORLD));
    }
    free(v);
    free(w);
    free(counts);
    free(displs);
    return rc;
}

static int m_late(MPI_Comm comm, int rank, int size)
{
    return late_gatherv(comm, rank, size, 0);
}

static int m_nblate(MPI_Comm comm, int rank, int size)
{
    return late_gatherv(comm, rank, size, 1);
}

static const mistake_t mistakes[] = {
    /* A rank whose process's other ranks called another collective hears
     * of it from them, in the process's own numbering. */
    { "kind", m_kind, 0,
      { { MPI_ERR_NOT_SAME, "MPI_Allreduce", "MPI_Bcast" },
        { MPI_ERR_NOT_SAME, "this process's ranks", "MPI_Bcast" } } },
    { "root", m_root, 0,
      { { MPI_ERR_ROOT, "root=1", "root=0" },
        { MPI_ERR_NOT_SAME, "MPI_Barrier", "collectives before this MPI_Barrier did not match" } } },
    { "op", m_op, 0,
      { { MPI_ERR_OP, "op=MPI_MAX", "op=MPI_SUM" } } },
    { "type", m_type, 0,
      { { MPI_ERR_TRUNCATE, "4-byte signed integer", "4-byte floating-point" } } },
    { "count", m_count, 0,
      { { MPI_ERR_TRUNCATE, "count gives 4 elements", "expects 2" },
        { MPI_ERR_TRUNCATE, "count gives 2 elements", "expects 4" } } },
    { "gather", m_gather, 0,
      { { MPI_ERR_TRUNCATE, "sends 32 bytes", "expects 16" },
        { MPI_ERR_TRUNCATE, "sends 16 bytes", "expects 32" } } },
    { "big", m_big, 0,
      { { MPI_ERR_TRUNCATE, "sends 8000 bytes to rank", "expects 6000" },
        { MPI_ERR_TRUNCATE, "this process's ranks", "count" } } },
    { "bigsmall", m_bigsmall, 0,
      { { MPI_ERR_TRUNCATE, "sends 8000 bytes to rank 1", "expects 400" },
        { MPI_ERR_TRUNCATE, "passed a different amount of data to MPI_Bcast than rank", "" } } },
    { "nbkind", m_nbkind, 1, { { MPI_ERR_NOT_SAME, "MPI_Wait", "" } } },
    { "nbcount", m_nbcount, 1, { { MPI_ERR_TRUNCATE, "MPI_Wait", "" } } },
    { "late", m_late, 0, { { MPI_ERR_TRUNCATE, "rank 1 sends 20 bytes to rank 0", "expects 16" } } },
    { "nblate", m_nblate, 1, { { MPI_ERR_TRUNCATE, "MPI_Wait", "" } } },
};

/* Whether error rc of mistake m is one of its acceptable reports; prints
 * it either way. */
static int report_ok(const mistake_t *m, int rank, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = -1, len = 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    printf("rank %d: %s\n", rank, msg);
    for (int i = 0; i < 3 && m->ok[i].s1; i++)
        if (cls == m->ok[i].cls && strstr(msg, m->ok[i].s1) && strstr(msg, m->ok[i].s2))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, found = 0, total = 0;
    const mistake_t *m = NULL;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; argc > 2 && i < sizeof(mistakes) / sizeof(mistakes[0]); i++)
        if (!strcmp(argv[1], mistakes[i].name))
            m = &mistakes[i];
    ZT_CHECK(m && size >= 2, "usage: net_coll_wrong <mistake> return|fatal, 2 ranks or more");
    int fatal = !strcmp(argv[2], "fatal");
    MPI_Comm comm;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (!fatal)
        ZT_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int rc = m->run(comm, rank, size);
    if (rc != MPI_SUCCESS) {
        ZT_CHECK(report_ok(m, rank, rc), "%s: an unexpected report", m->name);
        found = 1;
    }
    ZT_OK(MPI_Allreduce(&found, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ZT_CHECK(total > 0, "%s: no rank reported the mistake", m->name);
    if (fatal)
        fprintf(stderr, "net_coll_wrong: mistake '%s' was not fatal\n", m->name);
    else if (rank == 0)
        printf("net_coll_wrong %s: %d of %d ranks reported it\n", m->name, total, size);
    MPI_Finalize();
    return fatal ? 3 : 0;
}
