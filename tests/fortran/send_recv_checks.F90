! send_recv_checks.F90: MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv (and
! MPI_Wait, MPI_Waitall) and MPI_Allreduce of a scalar or a contiguous
! array go straight to the library's Fortran-handle entries
! (src/mpi/bind_hooks.h, docs/fortran.md "Fast paths"), which check a
! predefined datatype's index in place of the datatype.  Every argument is
! still checked as from C: each bad one is reported to the communicator's
! handler (MPI_ERRORS_RETURN here) with the class C gives and a message
! naming the call, whether its handles are predefined (the entries' own
! checks) or not (converted by MPI_*_f2c).  Messages with predefined and
! user handles, scalars, arrays and sections arrive with their statuses.
! Built three times: mpi_f08 (-DUSE_F08), module mpi, mpif.h
! (-DUSE_MPIF_H).  A failed check prints "FAIL rank <r>: <what>" and
! aborts the job.
#if defined(USE_F08)
#define USE_MPI use mpi_f08
#define INCLUDE_MPIF_H
#define T_DT type(MPI_Datatype)
#define T_COMM type(MPI_Comm)
#define T_STATUS type(MPI_Status)
#define T_REQ type(MPI_Request)
#define SET_HANDLE(h, v) h%MPI_VAL = v
#define ST_SOURCE(st) st%MPI_SOURCE
#define ST_TAG(st) st%MPI_TAG
#define ST_ERROR(st) st%MPI_ERROR
#define T_STATUSES(n) type(MPI_Status) :: sts(n)
#define STS_SOURCE(i) sts(i)%MPI_SOURCE
#define STS_TAG(i) sts(i)%MPI_TAG
#else
#if defined(USE_MPIF_H)
#define USE_MPI
#define INCLUDE_MPIF_H include 'mpif.h'
#else
#define USE_MPI use mpi
#define INCLUDE_MPIF_H
#endif
#define T_DT integer
#define T_COMM integer
#define T_STATUS integer, dimension(MPI_STATUS_SIZE)
#define T_REQ integer
#define SET_HANDLE(h, v) h = v
#define ST_SOURCE(st) st(MPI_SOURCE)
#define ST_TAG(st) st(MPI_TAG)
#define ST_ERROR(st) st(MPI_ERROR)
#define T_STATUSES(n) integer :: sts(MPI_STATUS_SIZE, n)
#define STS_SOURCE(i) sts(MPI_SOURCE, i)
#define STS_TAG(i) sts(MPI_TAG, i)
#endif
module send_recv_checks
  USE_MPI
  implicit none
  INCLUDE_MPIF_H
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      write(*, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check

  ! The error code ierr is of class cls and its message names call fn.
  subroutine expect(ierr, cls, fn, what)
    integer, intent(in) :: ierr, cls
    character(len=*), intent(in) :: fn, what
    character(len=MPI_MAX_ERROR_STRING) :: estr
    integer :: c, n, ierr2
    call check(ierr /= MPI_SUCCESS, what // ': not reported')
    call MPI_Error_class(ierr, c, ierr2)
    call check(c == cls, what // ': wrong error class')
    call MPI_Error_string(ierr, estr, n, ierr2)
    call check(index(estr(1:n), fn) > 0, what // ': message does not name ' // fn)
  end subroutine expect
end module send_recv_checks

program send_recv_checks_prog
  use send_recv_checks
  implicit none
  integer :: rank, size, ierr, ival, n, peer, i
  integer :: arr(6), big(12)
  double precision :: x
  T_STATUS :: st
  T_DT :: badtype, pair
  T_COMM :: badcomm, dup
  T_REQ :: req, req2, reqs(24)
  T_STATUSES(24)
  integer :: got(12)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
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
  SET_HANDLE(badtype, 98765)
  call MPI_Send(ival, 1, badtype, 0, 0, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Send', 'send of an index that is no datatype')
  SET_HANDLE(badtype, -3)
  call MPI_Recv(ival, 1, badtype, 0, 0, MPI_COMM_SELF, st, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Recv', 'receive of a negative datatype index')
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
  call MPI_Send(arr, 1, pair, 0, 0, MPI_COMM_SELF, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Send', 'send of an uncommitted datatype')
  call MPI_Type_commit(pair, ierr)
  call MPI_Send(ival, 1, MPI_INTEGER, 0, 0, MPI_COMM_NULL, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Send', 'send on MPI_COMM_NULL')
  SET_HANDLE(badcomm, 4321)
  call MPI_Recv(ival, 1, MPI_INTEGER, 0, 0, badcomm, st, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Recv', 'receive on an index that is no communicator')
  SET_HANDLE(badcomm, -1)
  call MPI_Send(ival, 1, MPI_INTEGER, 0, 0, badcomm, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Send', 'send on a negative communicator index')

  ! The nonblocking entries: the same checks, and no request on failure.
  call MPI_Isend(ival, 1, MPI_INTEGER, size + 3, 0, MPI_COMM_WORLD, req, ierr)
  call expect(ierr, MPI_ERR_RANK, 'MPI_Isend', 'isend to an invalid rank')
  call check(req == MPI_REQUEST_NULL, 'failed isend made a request')
  call MPI_Irecv(arr, -2, MPI_INTEGER, 0, 0, MPI_COMM_SELF, req, ierr)
  call expect(ierr, MPI_ERR_COUNT, 'MPI_Irecv', 'irecv of a negative count')
  call check(req == MPI_REQUEST_NULL, 'failed irecv made a request')
  call MPI_Isend(ival, 1, MPI_INTEGER, 0, -7, MPI_COMM_SELF, req, ierr)
  call expect(ierr, MPI_ERR_TAG, 'MPI_Isend', 'isend with a negative tag')
  call MPI_Irecv(ival, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_SELF, req, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Irecv', 'irecv of MPI_DATATYPE_NULL')
  SET_HANDLE(badcomm, 4321)
  call MPI_Isend(ival, 1, MPI_INTEGER, 0, 0, badcomm, req, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Isend', 'isend on an index that is no communicator')
  call check(req == MPI_REQUEST_NULL, 'failed isend on a bad communicator made a request')
  ! To self: the receive's status comes back through MPI_Wait, whose
  ! Fortran MPI_ERROR stays as it was; both requests become null.
  ival = 7
  n = 0
  call MPI_Irecv(n, 1, MPI_INTEGER, 0, 9, MPI_COMM_SELF, req, ierr)
  call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'irecv to self')
  call MPI_Isend(ival, 1, MPI_INTEGER, 0, 9, MPI_COMM_SELF, req2, ierr)
  call check(ierr == MPI_SUCCESS .and. req2 /= MPI_REQUEST_NULL .and. req2 /= req, &
             'isend to self')
  ST_ERROR(st) = 12345
  call MPI_Wait(req, st, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 7 .and. req == MPI_REQUEST_NULL, 'wait of irecv')
  call check(ST_SOURCE(st) == 0 .and. ST_TAG(st) == 9 .and. ST_ERROR(st) == 12345, &
             'status of the wait')
  call MPI_Wait(req2, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. req2 == MPI_REQUEST_NULL, 'wait of isend')
  call MPI_Wait(req2, st, ierr)
  call check(ierr == MPI_SUCCESS .and. ST_SOURCE(st) == MPI_ANY_SOURCE .and. &
             ST_TAG(st) == MPI_ANY_TAG, 'wait of MPI_REQUEST_NULL')
  ! MPI_Waitall's entry: statuses written in place, or ignored; more
  ! requests than its array on the stack holds; a null request among them.
  got = -1
  do i = 1, 12
    call MPI_Irecv(got(i), 1, MPI_INTEGER, 0, i, MPI_COMM_SELF, reqs(i), ierr)
  end do
  big = [(i * 10, i = 1, 12)]
  do i = 1, 12
    call MPI_Isend(big(i), 1, MPI_INTEGER, 0, i, MPI_COMM_SELF, reqs(12 + i), ierr)
  end do
  call MPI_Waitall(24, reqs, sts, ierr)
  call check(ierr == MPI_SUCCESS .and. all(got == [(i * 10, i = 1, 12)]), 'waitall of 24')
  call check(all(reqs == MPI_REQUEST_NULL), 'waitall left a request')
  do i = 1, 12
    call check(STS_SOURCE(i) == 0 .and. STS_TAG(i) == i, 'status of waitall')
  end do
  call MPI_Irecv(n, 1, MPI_INTEGER, 0, 3, MPI_COMM_SELF, reqs(1), ierr)
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Isend(ival, 1, MPI_INTEGER, 0, 3, MPI_COMM_SELF, reqs(3), ierr)
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. n == ival .and. all(reqs(1:3) == MPI_REQUEST_NULL), &
             'waitall with a null request and statuses ignored')
  call MPI_Waitall(-1, reqs, MPI_STATUSES_IGNORE, ierr)
  call expect(ierr, MPI_ERR_COUNT, 'MPI_Waitall', 'waitall of a negative count')

  call MPI_Irecv(ival, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call check(ierr == MPI_SUCCESS .and. ST_SOURCE(st) == MPI_PROC_NULL, 'irecv from MPI_PROC_NULL')

  ! MPI_Allreduce's entry: predefined handles from its tables, the others
  ! converted and reported by the C call; MPI_IN_PLACE and sections take
  ! the general path.
  ival = rank + 1
  call MPI_Allreduce(ival, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. n == size * (size + 1) / 2, 'allreduce of a scalar')
  arr = rank
  call MPI_Allreduce(MPI_IN_PLACE, arr, 6, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(arr == size - 1), 'allreduce in place')
  big = 1
  arr = 0
  call MPI_Allreduce(big(1:12:2), arr, 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(arr == size), 'allreduce of a section')
  call MPI_Allreduce(ival, n, 1, MPI_INTEGER, MPI_OP_NULL, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_OP, 'MPI_Allreduce', 'allreduce with MPI_OP_NULL')
  call MPI_Allreduce(ival, n, -1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_COUNT, 'MPI_Allreduce', 'allreduce of a negative count')
  call MPI_Allreduce(ival, n, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'MPI_Allreduce', 'allreduce of MPI_DATATYPE_NULL')
  SET_HANDLE(badcomm, 4321)
  call MPI_Allreduce(ival, n, 1, MPI_INTEGER, MPI_SUM, badcomm, ierr)
  call expect(ierr, MPI_ERR_COMM, 'MPI_Allreduce', 'allreduce on an index that is no communicator')

  ! MPI_PROC_NULL through the entries.
  call MPI_Send(ival, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'send to MPI_PROC_NULL')
  call MPI_Recv(ival, 1, MPI_INTEGER, MPI_PROC_NULL, 3, MPI_COMM_WORLD, st, ierr)
  call check(ierr == MPI_SUCCESS .and. ST_SOURCE(st) == MPI_PROC_NULL .and. &
             ST_TAG(st) == MPI_ANY_TAG, 'receive from MPI_PROC_NULL')

  ! Messages in pairs (0 with 1, 2 with 3, ...): a scalar and an array
  ! with predefined handles, a section and a user datatype on a
  ! duplicated communicator, each checked with its status.
  peer = ieor(rank, 1)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  if (peer < size) then
    do i = 1, 12
      big(i) = 100 * rank + i
    end do
    if (mod(rank, 2) == 0) then
      x = rank + 0.5d0
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, ierr)
      call MPI_Send(big, 12, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS, 'send of an array')
      call MPI_Send(big(1:12:2), 6, MPI_INTEGER, peer, 3, dup, ierr)
      call MPI_Send(big, 3, pair, peer, 4, dup, ierr)
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD, st, ierr)
      call check(x == peer + 0.25d0 .and. ST_SOURCE(st) == peer .and. ST_TAG(st) == 5, &
                 'scalar back')
    else
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, st, ierr)
      call check(ierr == MPI_SUCCESS .and. x == peer + 0.5d0, 'scalar received')
      call check(ST_SOURCE(st) == peer .and. ST_TAG(st) == 1, 'status of the scalar')
      call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
      call check(n == 1, 'count of the scalar')
      arr = -1
      call MPI_Recv(big, 12, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, st, ierr)
      call check(all(big == [(100 * peer + i, i = 1, 12)]), 'array received')
      call MPI_Get_count(st, MPI_INTEGER, n, ierr)
      call check(n == 12 .and. ST_SOURCE(st) == peer, 'status of the array')
      big = 0
      call MPI_Recv(big(2:12:2), 6, MPI_INTEGER, peer, 3, dup, st, ierr)
      call check(all(big(2:12:2) == [(100 * peer + i, i = 1, 12, 2)]) .and. &
                 all(big(1:11:2) == 0), 'section received')
      call MPI_Recv(arr, 3, pair, peer, MPI_ANY_TAG, dup, st, ierr)
      call check(ierr == MPI_SUCCESS .and. ST_TAG(st) == 4, 'user datatype received')
      call check(all(arr == [(100 * peer + i, i = 1, 6)]), 'user datatype contents')
      x = rank + 0.25d0
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD, ierr)
    end if
  end if
  call MPI_Type_free(pair, ierr)
  call MPI_Comm_free(dup, ierr)

  ! A request index that names no request is MPI_ERR_REQUEST, not a
  ! request that completes at once as MPI_REQUEST_NULL would.  (A copy of
  ! the index of a request since completed is another matter: as a stale
  ! MPI_Request in C, it may name a new request at the same address.)
  SET_HANDLE(req, 77777)
  call MPI_Wait(req, st, ierr)
  call expect(ierr, MPI_ERR_REQUEST, 'MPI_Wait', 'wait on an index that is no request')
  SET_HANDLE(req, -5)
  call MPI_Test(req, flag, st, ierr)
  call expect(ierr, MPI_ERR_REQUEST, 'MPI_Test', 'test of a negative request index')
  reqs(1) = MPI_REQUEST_NULL
  SET_HANDLE(reqs(2), 55555)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(ierr /= MPI_SUCCESS, 'Waitall with an index that is no request: not reported')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(a)') 'send_recv_checks: OK'
  call MPI_Finalize(ierr)
end program send_recv_checks_prog
