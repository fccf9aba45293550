# Info objects, environment calls, error classes/codes/handlers (helper
# "env"): tests/info_env.c, tests/env_errors.c and the fatal messages of
# tests/env_wrong.c.

zmpi_add_program(zt_info_env info_env.c)
zmpi_add_program(zt_env_errors env_errors.c)
zmpi_add_program(zt_env_wrong env_wrong.c)

# One rank, one and two workers with ranks on both, more ranks than
# workers, and many ranks sharing the job-wide tables (error codes,
# MPI_INFO_ENV, MPI_Alloc_mem's blocks).  info_env checks that
# MPI_Info_create_env reports these arguments.
zmpi_add_mpi_layouts(info_env PROGRAM info_env LAYOUTS 1x1 2x1 2x2 7x1 7x2 64x2
                     ARGS alpha "beta gamma")
zmpi_add_mpi_layouts(env_errors PROGRAM env_errors LAYOUTS 1x1 2x1 2x2 7x1 7x2 64x2)

# zmpi_add_env_wrong_test(<mistake> NP <n> WORKERS <w> REGEX <re>...): the
# job must fail by itself with output matching every regex.
function(zmpi_add_env_wrong_test mistake)
  zmpi_add_fatal_test(env_wrong_${mistake} PROGRAM env_wrong ${ARGN} ARGS ${mistake})
endfunction()

zmpi_add_env_wrong_test(info_nokey NP 2 WORKERS 2
  REGEX "rank 1: MPI_Info_delete\\(key=\"absent_key\"\\)" "MPI_ERR_INFO_NOKEY"
        "MPI_ERRORS_ARE_FATAL")
zmpi_add_env_wrong_test(free_mem_foreign NP 2 WORKERS 1
  REGEX "rank 0: MPI_Free_mem\\(base=" "MPI_Alloc_mem" "MPI_ERR_BASE")
zmpi_add_env_wrong_test(win_call NP 3 WORKERS 2
  REGEX "rank 1: MPI_Win_call_errhandler" "MPI_ERR_RMA_RANGE" "MPI_ERRORS_ARE_FATAL")
