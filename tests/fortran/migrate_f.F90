! migrate_f.F90: zmpi's migration extensions from Fortran (tests/fortran.cmake,
! docs/fortran.md).  The ranks call ZMPI_MIGRATE with the hint
! zmpi_lb=rotate several times, between ring exchanges, and check that
! their module data, COMMON block, ALLOCATABLE array and locals are still
! theirs and that the ring still delivers the right values.  They also
! state loads with ZMPI_SET_LOAD, and check that bad input comes back as
! the right MPI error through MPI_ERRORS_RETURN: a negative load
! (MPI_ERR_ARG) and an unknown strategy (MPI_ERR_INFO_VALUE), which also
! shows that the info handle reached the C call.  Built with module
! mpi_f08, with -DUSE_MPI module mpi, and with -DUSE_MPIF_H mpif.h.
module mig_state
  implicit none
  integer :: mine = -1
end module mig_state

program migrate_f
#if defined(USE_MPI)
  use mpi
#elif !defined(USE_MPIF_H)
  use mpi_f08
#endif
  use mig_state
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer, parameter :: moves = 12
  integer :: cblk(4)
  common /migblk/ cblk
  integer, allocatable :: arr(:)
  integer :: rank, size, ierr, i, next, prev, got, cls, bad
#if defined(USE_MPI) || defined(USE_MPIF_H)
  integer :: hints, badhints
#else
  type(MPI_Info) :: hints, badhints
#endif

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  if (ZMPI_HAS_MIGRATE /= 1 .or. ZMPI_HAS_CHECKPOINT /= 1) then
    write(*, '(a,i0)') 'FAIL: ZMPI_HAS_MIGRATE/ZMPI_HAS_CHECKPOINT wrong on rank ', rank
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  mine = rank
  cblk = (/ rank, 2 * rank, 3 * rank, 4 * rank /)
  allocate(arr(1000))
  arr = (/ (rank * 1000 + i, i = 1, 1000) /)
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  call MPI_Info_create(hints, ierr)
  call MPI_Info_set(hints, 'zmpi_lb', 'rotate', ierr)
  bad = 0
  do i = 1, moves
    call ZMPI_Set_load(dble(rank + i), ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    call ZMPI_Migrate(hints, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    call MPI_Sendrecv(arr(i), 1, MPI_INTEGER, next, i, got, 1, MPI_INTEGER, prev, i, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS .or. got /= prev * 1000 + i) bad = bad + 1
    if (mine /= rank .or. any(cblk /= (/ rank, 2 * rank, 3 * rank, 4 * rank /))) bad = bad + 1
    arr(i) = arr(i) + got
  end do
  do i = 1, 1000
    if (i <= moves) then
      if (arr(i) /= rank * 1000 + i + prev * 1000 + i) bad = bad + 1
    else if (arr(i) /= rank * 1000 + i) then
      bad = bad + 1
    end if
  end do
  ! Errors: returned (MPI_ERRORS_RETURN), with their classes.
  call ZMPI_Set_load(-1.0d0, ierr)
  call MPI_Error_class(ierr, cls, i)
  if (cls /= MPI_ERR_ARG) bad = bad + 1
  call MPI_Info_create(badhints, ierr)
  call MPI_Info_set(badhints, 'zmpi_lb', 'sideways', ierr)
  call ZMPI_Migrate(badhints, ierr)
  call MPI_Error_class(ierr, cls, i)
  if (cls /= MPI_ERR_INFO_VALUE) bad = bad + 1
  call MPI_Info_free(badhints, ierr)
  call MPI_Info_free(hints, ierr)
  if (bad /= 0) then
    write(*, '(a,i0,a,i0,a)') 'FAIL rank ', rank, ': ', bad, ' wrong values or codes'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(a,i0,a)') 'migrate_f: ', moves, ' moves: OK'
  deallocate(arr)
  call MPI_Finalize(ierr)
end program migrate_f
