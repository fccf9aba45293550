/*
 * startup.c: the smallest MPI program that keeps state in globals (a
 * counter and a table, as real codes do), for start-up time and memory
 * per rank (bench/startup_run.sh).  Every rank initializes, checks that its
 * globals are its own, and takes part in one Allreduce; after a barrier,
 * rank 0 prints the rank count, how many ranks found their globals
 * private, and the proportional memory of its process (Pss of
 * /proc/self/smaps_rollup, which counts a page mapped by many ranks once
 * in total), the number of memory maps of its process, and Pss per rank.
 * Plain MPI: it builds with mpicc.mpich too (there every process is one
 * rank, so the memory line is one process's).  -DBIG makes it a 50 MB
 * program.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int counter;
int table[256] = {1};
#ifdef BIG
/* -DBIG: a 50 MB program (48 MiB of constants, 2 MiB of initialized
 * data), read and written a little by every rank. */
const unsigned char big_ro[48 << 20] = {1};
unsigned char big_rw[2 << 20] = {2};
#endif

/* Pss (kB) and memory maps of this process; -1 where Linux has neither. */
static void process_memory(long *pss_kb, long *maps)
{
    char line[512], key[64];
    long v;
    *pss_kb = *maps = -1;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "%63s %ld", key, &v) == 2 && strcmp(key, "Pss:") == 0)
                *pss_kb = v;
        fclose(f);
    }
    f = fopen("/proc/self/maps", "r");
    if (f) {
        *maps = 0;
        while (fgets(line, sizeof line, f))
            (*maps)++;
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    int rank, size, ok, private_ranks = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter += rank;
    table[1] = rank;
#ifdef BIG
    for (size_t i = 0; i < sizeof big_ro; i += 1 << 20)
        counter += big_ro[i] - (i == 0);
    big_rw[1] = (unsigned char)rank;
    table[0] = big_rw[0] - 1;
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    ok = counter == rank && table[1] == rank && table[0] == 1;
    MPI_Allreduce(&ok, &private_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        long pss, maps;
        process_memory(&pss, &maps);
        printf("ranks %d private %d pss_kb %ld maps %ld pss_per_rank_kb %.1f\n", size,
               private_ranks, pss, maps, pss > 0 ? (double)pss / size : -1.0);
    }
    MPI_Finalize();
    return 0;
}
