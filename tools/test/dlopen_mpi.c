/* dlopen_mpi.c: a program not linked with zmpi that loads it at run time,
 * as a Python interpreter loads mpi4py's extension: dlopen(argv[1]), then
 * MPI_Init, MPI_Comm_size and MPI_Finalize through dlsym.  Prints
 * "size N". */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (!h) {
        fprintf(stderr, "dlopen_mpi: %s\n", argc > 1 ? dlerror() : "usage: dlopen_mpi LIB");
        return 2;
    }
    __typeof__(MPI_Init) *init = (__typeof__(MPI_Init) *)dlsym(h, "MPI_Init");
    __typeof__(MPI_Comm_size) *size = (__typeof__(MPI_Comm_size) *)dlsym(h, "MPI_Comm_size");
    __typeof__(MPI_Finalize) *fini = (__typeof__(MPI_Finalize) *)dlsym(h, "MPI_Finalize");
    int n = 0;
    if (!init || !size || !fini || init(&argc, &argv) != MPI_SUCCESS ||
        size(MPI_COMM_WORLD, &n) != MPI_SUCCESS)
        return 3;
    printf("size %d\n", n);
    return fini() == MPI_SUCCESS ? 0 : 4;
}
