# ---- Threads in ranks: MPI_THREAD_MULTIPLE, OpenMP (issue 15) ----------
# docs/threads.md.  Layouts: one rank, two ranks on one and two workers,
# odd numbers of ranks per worker, and many ranks (fewer threads there).
foreach(prog threads_p2p threads_wait threads_coll threads_errors)
  zmpi_add_program(zt_${prog} ${prog}.c)
  target_link_libraries(zt_${prog} PRIVATE Threads::Threads)
endforeach()

zmpi_add_mpi_layouts(threads_p2p PROGRAM threads_p2p LAYOUTS 1x1 2x1 2x2 7x2)
# Privatized, the threads are created from each rank's copy of the program.
zmpi_add_priv_program(zt_threads_p2p_priv threads_p2p.c)
target_link_libraries(zt_threads_p2p_priv PRIVATE Threads::Threads)
zmpi_add_mpi_layouts(threads_p2p_priv PROGRAM threads_p2p_priv LAYOUTS 2x1 7x2)
zmpi_add_mpi_test(threads_p2p_64x2 PROGRAM threads_p2p NP 64 WORKERS 2 ARGS 2 3 20000
                  TIMEOUT 240)
zmpi_add_mpi_layouts(threads_wait PROGRAM threads_wait LAYOUTS 1x1 2x1 2x2 7x2)
zmpi_add_mpi_test(threads_wait_64x2 PROGRAM threads_wait NP 64 WORKERS 2 ARGS 1 TIMEOUT 240)
zmpi_add_mpi_layouts(threads_coll PROGRAM threads_coll LAYOUTS 1x1 2x1 2x2 7x2)
zmpi_add_mpi_test(threads_coll_64x2 PROGRAM threads_coll NP 64 WORKERS 2 ARGS 2 4 TIMEOUT 240)

# Thread levels: SERIALIZED threads taking turns, FUNNELED queries.
foreach(level serialized funneled)
  zmpi_add_mpi_test(threads_${level}_1x1 PROGRAM threads_errors NP 1 WORKERS 1 ARGS ${level})
  zmpi_add_mpi_test(threads_${level}_3x1 PROGRAM threads_errors NP 3 WORKERS 1 ARGS ${level})
  zmpi_add_mpi_test(threads_${level}_7x2 PROGRAM threads_errors NP 7 WORKERS 2 ARGS ${level})
endforeach()
# Threads that may not call MPI: the message names the call and why.
zmpi_add_fatal_test(threads_wrong_norank PROGRAM threads_errors NP 2 WORKERS 2
  REGEX "MPI_Send called from a thread that belongs to no MPI rank" ARGS norank)
zmpi_add_fatal_test(threads_wrong_level PROGRAM threads_errors NP 2 WORKERS 1
  REGEX "rank [01]: MPI_Barrier called from a thread the rank created"
        "MPI_THREAD_FUNNELED" ARGS level)
zmpi_add_fatal_test(threads_wrong_finalize PROGRAM threads_errors NP 2 WORKERS 2
  REGEX "MPI_Finalize" "main thread" ARGS finalize)
zmpi_add_fatal_test(threads_wrong_init PROGRAM threads_errors NP 2 WORKERS 1
  REGEX "MPI_Init called from a thread the rank created" ARGS init)
zmpi_add_fatal_test(threads_wrong_spawn PROGRAM threads_errors NP 2 WORKERS 2
  REGEX "MPI_Comm_spawn" "called from a thread the rank created" ARGS spawn)
zmpi_add_fatal_test(threads_wrong_deadlock PROGRAM threads_errors NP 2 WORKERS 2
  REGEX "deadlock" "rank 0: MPI_Recv" "a thread of rank 0: MPI_Recv" ARGS deadlock)

# OpenMP inside ranks, as an ordinary and as a privatized program.
find_package(OpenMP COMPONENTS C)
if(OpenMP_C_FOUND)
  zmpi_add_program(zt_threads_omp threads_omp.c)
  target_link_libraries(zt_threads_omp PRIVATE OpenMP::OpenMP_C)
  zmpi_add_priv_program(zt_threads_omp_priv threads_omp.c)
  target_link_libraries(zt_threads_omp_priv PRIVATE OpenMP::OpenMP_C)
  zmpi_add_mpi_layouts(threads_omp PROGRAM threads_omp LAYOUTS 1x1 2x1 2x2 7x2)
  zmpi_add_mpi_layouts(threads_omp_priv PROGRAM threads_omp_priv LAYOUTS 1x1 2x2 7x2)
  zmpi_add_mpi_test(threads_omp_64x2 PROGRAM threads_omp NP 64 WORKERS 2 ARGS 2 TIMEOUT 240)
endif()

# OpenMP in a Fortran program (privatized, as zmpifort builds it).
if(ZMPI_FORTRAN AND OpenMP_C_FOUND)
  set(zt_tof_dir ${CMAKE_CURRENT_BINARY_DIR}/fortran/threads_omp_f)
  add_custom_command(OUTPUT ${zt_tof_dir}/threads_omp_f
    COMMAND ${CMAKE_COMMAND} -E make_directory ${zt_tof_dir}
    COMMAND ${CMAKE_BINARY_DIR}/tools/zmpifort -fopenmp -J ${zt_tof_dir}
            -o ${zt_tof_dir}/threads_omp_f ${CMAKE_CURRENT_SOURCE_DIR}/threads_omp_f.f90
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/threads_omp_f.f90 zmpi_fortran zmpi zmpi_priv
            zmpi_main ${CMAKE_SOURCE_DIR}/tools/zmpifort.in
    COMMENT "zmpifort -fopenmp threads_omp_f.f90" VERBATIM)
  add_custom_target(zt_threads_omp_f ALL DEPENDS ${zt_tof_dir}/threads_omp_f)
  foreach(layout 1x1 2x2 7x2)
    string(REPLACE "x" ";" lw ${layout})
    list(GET lw 0 np)
    list(GET lw 1 nw)
    add_test(NAME threads_omp_fortran_${layout}
      COMMAND $<TARGET_FILE:zmpirun> -n ${np} -w ${nw} ${zt_tof_dir}/threads_omp_f)
    set_tests_properties(threads_omp_fortran_${layout} PROPERTIES TIMEOUT 120
      ENVIRONMENT "MPIEXEC_TIMEOUT=120" PASS_REGULAR_EXPRESSION ": OK")
  endforeach()
endif()

# A program linked with libzmpi alone (no zmpi launcher, as mpi4py's
# extension is) is one rank per process, and all its threads act for it:
# alone, and as processes of mpiexec.mpich (whose threads must poll the
# network themselves while they wait).
foreach(prog threads_p2p threads_wait)
  add_executable(zt_${prog}_alone ${prog}.c)
  target_link_libraries(zt_${prog}_alone PRIVATE zmpi Threads::Threads)
  add_test(NAME ${prog}_alone COMMAND zt_${prog}_alone)
  set_tests_properties(${prog}_alone PROPERTIES TIMEOUT 120)
endforeach()
if(ZMPI_NET_BACKENDS)
  foreach(be ${ZMPI_NET_BACKENDS})
    foreach(prog threads_p2p threads_wait threads_coll)
      zmpi_add_net_test(net_${be}_${prog} PROGRAM ${prog} NP 4 PROCS 2 BACKEND ${be})
    endforeach()
  endforeach()
  if(ZT_MPIEXEC_MPICH AND "mpich" IN_LIST ZMPI_NET_BACKENDS)
    foreach(prog threads_p2p threads_wait)
      add_test(NAME net_mpich_${prog}_alone
        COMMAND ${ZT_MPIEXEC_MPICH} -n 3 $<TARGET_FILE:zt_${prog}_alone> 3)
      set_tests_properties(net_mpich_${prog}_alone PROPERTIES TIMEOUT 120
        ENVIRONMENT "MPIEXEC_TIMEOUT=100" LABELS net)
    endforeach()
  endif()
endif()

# A thread the rank created sends and receives across processes while the
# rank's own code spins without calling MPI: with one worker per process
# only the waiting thread can move the network (MPICH's
# threads/pt2pt/threaded_sr hung so).
zmpi_add_program(zt_threads_spin threads_spin.c)
target_link_libraries(zt_threads_spin PRIVATE Threads::Threads)
foreach(be ${ZMPI_NET_BACKENDS})
  zmpi_add_net_test(net_${be}_threads_spin_2px1w1 PROGRAM threads_spin NP 2 PROCS 2
                    BACKEND ${be} OPTS -w 1)
endforeach()

# A rank waits for its thread in a loop that takes and drops a mutex,
# while the rank its thread waits for may be ready on the same worker: an
# idle worker gets it (MPICH's threads/pt2pt/threads hung so).  With one
# worker, or with no worker idle (4 ranks on 2), the polling rank still
# holds its worker (docs/threads.md).
zmpi_add_program(zt_threads_lock_wait threads_lock_wait.c)
target_link_libraries(zt_threads_lock_wait PRIVATE Threads::Threads)
zmpi_add_mpi_layouts(threads_lock_wait PROGRAM threads_lock_wait LAYOUTS 2x2
                     TIMEOUT 60)
# Woken ranks moved onto the waker's worker as on a loaded host: the peer
# lands behind the polling rank and the idle worker must get it back.
zmpi_add_mpi_test(threads_lock_wait_moved_2x2 PROGRAM threads_lock_wait NP 2 WORKERS 2
                  TIMEOUT 60)
set_property(TEST threads_lock_wait_moved_2x2 APPEND PROPERTY
             ENVIRONMENT ZMPI_WAKE_MIGRATE=always)

# A rank's thread waits for a small message while the rank, which asked
# senders for rings, waits for the thread without calling MPI: the message
# must not be left in a ring that only the rank would drain, of 8 bytes
# (in the entry) or 1 KiB (in the ring's payload area).  Ranks stay on
# their workers (on a loaded host woken ranks gather on one, which turns
# rings off).
zmpi_add_program(zt_threads_ring_wait threads_ring_wait.c)
target_link_libraries(zt_threads_ring_wait PRIVATE Threads::Threads)
zmpi_add_mpi_test(threads_ring_wait_2x2 PROGRAM threads_ring_wait NP 2 WORKERS 2 TIMEOUT 60)
zmpi_add_mpi_test(threads_ring_wait_1k_2x2 PROGRAM threads_ring_wait NP 2 WORKERS 2
                  ARGS 20 1024 TIMEOUT 60)
set_property(TEST threads_ring_wait_2x2 threads_ring_wait_1k_2x2 APPEND PROPERTY
             ENVIRONMENT ZMPI_WAKE_MIGRATE=0)
