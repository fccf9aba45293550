! f08_send_recv_checks.f90: mpi_f08's MPI_Send and MPI_Recv of a scalar or
! a contiguous array go straight to the library's Fortran-handle entries
! (src/mpi/bind_hooks.h, docs/fortran.md "Fast paths"), which check a
! predefined datatype's index in place of the datatype.  Every argument is
! still checked as from C: each bad one is reported to the communicator's
! handler (MPI_ERRORS_RETURN here) with the class C gives and a message
! naming the call, whether its handles are predefined (the entries' own
! checks) or not (converted by MPI_*_f2c).  Messages with predefined and
! user handles, scalars, arrays and sections arrive with their statuses.
! A failed check prints "FAIL rank <r>: <what>" and aborts the job.
module send_recv_checks
  use mpi_f08
  implicit none
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      write(*, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check

  ! The error code ierr is of class cls and its message names call fn.
  subroutine expect(ierr, cls, fn, what)
    integer, intent(in) :: ierr, cls
    character(len=*), intent(in) :: fn, what
    character(len=MPI_MAX_ERROR_STRING) :: estr
    integer :: c, n
    call check(ierr /= MPI_SUCCESS, what // ': not reported')
    call MPI_Error_class(ierr, c)
    call check(c == cls, what // ': wrong error class')
    call MPI_Error_string(ierr, estr, n)
    call check(index(estr(1:n), fn) > 0, what // ': message does not name ' // fn)
  end subroutine expect
end module send_recv_checks

program f08_send_recv_checks
  use mpi_f08
  use send_recv_checks
  implicit none
  integer :: rank, size, ierr, ival, n, peer, i
  integer :: arr(6), big(12)
  double precision :: x
  type(MPI_Status) :: st
  type(MPI_Datatype) :: badtype, pair
  type(MPI_Comm) :: badcomm, dup

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  ival = 1
  arr = 0

  ! Predefined datatype and communicator: the entries' checks.
  call MPI_Send(ival, 1, MPI_INTEGER, size + 3, 0, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_RANK, 'MPI_Send', 'send to an invalid rank')
  call MPI_Recv(ival, 1, MPI_INTEGER, size + 3, 0, MPI_COMM_WORLD, st, ierr)
  call expect(ierr, MPI_ERR_RANK, 'MPI_Recv', 'receive from an invalid rank')
  call MPI_Send(arr, -1, MPI_INTEGER, 0, 0, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_COUNT, 'MPI_Send', 'send of a negative count')
  call MPI_Recv(arr, -2, MPI_REAL8, 0, 0, MPI_COMM_SELF, st, ierr)
  call expect(ierr, MPI_ERR_COUNT, 'MPI_Recv', 'receive of a negative count')
  call MPI_Send(ival, 1, MPI_INTEGER, 0, -7, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_TAG, 'MPI_Send', 'send with a negative tag')
  call MPI_Recv(ival, 1, MPI_INTEGER, 0, -7, MPI_COMM_SELF, st, ierr)
  call expect(ierr, MPI_ERR_TAG, 'MPI_Recv', 'receive with a negative tag')

  ! Handles that are not predefined: converted and checked as from C.
  call MPI_Send(ival, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Send', 'send of MPI_DATATYPE_NULL')
  call MPI_Recv(ival, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_SELF, st, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Recv', 'receive of MPI_DATATYPE_NULL')
  badtype%MPI_VAL = 98765
  call MPI_Send(ival, 1, badtype, 0, 0, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Send', 'send of an index that is no datatype')
  badtype%MPI_VAL = -3
  call MPI_Recv(ival, 1, badtype, 0, 0, MPI_COMM_SELF, st, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Recv', 'receive of a negative datatype index')
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Send(arr, 1, pair, 0, 0, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Send', 'send of an uncommitted datatype')
  call MPI_Type_commit(pair)
  call MPI_Send(ival, 1, MPI_INTEGER, 0, 0, MPI_COMM_NULL, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Send', 'send on MPI_COMM_NULL')
  badcomm%MPI_VAL = 4321
  call MPI_Recv(ival, 1, MPI_INTEGER, 0, 0, badcomm, st, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Recv', 'receive on an index that is no communicator')
  badcomm%MPI_VAL = -1
  call MPI_Send(ival, 1, MPI_INTEGER, 0, 0, badcomm, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Send', 'send on a negative communicator index')

  ! MPI_PROC_NULL through the entries.
  call MPI_Send(ival, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'send to MPI_PROC_NULL')
  call MPI_Recv(ival, 1, MPI_INTEGER, MPI_PROC_NULL, 3, MPI_COMM_WORLD, st, ierr)
  call check(ierr == MPI_SUCCESS .and. st%MPI_SOURCE == MPI_PROC_NULL .and. &
             st%MPI_TAG == MPI_ANY_TAG, 'receive from MPI_PROC_NULL')

  ! Messages in pairs (0 with 1, 2 with 3, ...): a scalar and an array
  ! with predefined handles, a section and a user datatype on a
  ! duplicated communicator, each checked with its status.
  peer = ieor(rank, 1)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  if (peer < size) then
    do i = 1, 12
      big(i) = 100 * rank + i
    end do
    if (mod(rank, 2) == 0) then
      x = rank + 0.5d0
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD)
      call MPI_Send(big, 12, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS, 'send of an array')
      call MPI_Send(big(1:12:2), 6, MPI_INTEGER, peer, 3, dup)
      call MPI_Send(big, 3, pair, peer, 4, dup)
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD, st)
      call check(x == peer + 0.25d0 .and. st%MPI_SOURCE == peer .and. st%MPI_TAG == 5, &
                 'scalar back')
    else
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, st, ierr)
      call check(ierr == MPI_SUCCESS .and. x == peer + 0.5d0, 'scalar received')
      call check(st%MPI_SOURCE == peer .and. st%MPI_TAG == 1, 'status of the scalar')
      call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n)
      call check(n == 1, 'count of the scalar')
      arr = -1
      call MPI_Recv(big, 12, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, st)
      call check(all(big == [(100 * peer + i, i = 1, 12)]), 'array received')
      call MPI_Get_count(st, MPI_INTEGER, n)
      call check(n == 12 .and. st%MPI_SOURCE == peer, 'status of the array')
      big = 0
      call MPI_Recv(big(2:12:2), 6, MPI_INTEGER, peer, 3, dup, st)
      call check(all(big(2:12:2) == [(100 * peer + i, i = 1, 12, 2)]) .and. &
                 all(big(1:11:2) == 0), 'section received')
      call MPI_Recv(arr, 3, pair, peer, MPI_ANY_TAG, dup, st, ierr)
      call check(ierr == MPI_SUCCESS .and. st%MPI_TAG == 4, 'user datatype received')
      call check(all(arr == [(100 * peer + i, i = 1, 6)]), 'user datatype contents')
      x = rank + 0.25d0
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD)
    end if
  end if
  call MPI_Type_free(pair)
  call MPI_Comm_free(dup)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) write(*, '(a)') 'f08_send_recv_checks: OK'
  call MPI_Finalize()
end program f08_send_recv_checks
