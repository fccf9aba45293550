# ---- Process topologies and neighbourhood collectives (issue 14) ----
# Cartesian and graph topologies, distributed graphs, and the neighbourhood
# collectives in their three forms, on 1, 2, 7 and 64 ranks over one and
# two workers.
foreach(prog topo_cart topo_graph neighbor_coll)
  zmpi_add_program(zt_${prog} ${prog}.c)
  foreach(layout 1x1 2x1 2x2 7x1 7x2 64x2)
    string(REPLACE "x" ";" lw ${layout})
    list(GET lw 0 np)
    list(GET lw 1 nw)
    zmpi_add_mpi_test(${prog}_${layout} PROGRAM ${prog} NP ${np} WORKERS ${nw})
  endforeach()
endforeach()

# Mistakes under MPI_ERRORS_ARE_FATAL: the job ends by itself, naming the
# call, the argument and the error class.
zmpi_add_program(zt_topo_fatal topo_fatal.c)
foreach(case "shift_without_topology;MPI_Cart_shift;MPI_ERR_TOPOLOGY"
             "neighbor_without_topology;MPI_Neighbor_alltoall;MPI_ERR_TOPOLOGY"
             "dims_impossible;MPI_Dims_create\\(nnodes=7\\);MPI_ERR_DIMS"
             "dist_graph_no_newcomm;MPI_Dist_graph_create_adjacent\\(comm_dist_graph=NULL\\);MPI_ERR_ARG")
  list(GET case 0 mistake)
  list(GET case 1 call)
  list(GET case 2 cls)
  add_test(NAME topo_fatal_${mistake}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
            --regex "${call}" --regex "${cls}" --regex "rank [0-9]" --
            $<TARGET_FILE:zmpirun> -n 3 -w 2 $<TARGET_FILE:zt_topo_fatal> ${mistake})
  set_tests_properties(topo_fatal_${mistake} PROPERTIES TIMEOUT 90)
endforeach()
