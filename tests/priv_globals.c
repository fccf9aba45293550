/*
 * priv_globals.c: in a program linked for privatization, every rank has its
 * own global and static variables: initialised data, zeroed data, a pointer
 * to a malloc'ed block, a global array and a static local.  Each rank writes
 * values derived from its rank, lets all others do the same, and checks that
 * it still sees its own.  (Under a process-based MPI this holds trivially.)
 * rand() draws from a state of its own in each rank, as in a process.
 */
#define _DEFAULT_SOURCE /* random_r, the reference for rand() */
#include "zt.h"

#include <string.h>

int g_data = 1000;       /* .data */
int g_bss;               /* .bss */
int *g_ptr;              /* points to a block owned by the rank */
int g_array[64];         /* .bss array */

static int next_id(void)
{
    static int n = 0;    /* static local */
    return ++n;
}

/* Seeds rand() with a seed of this rank and draws while the other ranks
 * do the same (they run at once on other workers, and MPI_Iprobe lets the
 * ranks of this worker interleave); every draw must match glibc's
 * sequence for that seed, computed here with a private random_r state. */
static void check_rand(int rank)
{
    struct random_data ref;
    char state[128];
    memset(&ref, 0, sizeof ref);
    initstate_r((unsigned)(1000 + rank), state, sizeof state, &ref);
    srand((unsigned)(1000 + rank));
    for (int i = 0; i < 20000; i++) {
        int32_t want;
        random_r(&ref, &want);
        ZT_EQ(rand(), (int)want, "rand() draw after srand(1000 + rank)");
        if (i % 500 == 0) {
            int flag;
            ZT_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_EQ(g_data, 1000, "initial value of a .data global");
    ZT_EQ(g_bss, 0, "initial value of a .bss global");
    ZT_EQ(next_id(), 1, "first value of a static local counter");
    g_data += rank;
    g_bss = 7 * rank;
    g_ptr = zt_malloc(sizeof *g_ptr);
    *g_ptr = -rank;
    for (int i = 0; i < 64; i++)
        g_array[i] = rank * 64 + i;
    check_rand(rank);
    /* Every rank has written its values before any rank checks. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_EQ(g_data, 1000 + rank, ".data global after all ranks wrote");
    ZT_EQ(g_bss, 7 * rank, ".bss global after all ranks wrote");
    ZT_EQ(*g_ptr, -rank, "block behind a global pointer");
    for (int i = 0; i < 64; i++)
        ZT_EQ(g_array[i], rank * 64 + i, "global array element");
    ZT_EQ(next_id(), 2, "second value of a static local counter");
    long long sum = 0, mine = g_data;
    ZT_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(sum, 1000LL * size + (long long)size * (size - 1) / 2, "sum of the ranks' globals");
    free(g_ptr);
    MPI_Finalize();
    return 0;
}
