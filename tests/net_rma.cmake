# One-sided communication across processes (docs/net.md, "Windows across
# processes"): the window tests of tests/rma.cmake re-run as several
# processes for every network backend that was built, plus net_rma_cross,
# which checks what crosses processes specifically (counters, mutexes,
# mixed local/remote accumulates, passive-target progress while the target
# waits or computes, dynamic windows, derived types, errors).  It also runs
# in one process, where the same checks hold on the direct path.

zmpi_add_program(zt_net_rma_cross net_rma_cross.c)
zmpi_add_mpi_layouts(net_rma_cross PROGRAM net_rma_cross LAYOUTS 1x1 2x1 2x2 7x2 64x1 64x2
                     TIMEOUT 120)

zmpi_add_program(zt_net_shm_win net_shm_win.c)
zmpi_add_mpi_layouts(net_shm_win PROGRAM net_shm_win LAYOUTS 1x1 4x2)

if(NOT ZMPI_NET_BACKENDS)
  return()
endif()

# zmpi_add_net_test comes from tests/net.cmake (read before this file).
set(ZT_NET_RMA_PROGRAMS rma_flavors rma_atomics rma_sync rma_errors net_rma_cross)

foreach(be ${ZMPI_NET_BACKENDS})
  foreach(prog ${ZT_NET_RMA_PROGRAMS})
    # 2 processes x 3 ranks, interleaved: every rank's neighbours are in
    # the other process, and each target has local and remote origins.
    zmpi_add_net_test(net_${be}_${prog}_2px3i PROGRAM ${prog} NP 6 PROCS 2 BACKEND ${be}
                      OPTS --interleave)
    # 3 processes x 1 rank: every access crosses a process boundary.
    zmpi_add_net_test(net_${be}_${prog}_3px1 PROGRAM ${prog} NP 3 PROCS 3 BACKEND ${be})
  endforeach()
  # One worker per process: a target rank that computes (or waits) holds
  # its process's only worker, so only the progress thread serves origins.
  zmpi_add_net_test(net_${be}_net_rma_cross_2px2w1 PROGRAM net_rma_cross NP 4 PROCS 2
                    BACKEND ${be} OPTS -w 1)
endforeach()

# Erroneous programs across processes (tests/rma_wrong.c, 2 processes of
# one rank: the target is always in the other process): the job ends by
# itself with the origin's message, and no process is left behind.
foreach(be ${ZMPI_NET_BACKENDS})
  foreach(mistake put_out_of_range unlock_without_lock)
    if(mistake STREQUAL put_out_of_range)
      set(re --regex "rank 0: MPI_Put" --regex "target_disp=100" --regex "MPI_ERR_RMA_RANGE")
    else()
      set(re --regex "rank 1: MPI_Win_unlock" --regex "unlock without lock"
             --regex "MPI_ERR_RMA_SYNC")
    endif()
    add_test(NAME net_${be}_rma_wrong_${mistake}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/net_noleft.sh
              sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 ${re} --
              $<TARGET_FILE:zmpirun> -n 2 -p 2 -w 2 --net ${be}
              $<TARGET_FILE:zt_rma_wrong> ${mistake})
    set_tests_properties(net_${be}_rma_wrong_${mistake} PROPERTIES TIMEOUT 90 LABELS net)
  endforeach()
endforeach()

# Shared windows across the processes of one node (docs/net.md, "Shared
# memory between the processes of a node"): in one process, as 2
# processes x 3 ranks interleaved and 3 x 1 per backend, and with
# --separate-nodes, where every process is a node and the world's shared
# window is refused.
foreach(be ${ZMPI_NET_BACKENDS})
  zmpi_add_net_test(net_${be}_net_shm_win_2px3i PROGRAM net_shm_win NP 6 PROCS 2
                    BACKEND ${be} OPTS --interleave)
  zmpi_add_net_test(net_${be}_net_shm_win_3px1 PROGRAM net_shm_win NP 3 PROCS 3
                    BACKEND ${be})
  # Every process a node of its own (what --separate-nodes sets).
  zmpi_add_net_test(net_${be}_net_shm_win_separate PROGRAM net_shm_win NP 4 PROCS 2
                    BACKEND ${be} OPTS --interleave ARGS separate)
  set_property(TEST net_${be}_net_shm_win_separate APPEND PROPERTY
               ENVIRONMENT ZMPI_NET_SEPARATE=1)
endforeach()
