# ---- Checkpoint/restart (issue 21; docs/checkpoint.md) ----
# The whole state of every rank comes back in a restarted job, with 1 and
# 2 workers, in C and C++ (tests/ckpt_restart.sh compares the results of
# a straight run and of restarts); ZMPI_Checkpoint refuses, with a message
# naming the reason, a job started without --checkpoint and a rank that
# holds a communicator.
zmpi_add_priv_program(zt_ckpt_basic ckpt_basic.c)
zmpi_add_priv_program(zt_ckpt_cxx ckpt_cxx.cpp)
target_link_options(zt_ckpt_cxx PRIVATE -Wl,-u,_Znwm)
foreach(np 1 8 64)
  foreach(prog ckpt_basic ckpt_cxx)
    add_test(NAME ${prog}_restart_${np}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
              $<TARGET_FILE:zt_${prog}> ${np})
    set_tests_properties(${prog}_restart_${np} PROPERTIES TIMEOUT 240)
  endforeach()
endforeach()
add_test(NAME ckpt_refused_without_checkpoint_flag
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
          --regex "rank 0: checkpoint refused: .*start it with zmpirun --checkpoint" --
          $<TARGET_FILE:zmpirun> -n 4 -w 2 $<TARGET_FILE:zt_ckpt_basic> ${CMAKE_CURRENT_BINARY_DIR}/ckpt_none)
add_test(NAME ckpt_refused_with_live_communicator
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
          --regex "rank 1: checkpoint refused: .*communicators other than MPI_COMM_WORLD" --
          env CK_MODE=comm $<TARGET_FILE:zmpirun> --checkpoint -n 4 -w 2
          $<TARGET_FILE:zt_ckpt_basic> ${CMAKE_CURRENT_BINARY_DIR}/ckpt_comm)
add_test(NAME ckpt_refused_with_unreceived_message
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
          --regex "rank 3: checkpoint refused: .*a message to it is still unreceived" --
          env CK_MODE=unreceived $<TARGET_FILE:zmpirun> --checkpoint -n 4 -w 2
          $<TARGET_FILE:zt_ckpt_basic> ${CMAKE_CURRENT_BINARY_DIR}/ckpt_unrecv)
add_test(NAME ckpt_refused_with_persistent_request
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
          --regex "rank 1: checkpoint refused: .*requests exist" --
          env CK_MODE=persistent $<TARGET_FILE:zmpirun> --checkpoint -n 4 -w 2
          $<TARGET_FILE:zt_ckpt_basic> ${CMAKE_CURRENT_BINARY_DIR}/ckpt_persist)
set_tests_properties(ckpt_refused_without_checkpoint_flag ckpt_refused_with_live_communicator
  ckpt_refused_with_unreceived_message ckpt_refused_with_persistent_request
  PROPERTIES TIMEOUT 90)
# Jobs of several processes (each process restores its own ranks; the same
# layout at restart), over every system MPI zmpi was built for; a message
# between processes left unreceived is refused whether it arrived or not.
foreach(be ${ZMPI_NET_BACKENDS})
  foreach(prog ckpt_basic ckpt_cxx)
    add_test(NAME net_${be}_${prog}_restart_6x2p
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
              $<TARGET_FILE:zt_${prog}> 6 -p 2 --interleave --net ${be})
    set_tests_properties(net_${be}_${prog}_restart_6x2p PROPERTIES TIMEOUT 240 LABELS net)
  endforeach()
  add_test(NAME net_${be}_ckpt_refused_with_unreceived_message
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
            --regex "checkpoint refused: .*(still unreceived|still in flight)" --
            env CK_MODE=unreceived $<TARGET_FILE:zmpirun> --checkpoint -n 4 -p 2 --interleave
            --net ${be} $<TARGET_FILE:zt_ckpt_basic> ${CMAKE_CURRENT_BINARY_DIR}/ckpt_unrecv_${be})
  set_tests_properties(net_${be}_ckpt_refused_with_unreceived_message PROPERTIES TIMEOUT 90
    LABELS net)
endforeach()
# ---- end of checkpoint/restart ----
