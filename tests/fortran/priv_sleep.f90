! priv_sleep.f90: gfortran's SLEEP intrinsic in a privatized program parks
! only the calling rank (src/mpi/launch_sleep.c): 8 ranks on 2 workers
! each sleeping 1 s take about 1 s, not the 4 s of a sleep that blocks
! its worker.  Prints ": OK" when the sleeps overlapped.
program priv_sleep
  use mpi
  implicit none
  integer :: ierr, rank
  double precision :: t0, t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  call sleep(1)
  t = MPI_Wtime() - t0
  if (t < 1.0d0) then
    print '(A,I0,A)', 'FAIL rank ', rank, ': sleep(1) ended early'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t = MPI_Wtime() - t0
  if (rank == 0) then
    if (t < 2.5d0) then
      print '(A,F6.3,A)', 'fortran sleep(1) on every rank: ', t, ' s: OK'
    else
      print '(A,F6.3,A)', 'FAIL: the sleeps did not overlap (', t, ' s)'
    end if
  end if
  call MPI_Finalize(ierr)
end program priv_sleep
