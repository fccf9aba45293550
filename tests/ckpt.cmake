# ---- Checkpoint/restart (issue 21; docs/checkpoint.md) ----
# The whole state of every rank comes back in a restarted job, with 1 and
# 2 workers, in C and C++ (tests/ckpt_restart.sh compares the results of
# a straight run and of restarts), and so do the communicators the ranks
# made (tests/ckpt_comm.c: a duplicate, splits, split_type, a Cartesian
# grid and its row, used before and after the checkpoint, and a
# communicator made after it that must get a context id of its own);
# ZMPI_Checkpoint refuses, with a message naming the reason, a job started
# without --checkpoint and a rank that holds an intercommunicator to
# ranks spawned at run time, a window, a communicator or a user operation
# that a thread it started made, an open session, or an active persistent
# request.
# zt_ckpt_restart(<prog> <np>...): <prog>_restart_<np> runs
# tests/ckpt_restart.sh on zt_<prog> with each number of ranks.
function(zt_ckpt_restart prog)
  foreach(np ${ARGN})
    add_test(NAME ${prog}_restart_${np}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
              $<TARGET_FILE:zt_${prog}> ${np})
    set_tests_properties(${prog}_restart_${np} PROPERTIES TIMEOUT 240)
  endforeach()
endfunction()
zmpi_add_priv_program(zt_ckpt_basic ckpt_basic.c)
zmpi_add_priv_program(zt_ckpt_comm ckpt_comm.c)
zmpi_add_priv_program(zt_ckpt_cxx ckpt_cxx.cpp)
target_link_options(zt_ckpt_cxx PRIVATE -Wl,-u,_Znwm)
zt_ckpt_restart(ckpt_basic 1 8 64)
zt_ckpt_restart(ckpt_cxx 1 8 64)
zt_ckpt_restart(ckpt_comm 1 8 30)
# Inactive persistent point-to-point requests (standard, synchronous with
# a derived type on a duplicate, ready) live through the checkpoint in
# the rank's heap and are started again after the restart
# (tests/ckpt_persist.c).
zmpi_add_priv_program(zt_ckpt_persist ckpt_persist.c)
zt_ckpt_restart(ckpt_persist 1 8)
# A checkpoint restarts only with the binaries that wrote it: the same
# program rebuilt with another layout of its globals (CK_REBUILT) is
# refused with a message naming the build ids, and the original restarts
# from the same checkpoint (tests/ckpt_rebuilt.sh).
zmpi_add_priv_program(zt_ckpt_basic_rebuilt ckpt_basic.c)
target_compile_definitions(zt_ckpt_basic_rebuilt PRIVATE CK_REBUILT)
add_test(NAME ckpt_restart_refused_after_rebuild
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_rebuilt.sh $<TARGET_FILE:zmpirun>
          $<TARGET_FILE:zt_ckpt_basic> $<TARGET_FILE:zt_ckpt_basic_rebuilt>)
set_tests_properties(ckpt_restart_refused_after_rebuild PROPERTIES TIMEOUT 120)
# zt_ckpt_refusal(<name> MODE <CK_MODE or -> REGEX <re> [LABELS l] OPTS <zmpirun options>...):
# ckpt_basic run with CK_MODE (none for -) must end with exit status 4
# and the refusal's message.
function(zt_ckpt_refusal name)
  cmake_parse_arguments(T "" "MODE;REGEX;LABELS" "OPTS" ${ARGN})
  set(envs)
  if(NOT T_MODE STREQUAL "-")
    set(envs env CK_MODE=${T_MODE})
  endif()
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
            --regex "${T_REGEX}" -- ${envs} $<TARGET_FILE:zmpirun> ${T_OPTS}
            $<TARGET_FILE:zt_ckpt_basic> ${CMAKE_CURRENT_BINARY_DIR}/${name}.dir)
  set_tests_properties(${name} PROPERTIES TIMEOUT 90)
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS ${T_LABELS})
  endif()
endfunction()
zt_ckpt_refusal(ckpt_refused_without_checkpoint_flag MODE -
  REGEX "rank 0: checkpoint refused: .*start it with zmpirun --checkpoint" OPTS -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_for_spawned_ranks MODE spawned
  REGEX "rank 0: checkpoint refused: .*spawned at run time" OPTS --checkpoint -n 1 -w 2)
zt_ckpt_refusal(ckpt_refused_with_intercommunicator_to_spawned_ranks MODE spawnkeep
  REGEX "rank 0: checkpoint refused: .*it holds an intercommunicator to ranks spawned"
  OPTS --checkpoint -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_with_window MODE window
  REGEX "rank 1: checkpoint refused: .*it holds a window or a file"
  OPTS --checkpoint -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_with_communicator_made_off_rank_thread MODE thread
  REGEX "rank 1: checkpoint refused: .*communicators in its process's own memory exist"
  OPTS --checkpoint -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_with_user_op_made_off_rank_thread MODE threadop
  REGEX "rank 1: checkpoint refused: .*user operations made by threads other than the ranks' own"
  OPTS --checkpoint -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_with_open_session MODE session
  REGEX "rank 1: checkpoint refused: .*it has a session open"
  OPTS --checkpoint -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_with_unreceived_message MODE unreceived
  REGEX "rank 3: checkpoint refused: .*a message to it is still unreceived"
  OPTS --checkpoint -n 4 -w 2)
zt_ckpt_refusal(ckpt_refused_with_active_persistent_request MODE persistent
  REGEX "rank 1: checkpoint refused: .*it has an active persistent request"
  OPTS --checkpoint -n 4 -w 2)
# Jobs of several processes (each process restores the ranks it holds in
# the restarted job's layout), over every system MPI zmpi was built for; a message
# between processes left unreceived is refused whether it arrived or not.
foreach(be ${ZMPI_NET_BACKENDS})
  foreach(prog ckpt_basic ckpt_cxx)
    add_test(NAME net_${be}_${prog}_restart_6x2p
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
              $<TARGET_FILE:zt_${prog}> 6 -p 2 --interleave --net ${be})
    set_tests_properties(net_${be}_${prog}_restart_6x2p PROPERTIES TIMEOUT 240 LABELS net)
  endforeach()
  # Any process may resume any rank: restarts in other layouts than the
  # checkpointed job's, from 2 processes and from one.
  add_test(NAME net_${be}_ckpt_basic_restart_other_layouts
    COMMAND env "CK_LAYOUTS=-p 3 --net ${be},-p 1,-p 2 --rank-order block --net ${be}"
            sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
            $<TARGET_FILE:zt_ckpt_basic> 6 -p 2 --interleave --net ${be})
  add_test(NAME net_${be}_ckpt_cxx_restart_from_one_process
    COMMAND env "CK_LAYOUTS=-p 2 --interleave --net ${be},-p 3 --net ${be}"
            sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
            $<TARGET_FILE:zt_ckpt_cxx> 6)
  # Communicators through a checkpoint of 2 processes, restarted in 2, 3
  # and 1 (the context ids of process 1's range are taken in all).
  add_test(NAME net_${be}_ckpt_comm_restart_other_layouts
    COMMAND env "CK_LAYOUTS=-p 2 --interleave --net ${be},-p 3 --net ${be},-p 1"
            sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
            $<TARGET_FILE:zt_ckpt_comm> 6 -p 2 --interleave --net ${be})
  # Persistent requests through a checkpoint of 2 processes, restarted in
  # 2, 3 and 1.
  add_test(NAME net_${be}_ckpt_persist_restart_other_layouts
    COMMAND env "CK_LAYOUTS=-p 2 --interleave --net ${be},-p 3 --net ${be},-p 1"
            sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
            $<TARGET_FILE:zt_ckpt_persist> 6 -p 2 --interleave --net ${be})
  set_tests_properties(net_${be}_ckpt_basic_restart_other_layouts
    net_${be}_ckpt_persist_restart_other_layouts
    net_${be}_ckpt_cxx_restart_from_one_process net_${be}_ckpt_comm_restart_other_layouts
    PROPERTIES TIMEOUT 240 LABELS net)
  zt_ckpt_refusal(net_${be}_ckpt_refused_with_unreceived_message MODE unreceived
    REGEX "checkpoint refused: .*(still unreceived|still in flight)" LABELS net
    OPTS --checkpoint -n 4 -p 2 --interleave --net ${be})
endforeach()
# A --checkpoint job may spawn ranks: they have no region, so their
# program copies and heaps are placed anywhere (tests/spawn_basic.c).
add_test(NAME ckpt_job_spawns_ranks
  COMMAND $<TARGET_FILE:zmpirun> --checkpoint -n 2 -w 2 $<TARGET_FILE:zt_spawn_basic>
          spawn 1,3,32)
set_tests_properties(ckpt_job_spawns_ranks PROPERTIES TIMEOUT 120)
# ---- end of checkpoint/restart ----
