/*
 * wrong.c: erroneous MPI programs that must make the job fail with a clear
 * message.  The first argument names the mistake; see the table in main.
 * These are registered only as expected failures.
 */
#include "zt.h"

/* Sends to a rank that does not exist. */
static void invalid_rank(int rank, int size)
{
    int v = 1;

    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
}

static void invalid_tag(int rank, int size)
{
    int v = 1;

    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, size - 1, -5, MPI_COMM_WORLD);
}

static void negative_count(int rank, int size)
{
    int v = 1;

    if (rank == size - 1)
        MPI_Recv(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void null_datatype(int rank, int size)
{
    int v = 1;

    if (rank == 0)
        MPI_Send(&v, 1, MPI_DATATYPE_NULL, size - 1, 0, MPI_COMM_WORLD);
}

static void null_comm(int rank, int size)
{
    int v = 1;

    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, size - 1, 0, MPI_COMM_NULL);
}

/* Rank 0 sends 400 bytes; rank 1 has room for 40. */
static void truncate_msg(int rank, int size)
{
    char buf[400] = { 0 };

    (void)size;
    if (rank == 0)
        MPI_Send(buf, 400, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(buf, 40, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Ranks 0 and 1 both wait to receive before sending. */
static void deadlock_recv_first(int rank, int size)
{
    int v = 0;

    (void)size;
    if (rank < 2) {
        MPI_Recv(&v, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD);
    }
}

/* Rank 1 waits for a message from rank 0, which finalizes without one. */
static void recv_from_finalized(int rank, int size)
{
    int v = 0;

    (void)size;
    if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 buffers a message that rank 1 never receives (rank 1 waits for
 * another tag), then detaches its buffer, which waits for that message:
 * both ranks wait forever, which must be reported, not spun on. */
static void bsend_detach_unreceived(int rank, int size)
{
    static char area[1024 + MPI_BSEND_OVERHEAD];
    int v = 1, n;
    void *p;

    (void)size;
    if (rank == 0) {
        MPI_Buffer_attach(area, (int)sizeof(area));
        MPI_Bsend(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Buffer_detach(&p, &n);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Recursion with a big frame on every level overflows any small stack.
 * The depth bound is never reached; it keeps the recursion finite. */
static int deep(int depth)
{
    volatile char frame[4096];

    frame[depth % 4096] = (char)depth;
    if (depth >= 1000000000)
        return frame[0];
    return deep(depth + 1) + frame[(depth * 7) % 4096];
}

static void stack_overflow(int rank, int size)
{
    (void)size;
    if (rank == 1)
        printf("unreachable: %d\n", deep(0));
}

static void abort_7(int rank, int size)
{
    int v = 0;

    if (rank == size - 1)
        MPI_Abort(MPI_COMM_WORLD, 7);
    /* The other ranks wait for a message that never comes. */
    MPI_Recv(&v, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The last rank calls exit(3) between MPI_Init and MPI_Finalize while the
 * others wait for it: the job ends with its status and names the rank,
 * instead of reporting the others as deadlocked. */
static void exit_3(int rank, int size)
{
    int v = 0;

    if (rank == size - 1)
        exit(3);
    MPI_Recv(&v, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* ---- Derived datatypes (issue 3) ---- */

/* Sends with a derived type that was never committed. */
static void dt_uncommitted(int rank, int size)
{
    int v[4] = { 0 };
    MPI_Datatype t;

    MPI_Type_contiguous(4, MPI_INT, &t);
    if (rank == 0)
        MPI_Send(v, 1, t, size - 1, 0, MPI_COMM_WORLD);
    else if (rank == size - 1)
        MPI_Recv(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Sends with a type handle kept after MPI_Type_free; a dup holds the
 * object alive so the use is detected, not a read of freed memory. */
static void dt_freed(int rank, int size)
{
    int v[4] = { 0 };
    MPI_Datatype t, keep, copy;

    MPI_Type_contiguous(4, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_vector(1, 1, 1, t, &keep);
    copy = t;
    MPI_Type_free(&t);
    if (rank == 0)
        MPI_Send(v, 1, copy, size - 1, 0, MPI_COMM_WORLD);
    else if (rank == size - 1)
        MPI_Recv(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&keep);
}

/* A vector receive that holds fewer bytes than arrive. */
static void dt_truncate(int rank, int size)
{
    int v[64] = { 0 };
    MPI_Datatype t;

    MPI_Type_vector(4, 2, 4, MPI_INT, &t);
    MPI_Type_commit(&t);
    if (rank == 0)
        MPI_Send(v, 20, MPI_INT, size - 1, 0, MPI_COMM_WORLD);
    else if (rank == size - 1)
        MPI_Recv(v, 2, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void dt_bad_vector(int rank, int size)
{
    MPI_Datatype t;

    (void)size;
    if (rank == 0)
        MPI_Type_vector(-3, 1, 2, MPI_INT, &t);
}
/* ---- end of derived datatypes ---- */
/* ---- Collectives (node-aware collectives issue) ------------------------ */

static void coll_bad_root(int rank, int size)
{
    int v = rank;

    MPI_Bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD);
}

/* MPI_BAND is not defined on floating point. */
static void coll_bad_op(int rank, int size)
{
    double v = rank, r;

    (void)size;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
}

static void coll_null_buffer(int rank, int size)
{
    int r[4];

    (void)size;
    MPI_Allreduce(rank == 0 ? NULL : r, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* The root broadcasts 10 ints, the others expect 5. */
static void coll_count_mismatch(int rank, int size)
{
    int v[10] = { 0 };

    (void)size;
    MPI_Bcast(v, rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD);
}

/* A Bcast the root stages (4000 bytes on 16 ranks), after a loop of good
 * ones: rank 7 expects 2000 bytes. */
static void coll_bcast_staged_mismatch(int rank, int size)
{
    char v[4000] = { 0 };

    for (int i = 0; i < 100; i++)
        MPI_Bcast(v, 4000, MPI_CHAR, i % size, MPI_COMM_WORLD);
    MPI_Bcast(v, rank == 7 ? 2000 : 4000, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* A small Bcast (the fast path, which compares headers only) after a loop
 * of good ones with changing roots; rank 5 names another root. */
static void coll_bcast_root_mismatch(int rank, int size)
{
    int v[4] = { 0 };

    for (int i = 0; i < 100; i++)
        MPI_Bcast(v, 4, MPI_INT, i % size, MPI_COMM_WORLD);
    MPI_Bcast(v, 4, MPI_INT, rank == 5 ? 1 : 0, MPI_COMM_WORLD);
}

/* Rank 0 takes itself for the root of a small Bcast whose root is 1 for
 * everyone else: nobody reads rank 0's call, so the mismatch shows at the
 * next collective that compares all ranks. */
static void coll_bcast_false_root(int rank, int size)
{
    int v[4] = { 0 };

    (void)size;
    for (int i = 0; i < 100; i++)
        MPI_Bcast(v, 4, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Bcast(v, 4, MPI_INT, rank == 0 ? 0 : 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 3 calls Allreduce where the others call a small Bcast. */
static void coll_bcast_kind_mismatch(int rank, int size)
{
    int v[4] = { 0 }, w[4];

    (void)size;
    for (int i = 0; i < 100; i++)
        MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 3)
        MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD);
}

static void coll_root_mismatch(int rank, int size)
{
    int v = rank, r = 0;

    MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, rank == 0 ? 0 : size - 1, MPI_COMM_WORLD);
}

/* The last rank waits for a message instead of joining the barrier. */
static void coll_deadlock(int rank, int size)
{
    int v = 0;

    if (rank == size - 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 never starts the non-blocking barrier the others wait for. */
static void coll_ibarrier_missing(int rank, int size)
{
    MPI_Request q;
    int v = 0;

    (void)size;
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
}

typedef void (*mistake_fn)(int rank, int size);

int main(int argc, char **argv)
{
    static const struct { const char *name; mistake_fn fn; } table[] = {
        { "invalid_rank", invalid_rank }, { "invalid_tag", invalid_tag },
        { "negative_count", negative_count }, { "null_datatype", null_datatype },
        { "null_comm", null_comm }, { "truncate", truncate_msg },
        { "deadlock_recv_first", deadlock_recv_first },
        { "recv_from_finalized", recv_from_finalized },
        { "bsend_detach_unreceived", bsend_detach_unreceived },
        { "stack_overflow", stack_overflow }, { "abort_7", abort_7 }, { "exit_3", exit_3 },
        { "dt_uncommitted", dt_uncommitted }, { "dt_freed", dt_freed },
        { "dt_truncate", dt_truncate }, { "dt_bad_vector", dt_bad_vector },
        /* Collectives. */
        { "coll_bad_root", coll_bad_root }, { "coll_bad_op", coll_bad_op },
        { "coll_null_buffer", coll_null_buffer },
        { "coll_count_mismatch", coll_count_mismatch },
        { "coll_root_mismatch", coll_root_mismatch }, { "coll_deadlock", coll_deadlock },
        { "coll_bcast_root_mismatch", coll_bcast_root_mismatch },
        { "coll_bcast_staged_mismatch", coll_bcast_staged_mismatch },
        { "coll_bcast_kind_mismatch", coll_bcast_kind_mismatch },
        { "coll_bcast_false_root", coll_bcast_false_root },
        { "coll_ibarrier_missing", coll_ibarrier_missing },
    };
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(argc > 1 && size >= 2, "usage: wrong MISTAKE, on 2+ ranks");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(argv[1], table[i].name) == 0) {
            table[i].fn(rank, size);
            MPI_Finalize();
            return 0;
        }
    }
    ZT_CHECK(0, "unknown mistake '%s'", argv[1]);
    return 1;
}
