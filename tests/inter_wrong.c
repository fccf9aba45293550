/*
 * inter_wrong.c: erroneous uses of intercommunicators that must end the
 * job with a clear message (MPI_ERRORS_ARE_FATAL).  argv[1] names the
 * mistake: "scan" (MPI_Scan on an intercommunicator), "bad_root" (a root
 * that is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank), "overlap"
 * (MPI_Intercomm_create_from_groups with groups sharing a rank).
 */
#include "zt.h"

int main(int argc, char **argv)
{
    int wr, ws, x = 1, y = 0;
    MPI_Comm local, inter;
    MPI_Group wg, ga, gb;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "overlap") == 0) {
        /* A = ranks 0..ws/2, B = ranks ws/2..ws-1: rank ws/2 is in both. */
        int ra[3] = { 0, ws / 2, 1 }, rb[3] = { ws / 2, ws - 1, 1 };
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_range_incl(wg, 1, &ra, &ga);
        MPI_Group_range_incl(wg, 1, &rb, &gb);
        int in_a = wr <= ws / 2;
        MPI_Intercomm_create_from_groups(in_a ? ga : gb, 0, in_a ? gb : ga, 0, "zt-overlap",
                                         MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &inter);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wr % 2 ? 0 : 1, 5, &inter);
    if (strcmp(what, "scan") == 0)
        MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    else if (strcmp(what, "bad_root") == 0)
        MPI_Bcast(&x, 1, MPI_INT, 7, inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
