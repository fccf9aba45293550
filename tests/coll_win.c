/*
 * coll_win.c: MPI-3 shared-memory windows on the ranks of
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
 *   - contiguous allocation by default: rank r's segment follows rank
 *     r-1's; alloc_shared_noncontig accepted;
 *   - Win_shared_query gives every rank's base, size and disp_unit;
 *   - ranks write their own segment, Win_sync + Barrier, then read every
 *     other rank's segment directly (and the other way round, several
 *     rounds, with Win_lock_all/unlock_all around the epoch);
 *   - Win_fence orders a write and a read too;
 *   - Win_get_attr for MPI_WIN_BASE, MPI_WIN_SIZE and MPI_WIN_DISP_UNIT.
 */
#include "zt.h"

static void one_window(MPI_Comm shm, int noncontig)
{
    int me, n;
    MPI_Comm_rank(shm, &me);
    MPI_Comm_size(shm, &n);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        ZT_OK(MPI_Info_create(&info));
        ZT_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    }
    /* Rank r holds 100 + r ints (rank 1 holds none, to test empty segments). */
    MPI_Aint size = me == 1 ? 0 : (MPI_Aint)sizeof(int) * (100 + me);
    int *base = NULL;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate_shared(size, sizeof(int), info, shm, &base, &win));
    if (info != MPI_INFO_NULL)
        ZT_OK(MPI_Info_free(&info));
    void *attr;
    int flag = 0;
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag));
    ZT_CHECK(flag && attr == (void *)base, "MPI_WIN_BASE is the allocated base");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &attr, &flag));
    ZT_CHECK(flag && *(MPI_Aint *)attr == size, "MPI_WIN_SIZE is %lld", (long long)size);
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &attr, &flag));
    ZT_CHECK(flag && *(int *)attr == (int)sizeof(int), "MPI_WIN_DISP_UNIT");

    int **bases = zt_malloc(sizeof(int *) * (size_t)n);
    for (int q = 0; q < n; q++) {
        MPI_Aint qs;
        int du;
        ZT_OK(MPI_Win_shared_query(win, q, &qs, &du, &bases[q]));
        ZT_EQ(qs, q == 1 ? 0 : (MPI_Aint)sizeof(int) * (100 + q), "shared_query size");
        ZT_EQ(du, sizeof(int), "shared_query disp_unit");
        if (!noncontig && q > 0 && q != 1 && q - 1 != 1)
            ZT_CHECK(bases[q] == bases[q - 1] + 100 + (q - 1),
                     "contiguous segments: rank %d's follows rank %d's", q, q - 1);
    }
    ZT_CHECK(bases[me] == base || size == 0, "shared_query of my rank gives my base");

    ZT_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < (int)(size / sizeof(int)); i++)
            base[i] = me * 100000 + round * 1000 + i;
        ZT_OK(MPI_Win_sync(win));
        ZT_OK(MPI_Barrier(shm));
        ZT_OK(MPI_Win_sync(win));
        for (int q = 0; q < n; q++)
            for (int i = 0; q != 1 && i < 100 + q; i++)
                ZT_EQ(bases[q][i], q * 100000 + round * 1000 + i, "value read from a peer");
        ZT_OK(MPI_Barrier(shm)); /* nobody writes the next round while others read */
    }
    ZT_OK(MPI_Win_unlock_all(win));

    /* Fence epochs: the next rank writes into my segment, I read it. */
    ZT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int peer = (me + 1) % n;
    if (peer != 1)
        bases[peer][0] = -me - 1;
    ZT_OK(MPI_Win_fence(0, win));
    if (me != 1)
        ZT_EQ(base[0], -((me + n - 1) % n) - 1, "value written by the previous rank");
    ZT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    ZT_OK(MPI_Win_free(&win));
    ZT_CHECK(win == MPI_WIN_NULL, "MPI_Win_free sets MPI_WIN_NULL");
    free(bases);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm shm;
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    one_window(shm, 0);
    one_window(shm, 1);
    ZT_OK(MPI_Comm_free(&shm));
    if (rank == 0)
        printf("coll_win: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
