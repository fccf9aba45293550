/*
 * net_fault.c: faults in a job across processes.  The last rank (in the
 * last process when the ranks are interleaved or in blocks) fails in the
 * way argv[1] names while every other rank waits for a message that never
 * comes; the job must end by itself with the failing rank's report and
 * exit status, leaving no process behind.
 *
 *   abort   MPI_Abort(MPI_COMM_WORLD, 7)
 *   badarg  MPI_Send with count -1 (MPI_ERRORS_ARE_FATAL)
 *   segv    a store through a null pointer
 *   kill    the rank's process kills itself with SIGKILL (no report)
 *   exit3   the rank returns 3 from main after MPI_Finalize; the others
 *           finish normally
 *   win     every rank calls MPI_Win_allocate_shared on MPI_COMM_WORLD,
 *           which spans nodes (run with ZMPI_NET_SEPARATE=1: every
 *           process a node; nodes share no memory): refused, and
 *           MPI_ERRORS_ARE_FATAL ends the job
 *   late    not a fault: the last rank computes for 0.3 s before it sends
 *           to every other rank, which all wait in MPI_Recv meanwhile; a
 *           process whose ranks are all blocked must not report a
 *           deadlock while a rank of another process may still send;
 *           exits 0
 *   late3   the same with 3 s of computing: longer than the job-wide
 *           deadlock detector's waves (0.5 s), which must not report it
 *   deadlock every rank waits in MPI_Recv for its right neighbour: the
 *           job-wide detector reports the blocked ranks of every process
 *           and ends the job
 *   refuse  with MPI_ERRORS_RETURN, a shared window on MPI_COMM_WORLD
 *           across nodes (ZMPI_NET_SEPARATE=1) must fail with
 *           MPI_ERR_COMM, while the other window flavors, a file and
 *           partitioned requests with ranks of another process on
 *           MPI_COMM_WORLD work (made and freed); exits 0 if so
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One call that must fail with class `want`: its error class and message. */
static int refused_as(int rc, int want, const char *call, int rank)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = -1, len = 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (cls == want)
        return 0;
    printf("rank %d: %s returned class %d (%s), not %d\n", rank, call, cls, msg, want);
    return 1;
}

/* A call across processes that must work. */
static int works(int rc, const char *call, int rank)
{
    if (rc == MPI_SUCCESS)
        return 0;
    printf("rank %d: %s failed (rc %d) on a communicator across processes\n", rank, call, rc);
    return 1;
}

/* The refusals, every rank alike; then the job goes on (a Barrier and
 * MPI_Finalize must still work). */
static int refuse(int rank, int size)
{
    void *base = NULL;
    MPI_Win win;
    MPI_File fh;
    MPI_Request req[2];
    char path[64], buf[16];
    int bad = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bad += works(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                 "MPI_Win_allocate", rank);
    bad += works(MPI_Win_free(&win), "MPI_Win_free", rank);
    bad += works(MPI_Win_create(buf, 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 "MPI_Win_create", rank);
    bad += works(MPI_Win_free(&win), "MPI_Win_free", rank);
    bad += refused_as(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                              &win), MPI_ERR_COMM, "MPI_Win_allocate_shared",
                      rank);
    bad += works(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 "MPI_Win_create_dynamic", rank);
    bad += works(MPI_Win_free(&win), "MPI_Win_free", rank);
    /* Files work across processes: every rank names rank 0's file. */
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof(path), "/tmp/zt_net_refuse.%d", pid);
    bad += works(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                               MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh),
                 "MPI_File_open", rank);
    bad += works(MPI_File_close(&fh), "MPI_File_close", rank);
    /* With interleaved ranks the next rank is in another process. */
    bad += works(MPI_Psend_init(buf, 1, 16, MPI_BYTE, (rank + 1) % size, 3, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req[0]), "MPI_Psend_init", rank);
    bad += works(MPI_Precv_init(buf, 1, 16, MPI_BYTE, (rank + size - 1) % size, 3,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]), "MPI_Precv_init", rank);
    bad += works(MPI_Request_free(&req[0]), "MPI_Request_free", rank);
    bad += works(MPI_Request_free(&req[1]), "MPI_Request_free", rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0 && !bad)
        printf("net_fault refuse: every call refused or worked as it should\n");
    return bad != 0;
}

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Everyone is up and connected before the fault. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "win") == 0) {
        void *base;
        MPI_Win win;
        MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        printf("rank %d: MPI_Win_allocate_shared across processes did not fail\n", rank);
        return 1;
    }
    if (strcmp(mode, "refuse") == 0)
        return refuse(rank, size);
    if (strcmp(mode, "deadlock") == 0) {
        /* Every rank waits for its right neighbour, in another process
         * under --interleave: only the job-wide detector can end this. */
        MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: a message nobody sent arrived\n", rank);
        return 1;
    }
    if (strcmp(mode, "late") == 0 || strcmp(mode, "late3") == 0) {
        double secs = strcmp(mode, "late3") == 0 ? 3.0 : 0.3;
        if (rank == size - 1) {
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < secs)
                ; /* computing: the others' processes see only blocked ranks */
            for (int q = 0; q < size - 1; q++)
                MPI_Send(&rank, 1, MPI_INT, q, 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&x, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return x == size - 1 || rank == size - 1 ? 0 : 1;
    }
    if (strcmp(mode, "exit3") == 0) {
        MPI_Finalize();
        return rank == size - 1 ? 3 : 0;
    }
    if (rank != size - 1) {
        /* Would wait forever: only the fault can end the job. */
        MPI_Recv(&x, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: unexpected message\n", rank);
        return 1;
    }
    if (strcmp(mode, "abort") == 0) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else if (strcmp(mode, "badarg") == 0) {
        MPI_Send(&x, -1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else if (strcmp(mode, "segv") == 0) {
        volatile int *p = NULL;
        *p = 1;
    } else if (strcmp(mode, "kill") == 0) {
        kill(getpid(), SIGKILL);
    }
    printf("rank %d: mode '%s' did not end the job\n", rank, mode);
    return 1;
}
