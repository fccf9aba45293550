# ---- Requests, generalized requests, Isendrecv, persistent collectives (issue 15) ----
zmpi_add_program(zt_req_status req_status.c)
zmpi_add_program(zt_req_isendrecv req_isendrecv.c)
zmpi_add_program(zt_req_grequest req_grequest.c)
zmpi_add_program(zt_pcoll_all pcoll_all.c)
zmpi_add_program(zt_pcoll_wrong pcoll_wrong.c)
zmpi_add_program(zt_pcoll_ialltoallw pcoll_ialltoallw.c)
foreach(prog req_status req_isendrecv req_grequest pcoll_all pcoll_ialltoallw)
  foreach(layout 1x1 2x1 2x2 7x2 64x2)
    string(REPLACE "x" ";" lw ${layout})
    list(GET lw 0 np)
    list(GET lw 1 nw)
    zmpi_add_mpi_test(${prog}_${layout} PROGRAM ${prog} NP ${np} WORKERS ${nw})
  endforeach()
endforeach()

# Fatal errors: the message names the call, the argument and the rank.
foreach(case "start_active;MPI_Start;already active"
             "init_inter;MPI_Allreduce_init;intercommunicator"
             "bad_root;MPI_Bcast_init;root=9")
  list(GET case 0 mistake)
  list(GET case 1 call)
  list(GET case 2 what)
  add_test(NAME pcoll_wrong_${mistake}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
            --regex "${call}" --regex "${what}" --regex "rank [0-9]" --
            $<TARGET_FILE:zmpirun> -n 2 -w 2 $<TARGET_FILE:zt_pcoll_wrong> ${mistake})
  set_tests_properties(pcoll_wrong_${mistake} PROPERTIES TIMEOUT 90)
endforeach()
