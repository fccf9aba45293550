# The sessions model (helper "sessions"): tests/session_basic.c (sessions
# alone), tests/session_mixed.c (world and sessions models together) and
# the fatal messages of tests/session_wrong.c.

zmpi_add_program(zt_session_basic session_basic.c)
zmpi_add_program(zt_session_mixed session_mixed.c)
zmpi_add_program(zt_session_wrong session_wrong.c)

# One rank, one and two workers with ranks on both, more ranks than
# workers, and many ranks meeting in Comm_create_from_group.
foreach(prog session_basic session_mixed)
  zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 1x1 2x1 2x2 7x1 7x2 64x2)
endforeach()

# zmpi_add_session_wrong_test(<mistake> NP <n> WORKERS <w> REGEX <re>...):
# the job must fail by itself with output matching every regex.
function(zmpi_add_session_wrong_test mistake)
  zmpi_add_fatal_test(session_wrong_${mistake} PROGRAM session_wrong ${ARGN} ARGS ${mistake})
endfunction()

zmpi_add_session_wrong_test(null_session NP 2 WORKERS 2
  REGEX "rank 1: MPI_Session_get_num_psets\\(session=MPI_SESSION_NULL\\)" "MPI_ERR_SESSION"
        "MPI_ERRORS_ARE_FATAL")
zmpi_add_session_wrong_test(unknown_pset NP 2 WORKERS 1
  REGEX "rank 1: MPI_Group_from_session_pset\\(pset_name=\"mpi://UNIVERSE\"\\)"
        "MPI_ERR_ARG" "MPI_ERRORS_ARE_FATAL")
zmpi_add_session_wrong_test(after_last_session NP 2 WORKERS 2
  REGEX "rank 1: MPI_Comm_rank called before MPI_Init")
zmpi_add_session_wrong_test(session_eh_for_comm NP 2 WORKERS 1
  REGEX "rank 1: MPI_Comm_create_from_group\\(errhandler\\): made by MPI_Session_create_errhandler"
        "MPI_ERR_ERRHANDLER" "MPI_ERRORS_ARE_FATAL")
# MPI_COMM_WORLD must be refused in a rank that never called MPI_Init.
zmpi_add_session_wrong_test(world_without_init NP 2 WORKERS 2
  REGEX "rank 1: MPI_Comm_size\\(comm=MPI_COMM_WORLD\\): valid only between MPI_Init"
        "MPI_ERR_COMM")
