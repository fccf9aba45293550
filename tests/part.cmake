# ---- Partitioned communication (issue 15) ----
zmpi_add_program(zt_part_basic part_basic.c)
zmpi_add_program(zt_part_errors part_errors.c)
zmpi_add_mpi_layouts(part_basic PROGRAM part_basic LAYOUTS 1x1 2x1 2x2 7x2 64x1 64x2)
zmpi_add_mpi_layouts(part_errors PROGRAM part_errors LAYOUTS 1x1 2x2 7x2)
# Fatal error: the message names the call, the argument and the rank.
zmpi_add_fatal_test(part_errors_ready_twice PROGRAM part_errors NP 2 WORKERS 2
  REGEX "MPI_Pready" "partition=1" "already marked ready" "rank [0-9]" ARGS fatal)

# ---- Buffered mode per communicator (issue 15) ----
zmpi_add_program(zt_bufmode_comm bufmode_comm.c)
zmpi_add_mpi_layouts(bufmode_comm PROGRAM bufmode_comm LAYOUTS 1x1 2x1 2x2 7x2 64x2)

# Empty partitioned messages: partitions arrive only once readied.
zmpi_add_program(zt_part_empty part_empty.c)
zmpi_add_mpi_layouts(part_empty PROGRAM part_empty LAYOUTS 1x1 2x2 7x2)
