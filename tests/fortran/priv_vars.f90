! priv_vars.f90: Fortran globals are private per rank under zmpifort's
! default privatization (issue 19).  Every rank stores its rank in a module
! variable, a COMMON block and a SAVEd local, lets every other rank do the
! same (barriers, with the workers switching ranks in between), then checks
! that it still sees its own value, and rank 0 checks that the values it
! gathers are all different.  Linked with -zmpi-no-privatize the ranks
! share these variables, which this program must detect ("FAIL rank").
module priv_mod
  implicit none
  integer :: modvar = -1
end module priv_mod

subroutine saved(set, value)
  implicit none
  logical, intent(in) :: set
  integer, intent(inout) :: value
  integer, save :: kept = -1
  if (set) then
    kept = value
  else
    value = kept
  end if
end subroutine saved

program priv_vars
  use mpi
  use priv_mod
  implicit none
  integer :: rank, size, ierr, i, v(3), got
  integer, allocatable :: all(:)
  integer :: cvar
  common /privblk/ cvar

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  modvar = rank
  cvar = rank
  got = rank
  call saved(.true., got)
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call saved(.false., got)
  v = (/ modvar, cvar, got /)
  if (any(v /= rank)) then
    write(*, '(a,i0,a,3i6)') 'FAIL rank ', rank, ': module, COMMON, SAVE hold ', v
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  allocate(all(3 * size))
  call MPI_Gather(v, 3, MPI_INTEGER, all, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 0, size - 1
      if (any(all(3 * i + 1:3 * i + 3) /= i)) then
        write(*, '(a,i0,a)') 'FAIL rank ', i, ': gathered values are not its own'
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end do
    write(*, '(a)') 'priv_vars: OK'
  end if
  call MPI_Finalize(ierr)
end program priv_vars
