/*
 * session_wrong.c: erroneous uses of the sessions model.  No rank calls
 * MPI_Init.  The job must end by itself with a message naming the call,
 * the argument and the class; tests/session.cmake checks the message.
 *
 * Usage: session_wrong <mistake>, where mistake is one of
 *   null_session        a session query on MPI_SESSION_NULL (raised through
 *                       the initial handler, MPI_ERRORS_ARE_FATAL)
 *   unknown_pset        MPI_Group_from_session_pset of a process set that
 *                       does not exist, on a session whose handler is
 *                       MPI_ERRORS_ARE_FATAL
 *   after_last_session  MPI_Comm_rank on a session's communicator after the
 *                       rank finalized its only session
 *   session_eh_for_comm a session's error handler given to
 *                       MPI_Comm_create_from_group
 *   world_without_init  MPI_COMM_WORLD in a rank that never called MPI_Init
 */
#include "zt.h"

/* A session error handler that lets errors pass. */
static void session_quiet(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
}

int main(int argc, char **argv)
{
    const char *mistake = argc > 1 ? argv[1] : "";
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int rank, n;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Group_rank(g, &rank);
    if (strcmp(mistake, "null_session") == 0) {
        if (rank == 1)
            MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
    } else if (strcmp(mistake, "unknown_pset") == 0) {
        if (rank == 1)
            MPI_Group_from_session_pset(s, "mpi://UNIVERSE", &g);
    } else if (strcmp(mistake, "after_last_session") == 0) {
        MPI_Comm_create_from_group(g, "zmpi.session_wrong", MPI_INFO_NULL,
                                   MPI_ERRORS_ARE_FATAL, &c);
        MPI_Barrier(c);
        if (rank == 1) {
            MPI_Session_finalize(&s);
            MPI_Comm_rank(c, &n);
        }
    } else if (strcmp(mistake, "session_eh_for_comm") == 0) {
        MPI_Errhandler eh;
        MPI_Session_create_errhandler(session_quiet, &eh);
        if (rank == 1)
            MPI_Comm_create_from_group(g, "zmpi.session_wrong", MPI_INFO_NULL, eh, &c);
    } else if (strcmp(mistake, "world_without_init") == 0) {
        if (rank == 1)
            MPI_Comm_size(MPI_COMM_WORLD, &n);
    } else {
        fprintf(stderr, "session_wrong: unknown mistake '%s'\n", mistake);
        return 2;
    }
    /* Only a rank that made no mistake gets here; the job must fail all
     * the same, because the other rank ended it. */
    return 0;
}
