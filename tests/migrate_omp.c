/*
 * migrate_omp.c: a pinned rank does not move.  Rank 0 calls ZMPI_Migrate
 * (strategy rotate) from inside an OpenMP region run in place on its
 * worker thread (a region of one thread: zmpi pins the rank for it, since
 * libgomp's state of the region is that thread's); the other ranks call
 * it normally.  Rank 0 must stay on its thread, every other rank must
 * move; after the region, rank 0 moves again like the others.  Run with
 * ZMPI_WAKE_MIGRATE=0 ZMPI_STEAL=0 on 2 workers, on x86-64.
 */
#define _GNU_SOURCE /* syscall */
#include "zt.h"

#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef ZMPI_HAS_MIGRATE

static unsigned long long thread_id(void)
{
    return (unsigned long long)syscall(SYS_gettid);
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Info hints;
    ZT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Info_create(&hints));
    ZT_OK(MPI_Info_set(hints, "zmpi_lb", "rotate"));
    for (int it = 0; it < 6; it++) {
        unsigned long long before = thread_id(), inside = 0;
        if (rank == 0) {
#pragma omp parallel num_threads(1)
            {
                /* An OpenMP call also makes the program need libgomp (zmpi
                 * itself provides the GOMP_ entry points it interposes). */
                ZT_EQ(omp_get_num_threads(), 1, "threads of the region");
                inside = thread_id();
                ZT_OK(ZMPI_Migrate(hints));
                ZT_CHECK(thread_id() == inside, "pinned rank 0 moved inside its region (%d)",
                         it);
            }
            ZT_CHECK(thread_id() == before, "rank 0 moved while pinned (%d)", it);
        } else {
            ZT_OK(ZMPI_Migrate(hints));
            ZT_CHECK(thread_id() != before, "rank %d did not move (%d)", rank, it);
        }
        /* Unpinned again: rank 0 moves like everyone. */
        before = thread_id();
        ZT_OK(ZMPI_Migrate(hints));
        ZT_CHECK(thread_id() != before, "rank %d did not move after the region (%d)", rank,
                 it);
    }
    ZT_OK(MPI_Info_free(&hints));
    if (rank == 0)
        printf("migrate_omp: pinned rank stayed, others moved\n");
    ZT_OK(MPI_Finalize());
    return 0;
}

#else

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}

#endif
