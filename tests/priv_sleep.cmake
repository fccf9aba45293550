# ---- Sleeping ranks stall only themselves (issue 20, blocking calls) ----
# sleep, usleep, nanosleep and clock_nanosleep of a privatized program
# park the calling rank until its deadline while its worker runs the
# others (src/mpi/launch_sleep.c, src/ult/ult_timer.c).
zmpi_add_priv_program(zt_priv_sleep priv_sleep.c)
foreach(call sleep usleep nanosleep clock_rel clock_abs_mono clock_abs_real)
  zmpi_add_mpi_test(priv_sleep_overlap_${call} PROGRAM priv_sleep NP 2 WORKERS 1
                    ARGS overlap ${call} TIMEOUT 60)
endforeach()
# 8 ranks sleeping 1 s on 2 workers: about 1 s, not 4.
zmpi_add_mpi_test(priv_sleep_many_8x2 PROGRAM priv_sleep NP 8 WORKERS 2 ARGS many TIMEOUT 60)
# A rank sleeping while all others wait for it is no deadlock.
zmpi_add_mpi_layouts(priv_sleep_nodeadlock PROGRAM priv_sleep LAYOUTS 4x1 4x2
  ARGS nodeadlock TIMEOUT 60)
# Many deadlines per worker (the heap grows past its first 16 entries).
zmpi_add_mpi_layouts(priv_sleep_heap PROGRAM priv_sleep LAYOUTS 64x2 7x1
  ARGS heap TIMEOUT 60)
# A rank polling MPI_Iprobe on the sleeper's worker must not starve it.
zmpi_add_mpi_test(priv_sleep_polled_2x1 PROGRAM priv_sleep NP 2 WORKERS 1
                  ARGS polled TIMEOUT 60)
zmpi_add_mpi_test(priv_sleep_semantics_2x1 PROGRAM priv_sleep NP 2 WORKERS 1
                  ARGS semantics TIMEOUT 60)
# Linked without privatization, the sleeps are libc's and block the
# worker: the overlap test must see it (so it can fail).
zmpi_add_program(zt_priv_sleep_shared priv_sleep.c)
add_test(NAME priv_sleep_blocking_detected
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "blocked the worker" --
          $<TARGET_FILE:zmpirun> -n 2 -w 1 $<TARGET_FILE:zt_priv_sleep_shared> overlap nanosleep)
set_tests_properties(priv_sleep_blocking_detected PROPERTIES TIMEOUT 90)
# Across processes, the job-wide deadlock detection must not report a
# rank that sleeps either.
if(ZMPI_NET_BACKENDS)
  list(GET ZMPI_NET_BACKENDS 0 be)
  add_test(NAME priv_sleep_nodeadlock_net
    COMMAND $<TARGET_FILE:zmpirun> -n 4 -p 2 -w 2 --net ${be}
            $<TARGET_FILE:zt_priv_sleep> nodeadlock)
  set_tests_properties(priv_sleep_nodeadlock_net PROPERTIES TIMEOUT 120
    ENVIRONMENT "MPIEXEC_TIMEOUT=100" LABELS net)
endif()
# ---- end of sleeping ranks ----

# gfortran's SLEEP intrinsic, wrapped by zmpifort (tests/fortran.cmake
# defines the helpers).
if(ZMPI_FORTRAN)
  zt_fortran_program(priv_sleep priv_sleep.f90)
  zt_fortran_runs(priv_sleep 8x2)
endif()
