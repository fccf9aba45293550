! halo.f90: a halo exchange through module mpi_f08 (issue 19).  Each rank
! owns rows 1..NR of a global grid of 4*size rows and M columns, stored in
! u(0:NR+1, 0:M+1) (Fortran order: a row is not contiguous).  The halo rows
! go to the neighbours twice: once described by a derived datatype
! (MPI_Type_vector of a row) starting at u(1, 1), once as the array sections
! u(NR, 1:M) themselves, passed to the choice buffer without a copy.  Both
! must give the neighbours' boundary rows.  Non-periodic: the first and
! last rank talk to MPI_PROC_NULL.
program halo
  use mpi_f08
  implicit none
  integer, parameter :: NR = 4, M = 6
  double precision :: u(0:NR + 1, 0:M + 1)
  integer :: rank, size, up, down, i, j
  type(MPI_Datatype) :: row
  logical :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  up = merge(MPI_PROC_NULL, rank - 1, rank == 0)
  down = merge(MPI_PROC_NULL, rank + 1, rank == size - 1)

  call MPI_Type_vector(M, 1, NR + 2, MPI_DOUBLE_PRECISION, row)
  call MPI_Type_commit(row)
  call fill()
  call MPI_Sendrecv(u(1, 1), 1, row, up, 1, u(NR + 1, 1), 1, row, down, 1, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call MPI_Sendrecv(u(NR, 1), 1, row, down, 2, u(0, 1), 1, row, up, 2, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call verify('derived datatype')
  call MPI_Type_free(row)

  call fill()
  call MPI_Sendrecv(u(1, 1:M), M, MPI_DOUBLE_PRECISION, up, 3, u(NR + 1, 1:M), M, &
                    MPI_DOUBLE_PRECISION, down, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Sendrecv(u(NR, 1:M), M, MPI_DOUBLE_PRECISION, down, 4, u(0, 1:M), M, &
                    MPI_DOUBLE_PRECISION, up, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call verify('array sections')
  call MPI_Finalize()
  if (rank == 0) write(*, '(a)') 'halo: OK'

contains

  ! The value of global row g, column j.
  double precision function val(g, j)
    integer, intent(in) :: g, j
    val = 1000 * g + j
  end function val

  subroutine fill()
    u = -1
    do j = 1, M
      do i = 1, NR
        u(i, j) = val(rank * NR + i, j)
      end do
    end do
  end subroutine fill

  subroutine verify(what)
    character(len=*), intent(in) :: what
    ok = .true.
    do j = 1, M
      if (up /= MPI_PROC_NULL) ok = ok .and. u(0, j) == val(rank * NR, j)
      if (up == MPI_PROC_NULL) ok = ok .and. u(0, j) == -1
      if (down /= MPI_PROC_NULL) ok = ok .and. u(NR + 1, j) == val(rank * NR + NR + 1, j)
      if (down == MPI_PROC_NULL) ok = ok .and. u(NR + 1, j) == -1
    end do
    ! Corners and the interior are untouched.
    ok = ok .and. all(u(:, 0) == -1) .and. all(u(:, M + 1) == -1)
    ok = ok .and. all(u(1:NR, 1:M) == reshape([((val(rank * NR + i, j), i = 1, NR), &
                                                 j = 1, M)], [NR, M]))
    if (.not. ok) then
      write(*, '(a,i0,a,a)') 'FAIL rank ', rank, ': halo exchange with ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine verify
end program halo
