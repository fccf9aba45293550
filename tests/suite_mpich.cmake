# MPICH's own self-checking C test programs (MPICH 4.0.2's test/mpi, from
# Debian's source archive at test time), built unchanged with zmpicc and run
# on the rank counts and arguments of MPICH's testlists, 2 workers; the
# script lists the few programs left out and why (tests/suite/mpich_c).
# It builds and runs as many programs at once as there are cores, so it
# runs alone.
if(ZMPI_TEST_SUITES)
  set(ZT_MPICH_C_CMD sh ${CMAKE_CURRENT_SOURCE_DIR}/suite/mpich_c/mpich_c_test.sh
      ${CMAKE_BINARY_DIR}/tools/zmpicc $<TARGET_FILE:zmpirun>)
  add_test(NAME suite_mpich_c COMMAND ${ZT_MPICH_C_CMD})
  set_tests_properties(suite_mpich_c PROPERTIES TIMEOUT 2400 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE LABELS suite)
  # The same runs across processes: 2 processes of one worker each, ranks
  # interleaved so that every rank's neighbours are in the other process,
  # over the first network backend built (MPICH's when both are; the
  # Open MPI backend passes the same runs, checked by hand).
  if(ZMPI_NET_BACKENDS)
    list(GET ZMPI_NET_BACKENDS 0 be)
    add_test(NAME suite_mpich_c_net COMMAND ${ZT_MPICH_C_CMD})
    set_tests_properties(suite_mpich_c_net PROPERTIES TIMEOUT 2400 SKIP_RETURN_CODE 77
      RUN_SERIAL TRUE LABELS "suite;net"
      ENVIRONMENT "MPICH_PROCS=2;MPICH_WORKERS=1;ZMPI_NET=${be}")
  endif()
endif()
