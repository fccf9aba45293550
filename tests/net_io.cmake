# MPI-IO across processes (docs/net.md, "Files across processes"): the
# file tests of tests/io.cmake re-run as several processes for every
# network backend that was built.  Each process opens the file itself; the
# shared file pointer, MPI_MODE_EXCL creation, deletion on close, atomic
# mode and the aggregation of collective accesses are job-wide.

# net_io_cross checks what is job-wide specifically; it runs in one
# process too, where the same holds.
zmpi_add_program(zt_net_io_cross net_io_cross.c)
zmpi_add_mpi_layouts(net_io_cross PROGRAM net_io_cross LAYOUTS 1x1 4x2 7x2)
# net_io_agg checks collective accesses aggregated across processes byte
# for byte and counts their system calls; in one process the in-process
# aggregation must give the same.
zmpi_add_program(zt_net_io_agg net_io_agg.c)
zmpi_add_mpi_layouts(net_io_agg PROGRAM net_io_agg LAYOUTS 1x1 4x2 7x2)

if(NOT ZMPI_NET_BACKENDS)
  return()
endif()

# zmpi_add_net_test comes from tests/net.cmake (read before this file).
set(ZT_NET_IO_PROGRAMS io_basic io_views io_coll io_shared io_nbc io_ext32 net_io_cross
                        net_io_agg)

foreach(be ${ZMPI_NET_BACKENDS})
  foreach(prog ${ZT_NET_IO_PROGRAMS})
    # 2 processes x 3 ranks, interleaved: neighbouring ranks' pieces of
    # a collective access are in different processes.
    zmpi_add_net_test(net_${be}_${prog}_2px3i PROGRAM ${prog} NP 6 PROCS 2 BACKEND ${be}
                      OPTS --interleave)
  endforeach()
  # 3 processes x 1 rank: every rank's file object is its process's own.
  zmpi_add_net_test(net_${be}_net_io_cross_3px1 PROGRAM net_io_cross NP 3 PROCS 3
                    BACKEND ${be})
  zmpi_add_net_test(net_${be}_net_io_agg_3px1 PROGRAM net_io_agg NP 3 PROCS 3
                    BACKEND ${be})
endforeach()
