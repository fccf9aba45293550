# ---- Dynamic processes (issue 15, docs/spawn.md) ----
# Spawned ranks are new virtual ranks of the running job.  spawn_basic is
# privatized (each child runs its own copy of the program); spawn_other is
# a second program that Comm_spawn_multiple starts beside it.
zmpi_add_priv_program(zt_spawn_basic spawn_basic.c)
zmpi_add_priv_program(zt_spawn_other spawn_other.c)
zmpi_add_priv_program(zt_spawn_ports spawn_ports.c)
# Spawn 1, 3 and 32 children from 1, 2 and 7 parents (64 parents spawn 1
# and 3), one and two workers.
zmpi_add_mpi_layouts(spawn_self PROGRAM spawn_basic LAYOUTS 1x1 1x2 2x1 2x2 7x1 7x2
                     ARGS spawn 1,3,32 TIMEOUT 180)
zmpi_add_mpi_layouts(spawn_self_many PROGRAM spawn_basic LAYOUTS 64x2
                     ARGS spawn 1,3 TIMEOUT 180)
# Every parent spawns alone (MPI_COMM_SELF), all at the same time.
zmpi_add_mpi_layouts(spawn_self_concurrent PROGRAM spawn_basic LAYOUTS 7x2 16x2
                     ARGS selfspawn 2,1,3)
# Two argv sets of this program and a second program in one spawned world.
zmpi_add_mpi_layouts(spawn_multiple PROGRAM spawn_basic LAYOUTS 1x1 2x2 7x2
                     ARGS multi $<TARGET_FILE:zt_spawn_other>)
zmpi_add_mpi_layouts(spawn_multiple_argv PROGRAM spawn_basic LAYOUTS 2x1
                     ARGS multi)
# Children that spawn a grandchild.
zmpi_add_mpi_layouts(spawn_nested PROGRAM spawn_basic LAYOUTS 1x1 3x2 ARGS nest)
# Refused commands (missing, not built by zmpicc, a zmpi program linked
# without privatization), bad arguments, info keys, Comm_join.
zmpi_add_mpi_layouts(spawn_errors PROGRAM spawn_basic LAYOUTS 1x1 3x2
                     ARGS errors $<TARGET_FILE:zt_errors_return>)
# "soft" when the spare rank records run out (ZMPI_SPAWN_MAX=4).
add_test(NAME spawn_soft_2x2
  COMMAND env ZMPI_SPAWN_MAX=4 $<TARGET_FILE:zmpirun> -n 2 -w 2 $<TARGET_FILE:zt_spawn_basic> soft)
set_tests_properties(spawn_soft_2x2 PROPERTIES TIMEOUT 120 ENVIRONMENT "MPIEXEC_TIMEOUT=120")
# Ports and names between two halves of MPI_COMM_WORLD.
zmpi_add_mpi_layouts(spawn_ports PROGRAM spawn_ports LAYOUTS 2x1 2x2 7x2 64x2)
# Comm_join over loopback TCP connections between pairs of ranks, and its
# refusals (garbage on the socket, not a socket).
zmpi_add_program(zt_spawn_join spawn_join.c)
zmpi_add_mpi_layouts(spawn_join PROGRAM spawn_join LAYOUTS 2x1 2x2 8x2)
# A spawned child that aborts ends the job, naming its rank (world ranks
# 0-1 are the parents, so the children are 2-4 and rank 1 of them is 3).
zmpi_add_fatal_test(spawn_child_abort PROGRAM spawn_basic NP 2 WORKERS 2
                    REGEX "rank 3 called MPI_Abort with error code 3" ARGS abort)
# Spawned ranks that wait forever are a deadlock like any other: the
# report names them (ranks 2-4) and what they wait for.
zmpi_add_fatal_test(spawn_child_deadlock PROGRAM spawn_basic NP 2 WORKERS 2
                    REGEX "deadlock: all 3 live ranks" "rank 4: MPI_Recv" ARGS hang)
# A program that loaded libzmpi itself (as Python running mpi4py does) is
# a singleton: spawning the running program (mpi4py's futures spawn
# sys.executable) or a shell fails at once with MPI_ERR_SPAWN naming the
# call and the command, through MPI_ERRORS_RETURN and through the fatal
# handler; a spawn that waited for ranks that cannot start would hang
# until the time-out instead.
add_executable(zt_spawn_foreign spawn_foreign.c)
target_include_directories(zt_spawn_foreign PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(zt_spawn_foreign PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME spawn_foreign_return
  COMMAND $<TARGET_FILE:zt_spawn_foreign> $<TARGET_FILE:zmpi> return)
set_tests_properties(spawn_foreign_return PROPERTIES TIMEOUT 30
  PASS_REGULAR_EXPRESSION "spawn_foreign: OK")
add_test(NAME spawn_foreign_fatal
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 20
          --regex "rank 0: MPI_Comm_spawn: command .*spawn_foreign.*running program"
          --regex "MPI_ERR_SPAWN" --regex "ends the job" --
          $<TARGET_FILE:zt_spawn_foreign> $<TARGET_FILE:zmpi> fatal)
set_tests_properties(spawn_foreign_fatal PROPERTIES TIMEOUT 30)
# Across processes (docs/spawn.md): children start in the spawning root's
# process and talk to parents in every process; ports, names and joins
# between ranks of different processes (interleaved: neighbours are in
# different processes).
foreach(be ${ZMPI_NET_BACKENDS})
  zmpi_add_net_test(net_${be}_spawn_2px3i PROGRAM spawn_basic NP 6 PROCS 2 BACKEND ${be}
                    OPTS --interleave ARGS spawn 1,3,5)
  zmpi_add_net_test(net_${be}_spawn_nested_3px1 PROGRAM spawn_basic NP 3 PROCS 3
                    BACKEND ${be} ARGS nest)
  zmpi_add_net_test(net_${be}_spawn_ports_2px3i PROGRAM spawn_ports NP 6 PROCS 2
                    BACKEND ${be} OPTS --interleave)
  zmpi_add_net_test(net_${be}_spawn_join_2px3i PROGRAM spawn_join NP 6 PROCS 2
                    BACKEND ${be} OPTS --interleave)
  # A child in process 1 still uses process 0's names after every rank of
  # process 0 has finalized: process 0 keeps serving until all are done.
  zmpi_add_net_test(net_${be}_spawn_late_name_2px1 PROGRAM spawn_basic NP 2 PROCS 2
                    BACKEND ${be} ARGS latename)
endforeach()
# Spawn_multiple with a second program, and the refusals, with one backend.
if(ZMPI_NET_BACKENDS)
  list(GET ZMPI_NET_BACKENDS 0 zt_spawn_be)
  zmpi_add_net_test(net_${zt_spawn_be}_spawn_multiple_3px1 PROGRAM spawn_basic NP 3 PROCS 3
                    BACKEND ${zt_spawn_be} ARGS multi $<TARGET_FILE:zt_spawn_other>)
  zmpi_add_net_test(net_${zt_spawn_be}_spawn_errors_2px2 PROGRAM spawn_basic NP 4 PROCS 2
                    BACKEND ${zt_spawn_be} ARGS errors $<TARGET_FILE:zt_errors_return>)
endif()
# ---- end of dynamic processes ----
