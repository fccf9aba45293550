# Collectives across processes whose ranks disagree (docs/net.md,
# "Collectives"): each mistake of tests/net_coll_wrong.c under
# MPI_ERRORS_RETURN (the ranks that see it get the one-process error, none
# waits forever) and under MPI_ERRORS_ARE_FATAL (the job ends with the
# message), for every network backend that was built, as 2 processes x 3
# ranks interleaved and 3 processes x 1 rank; and in one process with the
# collectives forced onto their message path (ZMPI_COLL_NET=1, pseudo
# processes), which needs no system MPI.  Read after tests/net.cmake,
# whose zmpi_add_net_test it uses.

zmpi_add_program(zt_net_coll_wrong net_coll_wrong.c)
# Hierarchical non-blocking and persistent collectives (net_hnbc.c); in one
# process as well, and with the collectives forced onto the message path.
zmpi_add_program(zt_net_coll_nbh net_coll_nbh.c)
zmpi_add_mpi_layouts(net_coll_nbh PROGRAM net_coll_nbh LAYOUTS 1x1 4x2 7x2)
foreach(layout 3x2 7x2)
  string(REPLACE "x" ";" lw ${layout})
  list(GET lw 0 np)
  list(GET lw 1 nw)
  zmpi_add_mpi_test(net_forced_coll_nbh_${layout} PROGRAM net_coll_nbh NP ${np} WORKERS ${nw})
  set_tests_properties(net_forced_coll_nbh_${layout} PROPERTIES
    ENVIRONMENT "MPIEXEC_TIMEOUT=120;ZMPI_COLL_NET=1")
endforeach()

set(ZT_NET_COLL_MISTAKES kind root op type count gather big nbkind nbcount)

foreach(m ${ZT_NET_COLL_MISTAKES} bigsmall)
  zmpi_add_mpi_test(net_forced_coll_wrong_${m}_3x2 PROGRAM net_coll_wrong NP 3 WORKERS 2
                    ARGS ${m} return TIMEOUT 60)
  set_tests_properties(net_forced_coll_wrong_${m}_3x2 PROPERTIES
    ENVIRONMENT "MPIEXEC_TIMEOUT=60;ZMPI_COLL_NET=1")
endforeach()

# Ranks of one process that split between the fast Bcast (rank 1, whose
# amount fits it) and the general one (the others): the general path's
# ranks report instead of waiting for rank 1 (src/coll/fast.c,
# zm_coll_bcast_split); both hung before.  Forced onto the message path with
# rank 1 sharing its pseudo process, and plainly in one process.
zmpi_add_mpi_test(net_forced_coll_bcast_split_4x2 PROGRAM net_coll_wrong NP 4 WORKERS 2
                  ARGS bigsmall return TIMEOUT 60)
set_tests_properties(net_forced_coll_bcast_split_4x2 PROPERTIES
  ENVIRONMENT "MPIEXEC_TIMEOUT=60;ZMPI_COLL_NET=1")
zmpi_add_mpi_test(net_coll_bcast_split_3x2 PROGRAM net_coll_wrong NP 3 WORKERS 2
                  ARGS bigsmall return TIMEOUT 60)
set_tests_properties(net_coll_bcast_split_3x2 PROPERTIES ENVIRONMENT "MPIEXEC_TIMEOUT=60")

if(NOT ZMPI_NET_BACKENDS)
  return()
endif()

# zmpi_add_net_coll_fatal(<mistake> REGEX <re>...): the mistake under
# MPI_ERRORS_ARE_FATAL as 2 processes x 3 ranks interleaved; the job must
# end by itself with the message, leaving no process behind.
function(zmpi_add_net_coll_fatal mistake)
  foreach(be ${ZMPI_NET_BACKENDS})
    zmpi_add_net_fatal(net_${be}_coll_fatal_${mistake}_2px3i PROGRAM net_coll_wrong NP 6
                       PROCS 2 BACKEND ${be} OPTS --interleave ${ARGN} ARGS ${mistake} fatal)
  endforeach()
endfunction()

foreach(be ${ZMPI_NET_BACKENDS})
  zmpi_add_net_test(net_${be}_net_coll_nbh_2px3i PROGRAM net_coll_nbh NP 6 PROCS 2
                    BACKEND ${be} OPTS --interleave)
  zmpi_add_net_test(net_${be}_net_coll_nbh_2px4 PROGRAM net_coll_nbh NP 8 PROCS 2
                    BACKEND ${be})
  zmpi_add_net_test(net_${be}_net_coll_nbh_3px1 PROGRAM net_coll_nbh NP 3 PROCS 3
                    BACKEND ${be})
  foreach(m ${ZT_NET_COLL_MISTAKES})
    zmpi_add_net_test(net_${be}_coll_wrong_${m}_2px3i PROGRAM net_coll_wrong NP 6 PROCS 2
                      BACKEND ${be} OPTS --interleave ARGS ${m} return)
  endforeach()
  # late and nblate need the last rank in another process than rank 0
  # (see tests/net_coll_wrong.c); bigsmall here has rank 1 share its
  # process with ranks 3 and 5, which split from it in the in-process Bcast.
  foreach(m late nblate bigsmall)
    zmpi_add_net_test(net_${be}_coll_wrong_${m}_2px3i PROGRAM net_coll_wrong NP 6 PROCS 2
                      BACKEND ${be} OPTS --interleave ARGS ${m} return)
  endforeach()
  foreach(m ${ZT_NET_COLL_MISTAKES} bigsmall late nblate)
    zmpi_add_net_test(net_${be}_coll_wrong_${m}_3px1 PROGRAM net_coll_wrong NP 3 PROCS 3
                      BACKEND ${be} ARGS ${m} return)
  endforeach()
endforeach()

zmpi_add_net_coll_fatal(kind REGEX "MPI_ERR_NOT_SAME" "MPI_Bcast")
zmpi_add_net_coll_fatal(op REGEX "MPI_ERR_OP" "op=MPI_MAX" "op=MPI_SUM")
zmpi_add_net_coll_fatal(big REGEX "MPI_Bcast" "MPI_ERR_TRUNCATE")
zmpi_add_net_coll_fatal(nbkind REGEX "MPI_ERR_NOT_SAME" "MPI_Wait")
