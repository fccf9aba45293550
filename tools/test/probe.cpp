// probe.cpp: the C++ twin of probe.c, printing through std::cout.
#include <mpi.h>
#include <iostream>
#include <sstream>

int counter;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter += rank + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    // One write per line: libstdc++ writes each << separately, and zmpi
    // keeps lines whole only for the program's own C stdio calls.
    std::ostringstream line;
    line << "rank " << rank << " of " << size << " n=5 counter=" << counter << "\n";
    std::cout << line.str() << std::flush;
    MPI_Finalize();
    return 0;
}
