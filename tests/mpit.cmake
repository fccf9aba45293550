# ---- MPI_T tool information interface (mpit.c) ----
# Variables, categories and enumerations; the eager threshold written at
# run time moves messages between the eager and rendezvous counters; the
# unexpected queue's level and high-water mark; the collective fast-path
# counter; MPI_T_ERR_* codes.  Pairs of ranks, and an odd rank alone.
zmpi_add_program(zt_mpit_basic mpit_basic.c)
target_link_libraries(zt_mpit_basic PRIVATE Threads::Threads)
zmpi_add_mpi_layouts(mpit_basic PROGRAM mpit_basic LAYOUTS 1x1 2x1 2x2 7x2 64x2)
# Events: sources and event types enumerated, callbacks on unexpected
# arrivals, matched receives and rendezvous starts with their data, safety
# levels and timestamps; handles bound to a duplicate, freed handles,
# dropped events and their handler, MPI_T_ERR_* codes.
zmpi_add_program(zt_mpit_events mpit_events.c)
zmpi_add_mpi_layouts(mpit_events PROGRAM mpit_events LAYOUTS 1x1 2x1 2x2 7x2)
# ---- end of MPI_T ----
