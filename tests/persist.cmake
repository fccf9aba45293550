# ---- Requests, generalized requests, Isendrecv, persistent collectives (issue 15) ----
zmpi_add_program(zt_req_status req_status.c)
zmpi_add_program(zt_req_isendrecv req_isendrecv.c)
zmpi_add_program(zt_req_grequest req_grequest.c)
zmpi_add_program(zt_pcoll_all pcoll_all.c)
zmpi_add_program(zt_pcoll_wrong pcoll_wrong.c)
zmpi_add_program(zt_pcoll_ialltoallw pcoll_ialltoallw.c)
foreach(prog req_status req_isendrecv req_grequest pcoll_all pcoll_ialltoallw)
  zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 1x1 2x1 2x2 7x2 64x2)
endforeach()

# Fatal errors: the message names the call, the argument and the rank.
foreach(case "start_active;MPI_Start;already active"
             "init_inter;MPI_Reduce_init;root=9"
             "bad_root;MPI_Bcast_init;root=9")
  list(GET case 0 mistake)
  list(GET case 1 call)
  list(GET case 2 what)
  zmpi_add_fatal_test(pcoll_wrong_${mistake} PROGRAM pcoll_wrong NP 2 WORKERS 2
    REGEX "${call}" "${what}" "rank [0-9]" ARGS ${mistake})
endforeach()
