# ---- One-sided communication (src/rma/, win.c, rma_api.c, rma_sync_api.c) ----
# Every flavor with Put/Get, the accumulate family, and every
# synchronization mode, on 1, 2, 7 and 64 ranks over 1 and 2 workers.
foreach(prog rma_flavors rma_atomics rma_sync rma_errors)
  zmpi_add_program(zt_${prog} ${prog}.c)
  zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 1x1 2x1 2x2 7x2 64x1 64x2 TIMEOUT 60)
endforeach()

# Erroneous programs: the job fails by itself with a message naming the
# call, the rank and the value, or reports the deadlocked window wait.
zmpi_add_program(zt_rma_wrong rma_wrong.c)
function(zt_rma_wrong_test mistake np nw)
  zmpi_add_fatal_test(rma_wrong_${mistake} PROGRAM rma_wrong NP ${np} WORKERS ${nw}
                      REGEX ${ARGN} ARGS ${mistake})
endfunction()
zt_rma_wrong_test(put_out_of_range 2 2 "rank 0: MPI_Put" "target_disp=100"
                  "MPI_ERR_RMA_RANGE")
zt_rma_wrong_test(lock_deadlock 2 1 "deadlock"
                  "rank 1: MPI_Win_lock waiting for an exclusive lock on rank 0 of window lockwin"
                  "rank 0: MPI_Recv")
zt_rma_wrong_test(lock_deadlock_2w 2 2 "deadlock"
                  "rank 1: MPI_Win_lock waiting for an exclusive lock on rank 0 of window lockwin")
zt_rma_wrong_test(fence_skipped 3 2 "deadlock" "rank 1: MPI_Win_fence" "rank 2: MPI_Win_fence"
                  "rank 0: MPI_Recv")
zt_rma_wrong_test(start_without_post 3 2 "deadlock"
                  "MPI_Win_start waiting for MPI_Win_post of the 1 target of window")
zt_rma_wrong_test(unlock_without_lock 2 2 "rank 1: MPI_Win_unlock" "unlock without lock"
                  "MPI_ERR_RMA_SYNC")
# ---- end of one-sided communication ----
