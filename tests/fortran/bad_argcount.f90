! bad_argcount.f90: must NOT compile (issue 19: module mpi has explicit
! interfaces).  MPI_Comm_rank is called without its ierror argument, which
! an mpif.h program would only discover at run time.
program bad_argcount
  use mpi
  implicit none
  integer :: rank
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
end program bad_argcount
