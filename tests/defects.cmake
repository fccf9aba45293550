# ---- Defects found by third-party conformance programs (issue 23) ----
# Each program checks one defect against hand-computed answers; they run on
# one rank, on two ranks on one and two workers, and on odd and large rank
# counts where the defect depends on them.

# defects_add_layouts(<name> <program> LAYOUTS <NPxWORKERS>... [ARGS ...]):
# one test <name>_<layout> of tests/<program>.c per layout.
function(defects_add_layouts name prog)
  cmake_parse_arguments(T "" "" "LAYOUTS;ARGS" ${ARGN})
  foreach(layout ${T_LAYOUTS})
    string(REPLACE "x" ";" lw ${layout})
    list(GET lw 0 np)
    list(GET lw 1 nw)
    zmpi_add_mpi_test(${name}_${layout} PROGRAM ${prog} NP ${np} WORKERS ${nw}
                      ARGS ${T_ARGS})
  endforeach()
endfunction()

# Item 1: MPI_IN_PLACE ignores the send count and type (fast and general
# paths, blocking and non-blocking).
zmpi_add_program(zt_defects_in_place defects_in_place.c)
defects_add_layouts(defects_in_place defects_in_place LAYOUTS 1x1 2x1 2x2 7x2 64x2)

# Item 2: datatype constructors with count 0 and NULL arrays, empty blocks,
# subarrays and darrays with empty local parts; errors through the handler.
zmpi_add_program(zt_defects_dt_empty defects_dt_empty.c)
defects_add_layouts(defects_dt_empty defects_dt_empty LAYOUTS 1x1 2x1 2x2 7x2)
foreach(mistake hindexed_null indexed_negative)
  add_test(NAME defects_dt_fatal_${mistake}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
            --regex "rank 0: MPI_Type_" --regex "MPI_ERR_(ARG|COUNT)"
            --regex "MPI_ERRORS_ARE_FATAL" --
            $<TARGET_FILE:zmpirun> -n 2 -w 1 $<TARGET_FILE:zt_defects_dt_empty> ${mistake})
  set_tests_properties(defects_dt_fatal_${mistake} PROPERTIES TIMEOUT 90)
endforeach()

# Item 3: MPI_Cancel withdraws every unmatched send (mail slot, eager,
# rendezvous, buffered, persistent) and no matched one; races with a
# receiver on the other worker.
zmpi_add_program(zt_defects_cancel defects_cancel.c)
defects_add_layouts(defects_cancel defects_cancel LAYOUTS 1x1 2x1 2x2 7x2)

# Item 5: MPI_Type_set_name on predefined datatypes, a name per rank.
zmpi_add_program(zt_defects_type_name defects_type_name.c)
defects_add_layouts(defects_type_name defects_type_name LAYOUTS 1x1 2x1 2x2 7x2 64x2)

# Item 7: standard-mode send cycles are buffered (with one warning) when
# nothing else can move; synchronous cycles, receives nobody sends to and
# cycles over the memory bound are still reported as deadlocks.
zmpi_add_program(zt_defects_send_cycle defects_send_cycle.c)
defects_add_layouts(defects_send_cycle_pair defects_send_cycle LAYOUTS 1x1 2x1 2x2 7x2
                    ARGS pair)
defects_add_layouts(defects_send_cycle_ring defects_send_cycle LAYOUTS 1x1 3x1 3x2 7x2
                    ARGS ring)
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
  add_test(NAME defects_send_cycle_deadlock_${mode}_${np}x${nw}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
            --regex "zmpi: deadlock" --regex "${re1}" --regex "${re2}" --
            $<TARGET_FILE:zmpirun> -n ${np} -w ${nw} $<TARGET_FILE:zt_defects_send_cycle> ${mode})
  set_tests_properties(defects_send_cycle_deadlock_${mode}_${np}x${nw} PROPERTIES TIMEOUT 90)
endforeach()
# Over the memory bound: reported, saying that buffering was refused.
add_test(NAME defects_send_cycle_refused
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "zmpi: deadlock" --regex "refused" --regex "ZMPI_CYCLE_BUFFER_MAX"
          --regex "rank 0: MPI_Send" --
          env ZMPI_CYCLE_BUFFER_MAX=100000
          $<TARGET_FILE:zmpirun> -n 2 -w 2 $<TARGET_FILE:zt_defects_send_cycle> pair)
set_tests_properties(defects_send_cycle_refused PROPERTIES TIMEOUT 90)
