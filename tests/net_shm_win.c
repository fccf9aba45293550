/*
 * net_shm_win.c: shared windows whose ranks live in several processes of
 * one node (docs/net.md, "Shared memory between the processes of a
 * node"), and the node-wide MPI_COMM_TYPE_SHARED they are made on.  It
 * also runs in one process, where the same must hold.
 *
 * - MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gives the whole node; a
 *   window allocated on it is contiguous in rank order unless
 *   alloc_shared_noncontig says otherwise, and zeroed;
 * - every rank stores into its own segment and, after MPI_Win_sync and a
 *   barrier, loads every other rank's segment through the pointer
 *   MPI_Win_shared_query gave, whichever process it is in;
 * - MPI_Put / MPI_Accumulate into other ranks' segments are seen by their
 *   loads, and concurrent MPI_Fetch_and_op on one counter hands out every
 *   ticket once;
 * - a flag stored by one rank is seen by a rank of another process
 *   polling its memory (MPI_Win_sync in the loop);
 * - with argument "separate" (zmpirun --separate-nodes: every process a
 *   node of its own) the world is refused with MPI_ERR_COMM and
 *   MPI_COMM_TYPE_SHARED gives one process's ranks.
 */
#include "zt.h"

#include <dirent.h>
#include <unistd.h>

#define N 64

/* Nothing of the windows this process created is left in /dev/shm
 * (names carry the creating process's id; other jobs may run meanwhile). */
static int shm_leftovers(void)
{
    DIR *d = opendir("/dev/shm");
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "zmpi-win-%d-", (int)getpid());
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* Loads and stores across the node, contiguity, RMA calls, a counter. */
static void check_window(MPI_Comm node, int noncontig)
{
    int r, n;
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, &n);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    int64_t *mine;
    MPI_Win win;
    /* Rank 1 has an empty segment: the layout must skip it. */
    MPI_Aint bytes = r == 1 ? 0 : N * sizeof(int64_t);
    ZT_OK(MPI_Win_allocate_shared(bytes, sizeof(int64_t), info, node, &mine, &win));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    for (int i = 0; i < (bytes ? N : 0); i++)
        ZT_EQ((long long)mine[i], 0LL, "fresh shared memory");
    ZT_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int i = 0; i < (bytes ? N : 0); i++)
        mine[i] = 1000 * r + i;
    ZT_OK(MPI_Win_sync(win));
    ZT_OK(MPI_Barrier(node));
    ZT_OK(MPI_Win_sync(win));
    char *prev_end = NULL;
    for (int q = 0; q < n; q++) {
        MPI_Aint sz;
        int du;
        int64_t *p;
        ZT_OK(MPI_Win_shared_query(win, q, &sz, &du, &p));
        ZT_EQ((long long)sz, (long long)(q == 1 ? 0 : N * sizeof(int64_t)), "segment size");
        ZT_EQ(du, (int)sizeof(int64_t), "displacement unit");
        if (!noncontig && prev_end)
            ZT_CHECK((char *)p == prev_end, "segment %d does not follow segment %d", q, q - 1);
        prev_end = (char *)p + sz;
        for (int i = 0; i < (sz ? N : 0); i++)
            ZT_EQ((long long)p[i], 1000LL * q + i, "a load from another rank's segment");
    }
    ZT_OK(MPI_Barrier(node));
    /* Put one value into the next rank's segment, accumulate into rank 0's
     * slot 1, take tickets from rank 0's slot 0. */
    int next = (r + 1) % n;
    int64_t v = -r, one = 1, ticket = -1;
    if (next != 1)
        ZT_OK(MPI_Put(&v, 1, MPI_INT64_T, next, 2, 1, MPI_INT64_T, win));
    ZT_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
    ZT_OK(MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, 0, 3, MPI_SUM, win));
    ZT_OK(MPI_Win_flush_all(win));
    ZT_OK(MPI_Barrier(node));
    ZT_OK(MPI_Win_sync(win));
    int prev = (r + n - 1) % n;
    if (bytes)
        ZT_EQ((long long)mine[2], (long long)-prev, "Put by the previous rank");
    int64_t *seg0;
    MPI_Aint sz0;
    int du0;
    ZT_OK(MPI_Win_shared_query(win, 0, &sz0, &du0, &seg0));
    ZT_EQ((long long)seg0[1], 1LL + n, "accumulates of every rank into rank 0");
    int64_t *all = zt_malloc(sizeof(int64_t) * (size_t)n);
    ZT_OK(MPI_Allgather(&ticket, 1, MPI_INT64_T, all, 1, MPI_INT64_T, node));
    for (int t = 0; t < n; t++) {
        int seen = 0;
        for (int q = 0; q < n; q++)
            seen += all[q] == 3 + t;
        ZT_EQ(seen, 1, "ticket handed out once");
    }
    free(all);
    /* A flag from the last rank, polled by rank 0 (another process under
     * --interleave). */
    if (r == n - 1 && n > 1) {
        seg0[4] = 77;
        ZT_OK(MPI_Win_sync(win));
    } else if (r == 0 && n > 1) {
        double t0 = MPI_Wtime();
        while (((volatile int64_t *)seg0)[4] != 77 && MPI_Wtime() - t0 < 30.0)
            MPI_Win_sync(win);
        ZT_EQ((long long)seg0[4], 77LL, "a flag stored by another process");
    }
    ZT_OK(MPI_Win_unlock_all(win));
    ZT_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int separate = argc > 1 && strcmp(argv[1], "separate") == 0;
    MPI_Comm node;
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nsize;
    MPI_Comm_size(node, &nsize);
    if (separate) {
        /* Every process is a node: the world's window is refused. */
        ZT_CHECK(nsize < size, "MPI_COMM_TYPE_SHARED spans %d separate nodes", size);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int64_t *p;
        MPI_Win win;
        int rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win), cls;
        MPI_Error_class(rc, &cls);
        ZT_EQ(cls, MPI_ERR_COMM, "Win_allocate_shared across nodes");
    } else {
        ZT_EQ(nsize, size, "ranks of MPI_COMM_TYPE_SHARED on one node");
    }
    check_window(node, 0);
    check_window(node, 1);
    MPI_Comm_free(&node);
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_EQ(shm_leftovers(), 0, "this process's zmpi-win-* objects left in /dev/shm");
    if (rank == 0)
        printf("net_shm_win: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
