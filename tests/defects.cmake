# ---- Defects found by third-party conformance programs (issue 23) ----
# Each program checks one defect against hand-computed answers; they run on
# one rank, on two ranks on one and two workers, and on odd and large rank
# counts where the defect depends on them.

# Item 1: MPI_IN_PLACE ignores the send count and type (fast and general
# paths, blocking and non-blocking).
zmpi_add_program(zt_defects_in_place defects_in_place.c)
zmpi_add_mpi_layouts(defects_in_place PROGRAM defects_in_place
                     LAYOUTS 1x1 2x1 2x2 7x2 64x2)

# Item 2: datatype constructors with count 0 and NULL arrays, empty blocks,
# subarrays and darrays with empty local parts; errors through the handler.
zmpi_add_program(zt_defects_dt_empty defects_dt_empty.c)
zmpi_add_mpi_layouts(defects_dt_empty PROGRAM defects_dt_empty LAYOUTS 1x1 2x1 2x2 7x2)
foreach(mistake hindexed_null indexed_negative)
  zmpi_add_fatal_test(defects_dt_fatal_${mistake} PROGRAM defects_dt_empty NP 2 WORKERS 1
    REGEX "rank 0: MPI_Type_" "MPI_ERR_(ARG|COUNT)" "MPI_ERRORS_ARE_FATAL" ARGS ${mistake})
endforeach()

# Item 3: MPI_Cancel withdraws every unmatched send (mail slot, eager,
# rendezvous, buffered, persistent) and no matched one; races with a
# receiver on the other worker.
zmpi_add_program(zt_defects_cancel defects_cancel.c)
zmpi_add_mpi_layouts(defects_cancel PROGRAM defects_cancel LAYOUTS 1x1 2x1 2x2 7x2)

# Item 5: MPI_Type_set_name on predefined datatypes, a name per rank.
zmpi_add_program(zt_defects_type_name defects_type_name.c)
zmpi_add_mpi_layouts(defects_type_name PROGRAM defects_type_name
                     LAYOUTS 1x1 2x1 2x2 7x2 64x2)

# Item 7: standard-mode send cycles are buffered (with one warning) when
# nothing else can move; synchronous cycles, receives nobody sends to and
# cycles over the memory bound are still reported as deadlocks.
zmpi_add_program(zt_defects_send_cycle defects_send_cycle.c)
zmpi_add_mpi_layouts(defects_send_cycle_pair PROGRAM defects_send_cycle
                     LAYOUTS 1x1 2x1 2x2 7x2 ARGS pair)
zmpi_add_mpi_layouts(defects_send_cycle_ring PROGRAM defects_send_cycle
                     LAYOUTS 1x1 3x1 3x2 7x2 ARGS ring)
zmpi_add_mpi_test(defects_send_cycle_pair_waiter_3x2 PROGRAM defects_send_cycle
                  NP 3 WORKERS 2 ARGS pair_waiter)
# The warning: printed once, naming the ranks and the standard's rule.
add_test(NAME defects_send_cycle_warns_once
  COMMAND sh -c "out=$($<TARGET_FILE:zmpirun> -n 2 -w 2 $<TARGET_FILE:zt_defects_send_cycle> pair 2>&1) || exit 1; echo \"$out\"; [ $(echo \"$out\" | grep -c 'zmpi: warning') -eq 1 ] && echo \"$out\" | grep -q 'ranks 0 and 1' && echo \"$out\" | grep -q 'MPI 4.1 section 3.5'")
set_tests_properties(defects_send_cycle_warns_once PROPERTIES TIMEOUT 120)
foreach(case "ssend;2;2;rank 0: MPI_Ssend;rank 1: MPI_Ssend"
             "ssend;2;1;rank 0: MPI_Ssend;rank 1: MPI_Ssend"
             "recv_nobody;3;2;rank 2: MPI_Recv;source=0, tag=99")
  list(GET case 0 mode)
  list(GET case 1 np)
  list(GET case 2 nw)
  list(GET case 3 re1)
  list(GET case 4 re2)
  zmpi_add_fatal_test(defects_send_cycle_deadlock_${mode}_${np}x${nw} PROGRAM defects_send_cycle
    NP ${np} WORKERS ${nw} REGEX "zmpi: deadlock" "${re1}" "${re2}" ARGS ${mode})
endforeach()
# Over the memory bound: reported, saying that buffering was refused.
add_test(NAME defects_send_cycle_refused
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "zmpi: deadlock" --regex "refused" --regex "ZMPI_CYCLE_BUFFER_MAX"
          --regex "rank 0: MPI_Send" --
          env ZMPI_CYCLE_BUFFER_MAX=100000
          $<TARGET_FILE:zmpirun> -n 2 -w 2 $<TARGET_FILE:zt_defects_send_cycle> pair)
set_tests_properties(defects_send_cycle_refused PROPERTIES TIMEOUT 90)
