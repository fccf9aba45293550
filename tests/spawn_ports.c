/*
 * spawn_ports.c: MPI_Open_port, MPI_Publish_name, MPI_Lookup_name,
 * MPI_Comm_accept and MPI_Comm_connect between the two halves of
 * MPI_COMM_WORLD (ranks below size/2 accept, the others connect), checked
 * against the halves' sizes and contents; then the calls' errors under
 * MPI_ERRORS_RETURN.  Needs 2 ranks or more.  In the last round the
 * connecting side opens and publishes the port, so in a job of several
 * processes the accepting root may pair at another process's table.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                      \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "spawn_ports: %s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #c);                                                    \
            MPI_Abort(MPI_COMM_WORLD, 2);                                             \
        }                                                                             \
    } while (0)

static unsigned char pattern(int from, int to, int round, int i)
{
    return (unsigned char)(from * 37 + to * 11 + round * 5 + i * 13 + (i >> 9));
}

/* Over intercommunicator c, every local rank swaps 20000 bytes with every
 * remote rank, whose world ranks are given (to build the pattern). */
static void swap(MPI_Comm c, int me_w, const int *rw, int nr, int round)
{
    enum { LEN = 20000 };
    unsigned char *sb = malloc((size_t)LEN * (size_t)nr), *rb = malloc((size_t)LEN * (size_t)nr);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)nr);
    CHECK(sb && rb && req);
    for (int r = 0; r < nr; r++) {
        for (int i = 0; i < LEN; i++)
            sb[(size_t)r * LEN + i] = pattern(me_w, rw[r], round, i);
        MPI_Irecv(rb + (size_t)r * LEN, LEN, MPI_BYTE, r, 3, c, &req[nr + r]);
        MPI_Isend(sb + (size_t)r * LEN, LEN, MPI_BYTE, r, 3, c, &req[r]);
    }
    MPI_Waitall(2 * nr, req, MPI_STATUSES_IGNORE);
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < LEN; i++)
            CHECK(rb[(size_t)r * LEN + i] == pattern(rw[r], me_w, round, i));
    free(sb);
    free(rb);
    free(req);
}

static void check_errors(void)
{
    char port[MPI_MAX_PORT_NAME], name[MPI_MAX_PORT_NAME];
    int cls;
    MPI_Comm c;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Lookup_name("zmpi-test-never-published", MPI_INFO_NULL, name), &cls);
    CHECK(cls == MPI_ERR_NAME);
    MPI_Error_class(MPI_Unpublish_name("zmpi-test-never-published", MPI_INFO_NULL, "x"), &cls);
    CHECK(cls == MPI_ERR_SERVICE);
    MPI_Error_class(MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), &cls);
    CHECK(cls == MPI_ERR_PORT && c == MPI_COMM_NULL);
    CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
    char svc[64];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(svc, sizeof svc, "zmpi-test-own-%d", rank);
    CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS);
    MPI_Error_class(MPI_Publish_name(svc, MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_SERVICE);
    CHECK(MPI_Lookup_name(svc, MPI_INFO_NULL, name) == MPI_SUCCESS && strcmp(name, port) == 0);
    CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS);
    CHECK(MPI_Close_port(port) == MPI_SUCCESS);
    MPI_Error_class(MPI_Close_port(port), &cls);
    CHECK(cls == MPI_ERR_PORT);
    MPI_Error_class(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), &cls);
    CHECK(cls == MPI_ERR_PORT && c == MPI_COMM_NULL);
}

int main(int argc, char **argv)
{
    int size, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(size >= 2);
    int low = rank < size / 2, nlow = size / 2;
    MPI_Comm half, c;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    for (int round = 0; round < 4; round++) {
        char svc[64];
        snprintf(svc, sizeof svc, "zmpi-test-service-%d", round);
        /* Round 1 uses another root on each side; round 2 connects first. */
        int root = round == 1 ? (low ? nlow - 1 : size - nlow - 1) : 0;
        int hr, opener = round == 3 ? !low : low;
        MPI_Comm_rank(half, &hr);
        if (opener && hr == root) {
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
            CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (low) {
            if (round == 2) {
                /* Connectors go first, mostly (see below). */
                MPI_Request b;
                MPI_Ibarrier(MPI_COMM_WORLD, &b);
                MPI_Wait(&b, MPI_STATUS_IGNORE);
            }
            if (hr == root && !opener)
                CHECK(MPI_Lookup_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS);
            CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, root, half, &c) == MPI_SUCCESS);
        } else {
            if (hr == root && !opener)
                CHECK(MPI_Lookup_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS);
            if (round == 2) {
                /* The accepting side is held at a barrier that this side
                 * enters just before connecting, so here the connecting
                 * root usually waits in the port's queue first (the
                 * other rounds mostly see the accepting root first). */
                MPI_Request b;
                MPI_Ibarrier(MPI_COMM_WORLD, &b);
                CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, root, half, &c) == MPI_SUCCESS);
                MPI_Wait(&b, MPI_STATUS_IGNORE);
            } else {
                CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, root, half, &c) == MPI_SUCCESS);
            }
        }
        int flag, nl, nr;
        MPI_Comm_test_inter(c, &flag);
        MPI_Comm_size(c, &nl);
        MPI_Comm_remote_size(c, &nr);
        CHECK(flag && nl == (low ? nlow : size - nlow) && nr == (low ? size - nlow : nlow));
        /* The remote group is the other half, in order. */
        MPI_Group rg, wg;
        int *idx = malloc(sizeof(int) * (size_t)nr), *rw = malloc(sizeof(int) * (size_t)nr);
        CHECK(idx && rw);
        MPI_Comm_remote_group(c, &rg);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (int i = 0; i < nr; i++)
            idx[i] = i;
        MPI_Group_translate_ranks(rg, nr, idx, wg, rw);
        for (int i = 0; i < nr; i++)
            CHECK(rw[i] == (low ? nlow + i : i));
        MPI_Group_free(&rg);
        MPI_Group_free(&wg);
        swap(c, rank, rw, nr, round);
        MPI_Comm m;
        MPI_Intercomm_merge(c, !low, &m);
        int mr, sum = 0, one = rank;
        MPI_Comm_rank(m, &mr);
        CHECK(mr == rank);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m);
        CHECK(sum == size * (size - 1) / 2);
        MPI_Comm_free(&m);
        free(idx);
        free(rw);
        MPI_Comm_disconnect(&c);
        MPI_Barrier(MPI_COMM_WORLD);
        if (opener && hr == root) {
            CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS);
            CHECK(MPI_Close_port(port) == MPI_SUCCESS);
        }
    }
    MPI_Comm_free(&half);
    check_errors();
    MPI_Finalize();
    return 0;
}
