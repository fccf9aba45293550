/*
 * p2p_requests.c: completion calls (Wait/Test and their all/any/some forms)
 * follow the standard, including MPI_REQUEST_NULL entries and MPI_UNDEFINED
 * results; posted receives can be cancelled; MPI_Request_free and
 * MPI_Request_get_status behave.  Ranks work in pairs (0,1), (2,3), ...
 */
#include "zt.h"

#define NREQ 8

/* Completion calls on arrays holding only MPI_REQUEST_NULL return at once
 * with MPI_UNDEFINED indices and empty statuses. */
static void check_all_null(void)
{
    MPI_Request r[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st[3];
    int idx = 0, flag = 0, out = 0, ind[3];

    ZT_OK(MPI_Wait(&r[0], &st[0]));
    ZT_CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG,
             "MPI_Wait(REQUEST_NULL) status is not empty");
    ZT_OK(MPI_Test(&r[0], &flag, &st[0]));
    ZT_EQ(flag, 1, "MPI_Test(REQUEST_NULL) flag");
    ZT_OK(MPI_Waitall(3, r, st));
    ZT_OK(MPI_Waitany(3, r, &idx, &st[0]));
    ZT_EQ(idx, MPI_UNDEFINED, "MPI_Waitany index on null requests");
    ZT_OK(MPI_Waitsome(3, r, &out, ind, st));
    ZT_EQ(out, MPI_UNDEFINED, "MPI_Waitsome outcount on null requests");
    flag = 0;
    ZT_OK(MPI_Testall(3, r, &flag, st));
    ZT_EQ(flag, 1, "MPI_Testall flag on null requests");
    flag = 0;
    ZT_OK(MPI_Testany(3, r, &idx, &flag, &st[0]));
    ZT_EQ(flag, 1, "MPI_Testany flag on null requests");
    ZT_EQ(idx, MPI_UNDEFINED, "MPI_Testany index on null requests");
    ZT_OK(MPI_Testsome(3, r, &out, ind, st));
    ZT_EQ(out, MPI_UNDEFINED, "MPI_Testsome outcount on null requests");
    ZT_OK(MPI_Waitany(0, r, &idx, &st[0]));
    ZT_EQ(idx, MPI_UNDEFINED, "MPI_Waitany index with count 0");
}

/* Posts receives for tags 0..NREQ-1 from peer, with null entries at the odd
 * indices of a 2*NREQ array. */
static void post_recvs(int *vals, MPI_Request *r, int peer)
{
    for (int i = 0; i < 2 * NREQ; i++) {
        r[i] = MPI_REQUEST_NULL;
        if (i % 2 == 0)
            ZT_OK(MPI_Irecv(&vals[i], 1, MPI_INT, peer, i / 2, MPI_COMM_WORLD, &r[i]));
    }
}

/* Checks a completed receive at index i of the post_recvs layout. */
static void check_slot(const int *vals, const MPI_Status *st, int i,
                       int peer, int round, int *seen)
{
    ZT_CHECK(i >= 0 && i < 2 * NREQ && i % 2 == 0, "bad index %d", i);
    ZT_CHECK(!seen[i], "index %d reported complete twice", i);
    seen[i] = 1;
    ZT_CHECK_STATUS(*st, peer, i / 2, (int)sizeof(int));
    ZT_EQ(vals[i], round * 1000 + i / 2, "received value");
}

/* Round k completes the receives with method k; the peer sends tags in
 * reverse order so that completion order differs from posting order. */
static void recv_round(int peer, int round)
{
    int vals[2 * NREQ], seen[2 * NREQ] = { 0 }, ind[2 * NREQ], done = 0;
    int idx, flag, out;
    MPI_Request r[2 * NREQ];
    MPI_Status st[2 * NREQ];

    post_recvs(vals, r, peer);
    ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 100, MPI_COMM_WORLD));
    while (done < NREQ) {
        switch (round) {
        case 0:
            ZT_OK(MPI_Waitall(2 * NREQ, r, st));
            for (int i = 0; i < 2 * NREQ; i += 2)
                check_slot(vals, &st[i], i, peer, round, seen);
            done = NREQ;
            break;
        case 1:
            ZT_OK(MPI_Waitany(2 * NREQ, r, &idx, &st[0]));
            ZT_CHECK(r[idx] == MPI_REQUEST_NULL, "Waitany left request set");
            check_slot(vals, &st[0], idx, peer, round, seen);
            done++;
            break;
        case 2:
            ZT_OK(MPI_Waitsome(2 * NREQ, r, &out, ind, st));
            ZT_CHECK(out >= 1, "MPI_Waitsome outcount %d", out);
            for (int k = 0; k < out; k++)
                check_slot(vals, &st[k], ind[k], peer, round, seen);
            done += out;
            break;
        case 3:
            ZT_OK(MPI_Testall(2 * NREQ, r, &flag, st));
            for (int i = 0; flag && i < 2 * NREQ; i += 2)
                check_slot(vals, &st[i], i, peer, round, seen);
            done = flag ? NREQ : 0;
            break;
        case 4:
            ZT_OK(MPI_Testany(2 * NREQ, r, &idx, &flag, &st[0]));
            ZT_CHECK(idx != MPI_UNDEFINED || !flag, "Testany: flag without index "
                     "while receives are pending");
            if (flag)
                check_slot(vals, &st[0], idx, peer, round, seen), done++;
            break;
        default:
            ZT_OK(MPI_Testsome(2 * NREQ, r, &out, ind, st));
            ZT_CHECK(out >= 0 && out != MPI_UNDEFINED, "Testsome outcount %d", out);
            for (int k = 0; k < out; k++)
                check_slot(vals, &st[k], ind[k], peer, round, seen);
            done += out;
            break;
        }
    }
    for (int i = 0; i < 2 * NREQ; i++)
        ZT_CHECK(r[i] == MPI_REQUEST_NULL, "request %d not null at the end", i);
}

/* The sending side of recv_round. */
static void send_round(int peer, int round)
{
    ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int t = NREQ - 1; t >= 0; t--) {
        int v = round * 1000 + t;
        ZT_OK(MPI_Send(&v, 1, MPI_INT, peer, t, MPI_COMM_WORLD));
    }
}

/* A posted receive nobody matches can be cancelled; a matched one cannot. */
static void check_cancel(void)
{
    int v = 0, flag = -1;
    MPI_Request r;
    MPI_Status st;

    ZT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &r));
    ZT_OK(MPI_Cancel(&r));
    ZT_OK(MPI_Wait(&r, &st));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag != 0, 1, "MPI_Test_cancelled after cancelling an Irecv");
    ZT_CHECK(r == MPI_REQUEST_NULL, "cancelled request not freed by MPI_Wait");
    ZT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    ZT_OK(MPI_Wait(&r, &st));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag, 0, "MPI_Test_cancelled for a completed receive");
}

/* MPI_Request_get_status reports completion without freeing the request;
 * MPI_Request_free on an active send lets it finish on its own. */
static void check_get_status_and_free(int rank, int peer)
{
    int v = -1, out = rank * 7, flag = 1;
    MPI_Request r;
    MPI_Status st;

    if (rank < peer) {
        ZT_OK(MPI_Irecv(&v, 1, MPI_INT, peer, 200, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Request_get_status(r, &flag, &st));
        ZT_EQ(flag, 0, "get_status before the peer was told to send");
        ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 201, MPI_COMM_WORLD));
        do {
            ZT_OK(MPI_Request_get_status(r, &flag, &st));
        } while (!flag);
        ZT_CHECK(r != MPI_REQUEST_NULL, "get_status freed the request");
        ZT_CHECK_STATUS(st, peer, 200, (int)sizeof(int));
        ZT_OK(MPI_Wait(&r, &st));
        ZT_CHECK_STATUS(st, peer, 200, (int)sizeof(int));
        ZT_EQ(v, peer * 7, "value received after get_status");
        ZT_OK(MPI_Recv(&v, 1, MPI_INT, peer, 202, MPI_COMM_WORLD, &st));
        ZT_EQ(v, peer * 7 + 1, "value of a send whose request was freed");
    } else {
        ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 201, MPI_COMM_WORLD, &st));
        ZT_OK(MPI_Send(&out, 1, MPI_INT, peer, 200, MPI_COMM_WORLD));
        int *heap = zt_malloc(sizeof *heap);
        *heap = out + 1;
        ZT_OK(MPI_Isend(heap, 1, MPI_INT, peer, 202, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Request_free(&r));
        ZT_CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
        /* The buffer may be reused only once the receiver confirms. */
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
        free(heap);
        return;
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_all_null();
    check_cancel();
    int peer = rank ^ 1;
    if (peer < size) {
        for (int round = 0; round < 6; round++) {
            if (rank < peer)
                recv_round(peer, round);
            else
                send_round(peer, round);
        }
        check_get_status_and_free(rank, peer);
    } else {
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
