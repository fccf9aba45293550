/*
 * net_mpi4py.c: what mpi4py's test suite does across processes that
 * zmpi's own tests did not (each of these failed there, issue 17):
 *
 *   - a non-blocking collective whose count and displacement arrays the
 *     caller overwrites as soon as the call returns (mpi4py 4.1.2's
 *     Iallgatherv frees them then; MPICH and Open MPI copy them);
 *   - a non-blocking collective started before a blocking one on some
 *     ranks and after it on the others (mpi4py's Comm_iagree fallback, an
 *     Iallreduce, in its ULFM test);
 *   - synchronous and rendezvous sends of zero bytes from and to NULL
 *     buffers.
 *
 * tests/net.cmake runs it as 2 processes x 3 ranks, interleaved.
 */
#include "zt.h"

/* Iallgatherv and Ialltoallv whose arrays are overwritten right after the
 * call: the results must follow the arrays as they were at the call. */
static void arrays_overwritten(int r, int n)
{
    int *cnt = zt_malloc(sizeof(int) * (size_t)n), *dsp = zt_malloc(sizeof(int) * (size_t)n);
    int *sbuf = zt_malloc(sizeof(int) * (size_t)n * 4), *rbuf = zt_malloc(sizeof(int) * (size_t)n * 4);
    for (int count = 0; count <= 2; count++) {
        for (int i = 0; i < n * 4; i++)
            sbuf[i] = r * 100 + i, rbuf[i] = -1;
        for (int q = 0; q < n; q++)
            cnt[q] = count, dsp[q] = 4 * q;
        MPI_Request req;
        ZT_OK(MPI_Iallgatherv(sbuf, count, MPI_INT, rbuf, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &req));
        for (int q = 0; q < n; q++)
            cnt[q] = 3, dsp[q] = 0;
        ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < 4; i++)
                ZT_EQ(rbuf[4 * q + i], i < count ? q * 100 + i : -1, "Iallgatherv block");
    }
    int *rc = zt_malloc(sizeof(int) * (size_t)n), *rd = zt_malloc(sizeof(int) * (size_t)n);
    for (int q = 0; q < n; q++)
        cnt[q] = 1 + (q + r) % 2, dsp[q] = 4 * q, rc[q] = 1 + (q + r) % 2, rd[q] = 4 * q;
    for (int i = 0; i < n * 4; i++)
        rbuf[i] = -1;
    MPI_Request req;
    ZT_OK(MPI_Ialltoallv(sbuf, cnt, dsp, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, &req));
    for (int q = 0; q < n; q++)
        cnt[q] = rc[q] = 4, dsp[q] = rd[q] = 0;
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int q = 0; q < n; q++)
        for (int i = 0; i < 4; i++)
            ZT_EQ(rbuf[4 * q + i], i < 1 + (q + r) % 2 ? q * 100 + 4 * r + i : -1,
                  "Ialltoallv block");
    free(cnt), free(dsp), free(rc), free(rd), free(sbuf), free(rbuf);
}

/* For each root: the root starts an Iallreduce, then a Barrier; the
 * others a Barrier, then the Iallreduce. */
static void nonblocking_before_blocking(int r, int n, MPI_Comm c)
{
    for (int root = 0; root < n; root++) {
        int in = r == root ? 0xb : 0xd, out = -1;
        MPI_Request req;
        ZT_OK(MPI_Barrier(c));
        if (r == root) {
            ZT_OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_BAND, c, &req));
            ZT_OK(MPI_Barrier(c));
        } else {
            ZT_OK(MPI_Barrier(c));
            ZT_OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_BAND, c, &req));
        }
        ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        ZT_EQ(out, 0x9, "Iallreduce across a Barrier");
    }
}

/* Zero-byte messages from and to NULL buffers in every send mode, each
 * rank to the next (in the other process when interleaved). */
static void zero_bytes(int r, int n)
{
    int to = (r + 1) % n, from = (r + n - 1) % n;
    for (int mode = 0; mode < 3; mode++) {
        MPI_Request req;
        MPI_Status st;
        ZT_OK(MPI_Irecv(NULL, 0, MPI_BYTE, from, 7, MPI_COMM_WORLD, &req));
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD)); /* Rsend: every receive is posted */
        if (mode == 0)
            ZT_OK(MPI_Ssend(NULL, 0, MPI_BYTE, to, 7, MPI_COMM_WORLD));
        else if (mode == 1)
            ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, to, 7, MPI_COMM_WORLD));
        else
            ZT_OK(MPI_Rsend(NULL, 0, MPI_BYTE, to, 7, MPI_COMM_WORLD));
        ZT_OK(MPI_Wait(&req, &st));
        ZT_CHECK_STATUS(st, from, 7, 0);
    }
}

int main(int argc, char **argv)
{
    int r, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    arrays_overwritten(r, n);
    nonblocking_before_blocking(r, n, MPI_COMM_WORLD);
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    nonblocking_before_blocking(r, n, dup);
    ZT_OK(MPI_Comm_free(&dup));
    zero_bytes(r, n);
    MPI_Finalize();
    return 0;
}
