# One-sided communication across processes (docs/net.md, "Windows across
# processes"; windows of zmpi's memory on one node are direct): the window
# tests of tests/rma.cmake re-run as several processes for every network
# backend that was built, plus net_rma_cross,
# which checks what crosses processes specifically (counters, mutexes,
# mixed local/remote accumulates, passive-target progress while the target
# waits or computes, dynamic windows, derived types, errors).  It also runs
# in one process, where the same checks hold on the direct path.

zmpi_add_program(zt_net_rma_cross net_rma_cross.c)
zmpi_add_mpi_layouts(net_rma_cross PROGRAM net_rma_cross LAYOUTS 1x1 2x1 2x2 7x2 64x1 64x2
                     TIMEOUT 120)

# Direct windows (memory of processes of one node in the node's segment):
# net_rma_shm checks the path taken, concurrent accumulates of every kind
# to one target, and exclusive against shared locks.
zmpi_add_program(zt_net_rma_shm net_rma_shm.c)
zmpi_add_mpi_layouts(net_rma_shm PROGRAM net_rma_shm LAYOUTS 1x1 4x2 TIMEOUT 120)

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

# Direct windows across the processes of one node (the default there),
# and the message path they replace: under --separate-nodes (every
# process a node of its own, as separate machines) and with
# ZMPI_RMA_DIRECT=0 on one node.  net_rma_cross and rma_atomics run on
# the message path too, so both paths keep their checks.
foreach(be ${ZMPI_NET_BACKENDS})
  zmpi_add_net_test(net_${be}_net_rma_shm_2px3i PROGRAM net_rma_shm NP 6 PROCS 2
                    BACKEND ${be} OPTS --interleave ARGS direct)
  zmpi_add_net_test(net_${be}_net_rma_shm_3px1 PROGRAM net_rma_shm NP 3 PROCS 3
                    BACKEND ${be} ARGS direct)
  zmpi_add_net_test(net_${be}_net_rma_shm_2px2w1 PROGRAM net_rma_shm NP 4 PROCS 2
                    BACKEND ${be} OPTS -w 1 ARGS direct)
  foreach(prog net_rma_shm net_rma_cross rma_atomics)
    set(arg)
    if(prog STREQUAL net_rma_shm)
      set(arg ARGS message)
    endif()
    zmpi_add_net_test(net_${be}_${prog}_2px3i_separate PROGRAM ${prog} NP 6 PROCS 2
                      BACKEND ${be} OPTS --interleave ${arg})
    set_property(TEST net_${be}_${prog}_2px3i_separate APPEND PROPERTY
                 ENVIRONMENT ZMPI_NET_SEPARATE=1)
  endforeach()
  zmpi_add_net_test(net_${be}_net_rma_shm_2px3i_nodirect PROGRAM net_rma_shm NP 6 PROCS 2
                    BACKEND ${be} OPTS --interleave ARGS message)
  set_property(TEST net_${be}_net_rma_shm_2px3i_nodirect APPEND PROPERTY
               ENVIRONMENT ZMPI_RMA_DIRECT=0)
endforeach()

# Erroneous programs across processes (tests/rma_wrong.c, 2 processes of
# one rank: the target is always in the other process): the job ends by
# itself with the origin's message, and no process is left behind.
foreach(be ${ZMPI_NET_BACKENDS})
  foreach(mistake put_out_of_range unlock_without_lock)
    if(mistake STREQUAL put_out_of_range)
      set(re "rank 0: MPI_Put" "target_disp=100" "MPI_ERR_RMA_RANGE")
    else()
      set(re "rank 1: MPI_Win_unlock" "unlock without lock" "MPI_ERR_RMA_SYNC")
    endif()
    zmpi_add_net_fatal(net_${be}_rma_wrong_${mistake} PROGRAM rma_wrong NP 2 PROCS 2
                       BACKEND ${be} REGEX ${re} ARGS ${mistake})
  endforeach()
  # A rank waiting for an exclusive lock while the rank of another process
  # that holds it shared (on a direct window, a count in the node's
  # segment) waits for a message from it: the job-wide detector reports
  # the deadlock, naming both waits.
  zmpi_add_net_fatal(net_${be}_rma_wrong_shared_lock_deadlock PROGRAM rma_wrong NP 2 PROCS 2
    BACKEND ${be} ARGS shared_lock_deadlock REGEX "deadlock across"
    "rank 0: MPI_Win_lock waiting for an exclusive lock on rank 0 of window lockwin"
    "rank 1: MPI_Recv")
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
