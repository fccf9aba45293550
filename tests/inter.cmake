# ---- Intercommunicators and the remaining communicator calls (issue 14) ----
# Two interleaved groups of different sizes (world ranks r % 3 == 0 and the
# rest) on 2, 7 and 64 ranks, one and two workers.
foreach(prog inter_p2p inter_coll inter_merge comm_more inter_wrong)
  zmpi_add_program(zt_${prog} ${prog}.c)
endforeach()
foreach(prog inter_p2p inter_coll inter_merge comm_more)
  zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 2x1 2x2 7x1 7x2 64x2)
endforeach()
# comm_more also runs alone (intercommunicator parts skip themselves).
zmpi_add_mpi_test(comm_more_1x1 PROGRAM comm_more NP 1 WORKERS 1)

# Fatal errors: the job ends by itself with a message naming the call, the
# argument and the class.
function(zmpi_inter_wrong_test mistake np nw)
  zmpi_add_fatal_test(wrong_inter_${mistake} PROGRAM inter_wrong NP ${np} WORKERS ${nw}
                      REGEX ${ARGN} ARGS ${mistake})
endfunction()
zmpi_inter_wrong_test(scan 4 2 "MPI_Scan" "intercommunicator" "MPI_ERR_COMM")
zmpi_inter_wrong_test(bad_root 3 2 "MPI_Bcast" "root=7" "MPI_ERR_ROOT")
zmpi_inter_wrong_test(overlap 4 1 "MPI_Intercomm_create_from_groups" "overlap" "MPI_ERR_GROUP")
# ---- end of intercommunicators ----
