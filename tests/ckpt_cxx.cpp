/*
 * ckpt_cxx.cpp: C++ objects of a rank survive ZMPI_Checkpoint and a
 * restart (tests/ckpt_restart.sh): std::vector, std::string and std::map
 * on the heap (operator new from libzmpi_priv.a, the rank heap), a global
 * object, and a loop state.  Same protocol as ckpt_basic.c.
 */
#include <mpi.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

struct Global {
    std::vector<std::int64_t> v;
    Global() : v(100, 7) {}
};
static Global g;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    std::vector<std::int64_t> data(5000);
    std::map<int, std::string> names;
    std::string label = "rank-" + std::to_string(rank) + "-with-a-name-long-enough-for-the-heap";
    for (int i = 0; i < 5000; i++)
        data[i] = rank * 5000 + i;
    std::int64_t check = 0;
    for (int it = 0; it < 7; it++) {
        names[it] = label + std::to_string(it);
        g.v.push_back(it);
        std::int64_t mine = data[it] + (std::int64_t)names[it].size() + g.v.back() +
                            (std::int64_t)g.v.size(), sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        check = check * 31 + sum;
        data[it + 1] += sum % 100;
        if (it == 3) {
            if (ZMPI_Checkpoint(argv[1]) != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 4);
            if (std::getenv("CK_STOP")) {
                MPI_Finalize();
                if (rank == 0)
                    std::printf("stopped after the checkpoint\n");
                return 0;
            }
        }
    }
    std::size_t total = 0;
    for (auto &kv : names)
        total += kv.second.size();
    if (rank == 0)
        std::printf("checksum %lld of %d ranks, %zu name bytes (cmdline ok)\n",
                    (long long)check, size, total);
    MPI_Finalize();
    return 0;
}
