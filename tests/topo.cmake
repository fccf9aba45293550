# ---- Process topologies and neighbourhood collectives (issue 14) ----
# Cartesian and graph topologies, distributed graphs, and the neighbourhood
# collectives in their three forms, on 1, 2, 7 and 64 ranks over one and
# two workers.
foreach(prog topo_cart topo_graph neighbor_coll)
  zmpi_add_program(zt_${prog} ${prog}.c)
  zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 1x1 2x1 2x2 7x1 7x2 64x2)
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
  zmpi_add_fatal_test(topo_fatal_${mistake} PROGRAM topo_fatal NP 3 WORKERS 2
    REGEX "${call}" "${cls}" "rank [0-9]" ARGS ${mistake})
endforeach()
