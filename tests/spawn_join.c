/*
 * spawn_join.c: MPI_Comm_join between pairs of ranks (0-1, 2-3, ...) over
 * TCP connections on the loopback interface, in one process or across
 * processes, and its refusals.
 *
 * The even rank of a pair listens on an ephemeral port and sends the port
 * number to the odd one, which connects; the even rank accepts only once
 * the odd one says it is connected, so no worker thread blocks in
 * accept().  Both then join and check the intercommunicator: sizes, a
 * message each way, an intercommunicator Bcast and Allreduce, and a merge.
 * Then, under MPI_ERRORS_RETURN: a socket whose other end writes garbage
 * (MPI_ERR_ARG naming "not a zmpi rank"), a descriptor that is not a
 * socket, fd -1 and intercomm NULL.  Needs an even number of ranks.
 */
#include <mpi.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (!(c)) {                                                                      \
            fprintf(stderr, "spawn_join: %s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #c);                                                                 \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                \
        }                                                                                \
    } while (0)

/* The connected socket of this rank's pair. */
static int pair_socket(int rank)
{
    int peer = rank ^ 1, one = 1;
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (rank % 2 == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 4) == 0);
        CHECK(getsockname(l, (struct sockaddr *)&a, &alen) == 0);
        int port = ntohs(a.sin_port);
        MPI_Send(&port, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(&one, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int s = accept(l, NULL, NULL);
        CHECK(s >= 0);
        close(l);
        return s;
    }
    int port, s = socket(AF_INET, SOCK_STREAM, 0);
    MPI_Recv(&port, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    a.sin_port = htons((unsigned short)port);
    CHECK(s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0);
    MPI_Send(&one, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
    return s;
}

static void check_joined(MPI_Comm ic, int rank)
{
    int flag, size, rsize, r, v, sum;
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &r);
    CHECK(flag && size == 1 && rsize == 1 && r == 0);
    /* A message each way, then collectives across the two groups. */
    int out = 1000 + rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, 0, 5, &in, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
    CHECK(in == 1000 + (rank ^ 1));
    v = rank % 2 == 0 ? 77 + rank : -1;
    MPI_Bcast(&v, 1, MPI_INT, rank % 2 == 0 ? MPI_ROOT : 0, ic);
    CHECK(rank % 2 == 0 ? v == 77 + rank : v == 77 + (rank ^ 1));
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ic);
    CHECK(sum == (rank ^ 1));
    MPI_Comm m;
    MPI_Intercomm_merge(ic, rank % 2, &m);
    MPI_Comm_size(m, &size);
    MPI_Comm_rank(m, &r);
    CHECK(size == 2 && r == rank % 2);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m);
    CHECK(sum == rank + (rank ^ 1));
    MPI_Comm_free(&m);
}

/* Join on a socket whose other end is not a rank: it is refused. */
static void check_refusals(void)
{
    int sv[2], rc, cls, len;
    char msg[MPI_MAX_ERROR_STRING], junk[200];
    MPI_Comm ic = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    memset(junk, 'x', sizeof junk);
    CHECK(write(sv[1], junk, sizeof junk) == (ssize_t)sizeof junk);
    rc = MPI_Comm_join(sv[0], &ic);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_ARG && ic == MPI_COMM_NULL && strstr(msg, "MPI_Comm_join") &&
          strstr(msg, "not a zmpi rank"));
    close(sv[0]);
    close(sv[1]);
    int p[2];
    CHECK(pipe(p) == 0);
    rc = MPI_Comm_join(p[0], &ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && ic == MPI_COMM_NULL);
    close(p[0]);
    close(p[1]);
    rc = MPI_Comm_join(-1, &ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    rc = MPI_Comm_join(0, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size % 2 == 0);
    for (int round = 0; round < 3; round++) {
        int s = pair_socket(rank);
        MPI_Comm ic;
        CHECK(MPI_Comm_join(s, &ic) == MPI_SUCCESS);
        close(s);
        check_joined(ic, rank);
        MPI_Comm_disconnect(&ic);
        CHECK(ic == MPI_COMM_NULL);
    }
    check_refusals();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("spawn_join: OK\n");
    MPI_Finalize();
    return 0;
}
