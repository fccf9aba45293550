# ---- Rank migration between workers (ZMPI_Migrate; docs/migrate.md) ----
# tests/migrate.c: ranks rotated over the workers many times with traffic,
# persistent requests, communicators and attributes in flight, checked
# byte for byte; the strategies' placements; measured loads; bad input.
zmpi_add_program(zt_migrate migrate.c)
zmpi_add_priv_program(zt_migrate_priv migrate.c)

# Ranks must stay where the balancer puts them for the placement checks:
# no wake-up migration, no stealing.
set(ZT_MIGRATE_FIXED ZMPI_WAKE_MIGRATE=0 ZMPI_STEAL=0)

# zt_migrate_test(<name> NP <n> WORKERS <w> [PROGRAM p] [FIXED] [ENV ...] ARGS ...)
function(zt_migrate_test name)
  cmake_parse_arguments(T "FIXED" "NP;WORKERS;PROGRAM" "ENV;ARGS" ${ARGN})
  if(NOT T_PROGRAM)
    set(T_PROGRAM migrate)
  endif()
  set(env MPIEXEC_TIMEOUT=240 ${T_ENV})
  if(T_FIXED)
    list(APPEND env ${ZT_MIGRATE_FIXED})
  endif()
  add_test(NAME ${name}
    COMMAND $<TARGET_FILE:zmpirun> -n ${T_NP} -w ${T_WORKERS}
            $<TARGET_FILE:zt_${T_PROGRAM}> ${T_ARGS})
  set_tests_properties(${name} PROPERTIES TIMEOUT 240 ENVIRONMENT "${env}")
endfunction()

# Back and forth: every rank must resume on another thread after each move.
zt_migrate_test(migrate_rotate_8x2 NP 8 WORKERS 2 FIXED ARGS moves 60 threads)
zt_migrate_test(migrate_rotate_7x3 NP 7 WORKERS 3 FIXED ARGS moves 30 threads)
zt_migrate_test(migrate_rotate_2x2 NP 2 WORKERS 2 FIXED ARGS moves 60 threads)
# With the scheduler's own moves (wake-ups, stealing) going on as well.
zt_migrate_test(migrate_rotate_16x2_default NP 16 WORKERS 2 ARGS moves 40)
# One worker: nowhere to go, everything still works.
zt_migrate_test(migrate_rotate_4x1 NP 4 WORKERS 1 ARGS moves 10)
# Privatized: each rank's globals move with it.
zt_migrate_test(migrate_priv_globals_6x2 NP 6 WORKERS 2 PROGRAM migrate_priv FIXED
  ARGS moves 30 threads globals)
# Many ranks.
zt_migrate_test(migrate_rotate_1000x2 NP 1000 WORKERS 2 FIXED ARGS moves 3 threads)

# Ranks move only where resuming on another OS thread is safe (x86-64,
# ult_impl.h); elsewhere the checks of where they went do not apply.
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  return()
endif()

# A rank pinned by an OpenMP region run in place stays on its thread.
find_package(OpenMP COMPONENTS C)
if(OpenMP_C_FOUND)
  zmpi_add_program(zt_migrate_omp migrate_omp.c)
  target_link_libraries(zt_migrate_omp PRIVATE OpenMP::OpenMP_C)
  zt_migrate_test(migrate_omp_pinned_4x2 NP 4 WORKERS 2 PROGRAM migrate_omp FIXED)
endif()

# Strategies on stated loads, and on measured busy time.
zt_migrate_test(migrate_greedy_8x2 NP 8 WORKERS 2 FIXED ARGS greedy)
zt_migrate_test(migrate_greedy_12x3 NP 12 WORKERS 3 FIXED ARGS greedy)
zt_migrate_test(migrate_refine_8x2 NP 8 WORKERS 2 FIXED ARGS refine)
zt_migrate_test(migrate_measured_8x2 NP 8 WORKERS 2 FIXED ARGS measured)

# Bad input: the right class and a message naming call and argument.
zt_migrate_test(migrate_errors_4x2 NP 4 WORKERS 2 ARGS errors)
zmpi_add_fatal_test(migrate_wrong_lb PROGRAM migrate NP 2 WORKERS 2
  REGEX "ZMPI_Migrate" "zmpi_lb" "bogus" ARGS fatal)
# A rank that never comes: the deadlock report names the call.
zmpi_add_fatal_test(migrate_wrong_missing PROGRAM migrate NP 3 WORKERS 2
  REGEX "deadlock" "rank [12]: ZMPI_Migrate" "rank 0: MPI_Barrier" ARGS missing)
add_test(NAME migrate_wrong_lb_env
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "invalid load-balancing strategy 'sideways'" --
          $<TARGET_FILE:zmpirun> -n 2 -w 2 --lb sideways $<TARGET_FILE:zt_migrate> errors)
set_tests_properties(migrate_wrong_lb_env PROPERTIES TIMEOUT 90)

# zmpirun --lb-report: the loads per worker before and after each step.
add_test(NAME migrate_lb_report
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_report.sh
          --regex "zmpi: lb step 1 \\(greedy\\): 8 ranks on 2 workers, 4 moved"
          --regex "zmpi:   worker 0: load 16, 4 ranks -> 10, 4 ranks"
          --regex "zmpi:   worker 1: load 4, 4 ranks -> 10, 4 ranks"
          --regex "max/mean load 1.600 -> 1.000"
          --regex "zmpi: lb step 2 \\(greedy\\): 8 ranks on 2 workers, 0 moved" --
          $<TARGET_FILE:zmpirun> -n 8 -w 2 --lb-report $<TARGET_FILE:zt_migrate> greedy)
set_tests_properties(migrate_lb_report PROPERTIES TIMEOUT 120
  ENVIRONMENT "${ZT_MIGRATE_FIXED}")
# --lb chooses the default strategy (no hints given).
add_test(NAME migrate_lb_default_rotate
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_report.sh
          --regex "zmpi: lb step 1 \\(rotate\\): 4 ranks on 2 workers, 4 moved" --
          $<TARGET_FILE:zmpirun> -n 4 -w 2 --lb rotate --lb-report
          $<TARGET_FILE:zt_migrate> moves 1 threads nohint)
set_tests_properties(migrate_lb_default_rotate PROPERTIES TIMEOUT 120
  ENVIRONMENT "${ZT_MIGRATE_FIXED}")

# Across processes each process balances its own ranks (interleaved: the
# world ranks of a process are not consecutive).
foreach(be ${ZMPI_NET_BACKENDS})
  add_test(NAME migrate_rotate_net_${be}_8x2p
    COMMAND $<TARGET_FILE:zmpirun> -n 8 -p 2 -w 2 --net ${be} --interleave
            $<TARGET_FILE:zt_migrate> moves 10 threads)
  set_tests_properties(migrate_rotate_net_${be}_8x2p PROPERTIES TIMEOUT 120 LABELS net
    ENVIRONMENT "MPIEXEC_TIMEOUT=100;${ZT_MIGRATE_FIXED}")
endforeach()
zmpi_add_priv_program(zt_migrate_net migrate_net.c migrate_net_req.c)
zmpi_add_priv_program(zt_migrate_nbc migrate_nbc.c)

# ---- Across processes (docs/migrate.md, "Across processes") ----
# tests/migrate_net.c: ranks with heap data, globals and 40 frames of
# stack moved between 2 and 3 processes of a --checkpoint job at every
# round and checked byte for byte, with a ring message and an Allreduce
# right after each move; the balancer's own moves from stated loads; a
# rank that keeps a window stays in its process (and
# --lb-report says so); a job without --checkpoint keeps every rank in
# its process and says why.  Over every system MPI zmpi was built for.
# zt_migrate_net(<name> MODE <m> [LB_PROC <p>] [REGEX <re>...] OPTS <zmpirun options>...)
function(zt_migrate_net name)
  cmake_parse_arguments(T "" "MODE;LB_PROC" "REGEX;OPTS" ${ARGN})
  set(res)
  foreach(re ${T_REGEX})
    list(APPEND res --regex ${re})
  endforeach()
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_net.sh ${res} --
            env MIG_MODE=${T_MODE} ZMPI_LB_PROC=${T_LB_PROC} MPIEXEC_TIMEOUT=120
            $<TARGET_FILE:zmpirun> -w 2 --lb-report ${T_OPTS} $<TARGET_FILE:zt_migrate_net>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 180 LABELS net)
endfunction()
foreach(be ${ZMPI_NET_BACKENDS})
  zt_migrate_net(net_${be}_migrate_rotate_6x2p MODE rotate LB_PROC rotate
    REGEX "6 ranks, 36 moves, ok" OPTS --checkpoint -n 6 -p 2 --interleave --net ${be})
  zt_migrate_net(net_${be}_migrate_rotate_7x3p MODE rotate LB_PROC rotate
    REGEX "7 ranks, 42 moves, ok" OPTS --checkpoint -n 7 -p 3 --net ${be})
  # Rank 0 states 10, the others 1, at the first round: ranks 2 and 4
  # leave process 0 (12 > mean 7.5 by more than 1), then one comes back.
  zt_migrate_net(net_${be}_migrate_auto_loads MODE auto LB_PROC auto
    REGEX "6 ranks, 3 moves, ok" "process 0: load 12, 3 ranks -> 10, 1 ranks"
    OPTS --checkpoint -n 6 -p 2 --interleave --net ${be})
  # The cost of a move is weighed (docs/migrate.md): loads of 1 and 0.1
  # ms even out less than a move costs; a 256 MiB heap keeps rank 2 while
  # rank 4, as loaded, moves.
  zt_migrate_net(net_${be}_migrate_auto_too_costly MODE autocheap LB_PROC auto
    REGEX "6 ranks, 0 moves, ok" "2 moves left out: each would cost more than the load"
    OPTS --checkpoint -n 6 -p 2 --interleave --net ${be})
  zt_migrate_net(net_${be}_migrate_auto_weighs_bytes MODE autocost LB_PROC auto
    REGEX "6 ranks, 1 moves, ok" "rank 4: process 0 -> 1" "1 move left out"
    OPTS --checkpoint -n 6 -p 2 --interleave --net ${be})
  zt_migrate_net(net_${be}_migrate_list MODE list LB_PROC 0:1,3:0
    REGEX "6 ranks, 2 moves, ok" "rank 0: process 0 -> 1" "rank 3: process 1 -> 0"
    OPTS --checkpoint -n 6 -p 2 --net ${be})
  # Rank 1 keeps a window: it stays, the 5 others move at each of 6
  # rounds.
  zt_migrate_net(net_${be}_migrate_window_stays MODE comm LB_PROC rotate
    REGEX "6 ranks, 30 moves, ok"
    "rank 1 stays in process 1: it holds a window or a file"
    OPTS --checkpoint -n 6 -p 2 --interleave --net ${be})
  # Ranks holding what they made move at every round, and it works right
  # after each move (tests/migrate_net.c): communicators of every intra
  # constructor with names, hints, attributes and error handlers
  # (MIG_MODE=comms); Cartesian, graph and distributed graph communicators
  # with cached neighbourhood schedules (topo); intercommunicators with a
  # duplicate and a merge (inter); derived datatypes (types); inactive
  # persistent point-to-point requests of every mode but buffered (persist).
  foreach(what communicators:comms topologies:topo intercommunicators:inter
          derived_types:types persistent_requests:persist)
    string(REPLACE ":" ";" what "${what}")
    list(GET what 0 name)
    list(GET what 1 mode)
    zt_migrate_net(net_${be}_migrate_${name}_6x2p MODE ${mode} LB_PROC rotate
      REGEX "6 ranks, 36 moves, ok" OPTS --checkpoint -n 6 -p 2 --interleave --net ${be})
    zt_migrate_net(net_${be}_migrate_${name}_7x3p MODE ${mode} LB_PROC rotate
      REGEX "7 ranks, 42 moves, ok" OPTS --checkpoint -n 7 -p 3 --net ${be})
  endforeach()
  # A message on its way to rank 1 when it enters ZMPI_Migrate: rank 1
  # stays while it waits in its queue, and receives it after.
  zt_migrate_net(net_${be}_migrate_message_in_flight MODE inflight LB_PROC rotate
    REGEX "4 ranks, [0-9]+ moves, ok" OPTS --checkpoint -n 4 -p 2 --interleave --net ${be})
  # Requests keep only their rank: rank 1 with a receive posted, rank 2
  # with a send started, rank 3 with a persistent send started, ranks 4
  # and 5 with their messages waiting, rank 6 with a buffer attached for
  # MPI_Bsend and rank 7 with a generalized request stay, rank 0 moves at
  # each of 6 rounds.
  zt_migrate_net(net_${be}_migrate_pending_requests_stay MODE pending LB_PROC rotate
    REGEX "8 ranks, 6 moves, ok" "rank 2 stays in process 0: it holds requests"
    "rank 1 stays in process 1: a message to it is still unreceived, or it has a receive"
    "rank 3 stays in process 1: it has an active persistent request"
    "rank 6 stays in process 0: it has a buffer attached"
    "rank 7 stays in process 1: it holds an MPI_Isendrecv or generalized request"
    OPTS --checkpoint -n 8 -p 2 --interleave --net ${be})
  # A non-blocking collective in flight on a communicator of ranks 0 and
  # 2 keeps every rank of the job in place (tests/migrate_nbc.c).
  add_test(NAME net_${be}_migrate_nbc_keeps_the_job
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_net.sh --regex "6 ranks, 0 moves, ok"
            --regex "no rank of the job moves: non-blocking collective requests exist" --
            env ZMPI_LB_PROC=rotate MPIEXEC_TIMEOUT=120 $<TARGET_FILE:zmpirun> -w 2
            --lb-report --checkpoint -n 6 -p 2 --interleave --net ${be}
            $<TARGET_FILE:zt_migrate_nbc>)
  set_tests_properties(net_${be}_migrate_nbc_keeps_the_job PROPERTIES TIMEOUT 180 LABELS net)
  # A checkpoint of ranks that moved, restarted in three layouts.
  add_test(NAME net_${be}_migrate_then_checkpoint_restart
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_ckpt.sh $<TARGET_FILE:zmpirun>
            $<TARGET_FILE:zt_migrate_net> ${be})
  set_tests_properties(net_${be}_migrate_then_checkpoint_restart PROPERTIES TIMEOUT 240
    LABELS net)
  # The same with communicators of every intra constructor, with
  # topologies, with intercommunicators and with persistent requests,
  # alive through the moves, the checkpoint and the restarts.
  foreach(mode comms topo inter persist)
    add_test(NAME net_${be}_migrate_${mode}_then_checkpoint_restart
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_ckpt.sh $<TARGET_FILE:zmpirun>
              $<TARGET_FILE:zt_migrate_net> ${be} ${mode})
    set_tests_properties(net_${be}_migrate_${mode}_then_checkpoint_restart PROPERTIES
      TIMEOUT 240 LABELS net)
  endforeach()
  # The same with derived datatypes alive through the moves, the
  # checkpoint and the restarts.
  add_test(NAME net_${be}_migrate_types_then_checkpoint_restart
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/migrate_ckpt.sh $<TARGET_FILE:zmpirun>
            $<TARGET_FILE:zt_migrate_net> ${be} types)
  set_tests_properties(net_${be}_migrate_types_then_checkpoint_restart PROPERTIES TIMEOUT 240
    LABELS net)
  zt_migrate_net(net_${be}_migrate_without_checkpoint MODE stay LB_PROC rotate
    REGEX "6 ranks, 0 moves, ok" "ranks stay in their processes: the job does not keep ranks"
    OPTS -n 6 -p 2 --interleave --net ${be})
endforeach()
