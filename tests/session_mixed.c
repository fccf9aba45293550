/*
 * session_mixed.c: the world model and the sessions model in one program
 * (MPI 4.1 section 11.4).  Even ranks open a session before MPI_Init, odd
 * ranks after it; messages with equal tags on MPI_COMM_WORLD and on a
 * communicator made from the session's world group must not mix; after
 * MPI_Finalize the session's communicator still works, and a second
 * session opened and finalized meanwhile changes nothing.
 */
#include "zt.h"

/* Messages with the same tag and peers on two communicators: each must
 * arrive on its own communicator. */
static void no_crosstalk(MPI_Comm sc, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int on_world = 100000 + rank, on_session = 200000 + rank, a = -1, b = -1;
    MPI_Request rq[2];
    ZT_OK(MPI_Isend(&on_world, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[0]));
    ZT_OK(MPI_Isend(&on_session, 1, MPI_INT, right, 7, sc, &rq[1]));
    /* Receive in the other order than sent. */
    ZT_OK(MPI_Recv(&b, 1, MPI_INT, left, 7, sc, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Recv(&a, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    ZT_EQ(a, 100000 + left, "message on MPI_COMM_WORLD");
    ZT_EQ(b, 200000 + left, "message on the session's communicator");
}

static void reduce_both(MPI_Comm sc, int rank, int size)
{
    int sw = 0, ss = 0, v = rank + 1;
    ZT_OK(MPI_Allreduce(&v, &sw, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ZT_OK(MPI_Allreduce(&v, &ss, 1, MPI_INT, MPI_SUM, sc));
    ZT_EQ(sw, size * (size + 1) / 2, "sum on MPI_COMM_WORLD");
    ZT_EQ(ss, size * (size + 1) / 2, "sum on the session's communicator");
}

/* Work on the session's communicator alone (after MPI_Finalize). */
static void session_only(MPI_Comm sc, int rank, int size)
{
    int r, got = -1, sum = 0, right, left;
    ZT_OK(MPI_Comm_rank(sc, &r));
    ZT_EQ(r, rank, "rank in the session's communicator");
    right = (r + 1) % size;
    left = (r + size - 1) % size;
    ZT_OK(MPI_Sendrecv(&r, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, sc,
                       MPI_STATUS_IGNORE));
    ZT_EQ(got, left, "ring after MPI_Finalize");
    ZT_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_MAX, sc));
    ZT_EQ(sum, size - 1, "maximum rank after MPI_Finalize");
}

static MPI_Session open_session(void)
{
    MPI_Session s;
    ZT_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    return s;
}

int main(int argc, char **argv)
{
    MPI_Session s = MPI_SESSION_NULL, s2;
    MPI_Group sg, wg;
    MPI_Comm sc;
    int rank, size, flag, result, odd;

    /* Before MPI_Init this rank does not know its world rank: parity comes
     * from the session's own world group. */
    s2 = open_session();
    ZT_OK(MPI_Group_from_session_pset(s2, "mpi://WORLD", &sg));
    ZT_OK(MPI_Group_rank(sg, &rank));
    ZT_OK(MPI_Group_free(&sg));
    odd = rank % 2;
    if (!odd)
        s = open_session();
    ZT_OK(MPI_Session_finalize(&s2));
    ZT_OK(MPI_Init(&argc, &argv));
    if (odd)
        s = open_session();
    ZT_OK(MPI_Initialized(&flag));
    ZT_EQ(flag, 1, "MPI_Initialized after MPI_Init");
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    ZT_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &sg));
    ZT_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    ZT_OK(MPI_Group_compare(sg, wg, &result));
    ZT_EQ(result, MPI_IDENT, "session world group against MPI_COMM_WORLD's");
    ZT_OK(MPI_Comm_create_from_group(sg, "zmpi.session_mixed", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &sc));
    ZT_OK(MPI_Comm_compare(sc, MPI_COMM_WORLD, &result));
    ZT_EQ(result, MPI_CONGRUENT, "session communicator against MPI_COMM_WORLD");
    ZT_OK(MPI_Group_free(&sg));
    ZT_OK(MPI_Group_free(&wg));

    for (int i = 0; i < 3; i++) {
        no_crosstalk(sc, rank, size);
        reduce_both(sc, rank, size);
    }
    s2 = open_session();
    ZT_OK(MPI_Finalize());

    /* MPI_Finalize ends the world model only: both sessions live on. */
    ZT_OK(MPI_Finalized(&flag));
    ZT_EQ(flag, 1, "MPI_Finalized after MPI_Finalize");
    session_only(sc, rank, size);
    ZT_OK(MPI_Session_finalize(&s2));
    session_only(sc, rank, size);
    ZT_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &flag));
    ZT_EQ(flag, 2, "process sets after MPI_Finalize");
    ZT_OK(MPI_Comm_free(&sc));
    ZT_OK(MPI_Session_finalize(&s));
    if (rank == 0)
        printf("session_mixed: %d ranks OK\n", size);
    return 0;
}
