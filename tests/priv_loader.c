/*
 * priv_loader.c: what zmpi's own loader of rank copies must get right
 * (src/arch/image_clone_linux.c), checked in every rank: addresses stored
 * in data (its own variables, its own functions, a libc function), data
 * initialized and zero (.bss, also where it starts inside the last page of
 * initialized data), and each rank's writes staying its own.  Built twice:
 * with little initialized data (copied from the loader's template) and with
 * BIG_DATA (mapped from the file, copied on write).  The same program runs
 * under ZMPI_LOADER=dl, the dlopen path, as the reference.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int a = 11, b = 22;
static int *ptrs[2] = {&a, &b};
static size_t (*len_fn)(const char *) = strlen;
static int twice(int x) { return 2 * x; }
static int (*own_fn)(int) = twice;
static const char *greeting = "hello";
#ifdef BIG_DATA
/* More initialized data than the loader copies from its template. */
static unsigned char data[256 * 1024] = {7, 8, 9};
#else
static unsigned char data[64] = {7, 8, 9};
#endif
static unsigned char zeros[100000];
static int *self_ptr = &b;

static int check_start(void)
{
    int bad = 0;
    bad |= ptrs[0] != &a || ptrs[1] != &b || *ptrs[0] != 11 || *ptrs[1] != 22;
    bad |= len_fn(greeting) != 5 || own_fn(21) != 42 || self_ptr != &b;
    bad |= data[0] != 7 || data[2] != 9 || data[3] != 0 || data[sizeof data - 1] != 0;
    for (size_t i = 0; i < sizeof zeros; i += 997)
        bad |= zeros[i] != 0;
    bad |= zeros[0] != 0 || zeros[sizeof zeros - 1] != 0;
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, bad, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bad = check_start();
    if (bad)
        printf("FAIL rank %d: a copy started with wrong data\n", rank);
    /* Every rank writes its own values, then looks again after all did. */
    a = rank;
    *ptrs[1] = rank + 1;
    data[1] = (unsigned char)rank;
    data[sizeof data - 1] = (unsigned char)(rank + 3);
    zeros[0] = (unsigned char)(rank + 5);
    MPI_Barrier(MPI_COMM_WORLD);
    if (a != rank || b != rank + 1 || data[1] != (unsigned char)rank ||
        data[sizeof data - 1] != (unsigned char)(rank + 3) ||
        zeros[0] != (unsigned char)(rank + 5) || data[0] != 7) {
        printf("FAIL rank %d: another rank's writes reached this copy\n", rank);
        bad = 1;
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0 && all == 0)
        printf("priv_loader: OK on %d ranks\n", size);
    return all != 0;
}
