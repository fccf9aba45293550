! f08_basic.f90: the basics through module mpi_f08 (issue 19), verified by
! the program itself on any number of ranks: point-to-point with statuses
! and MPI_ANY_SOURCE, non-blocking calls and MPI_Waitall, collectives
! (MPI_IN_PLACE included), derived datatypes and a non-contiguous array
! section, communicators, a Fortran user operation, attributes, errors
! returned as codes, string arguments, MPI_Wtime.  A failed check prints
! "FAIL rank <r>: <what>" and aborts the job.
module f08_check
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

  ! A user operation: inoutvec = invec + inoutvec + 1 (commutative and
  ! associative: n ranks give the sum plus n - 1).
  subroutine plus_one(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype == MPI_INTEGER) b = a + b + 1
  end subroutine plus_one

  ! The same as a large-count user operation (MPI_Op_create_c).
  subroutine plus_one_c(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype == MPI_INTEGER) b = a + b + 1
  end subroutine plus_one_c

  subroutine count_delete(comm, keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    integer, save :: deleted = 0
    deleted = deleted + 1
    ! extra_state is where the test wants the count (its own variable).
    if (attribute_val /= 42 .or. extra_state /= 7) deleted = -1000
    call record_deletes(deleted)
    ierror = MPI_SUCCESS
  end subroutine count_delete

  ! Generalized request callbacks: the query reports source 5 and tag 6.
  subroutine greq_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    status%MPI_SOURCE = 5
    status%MPI_TAG = int(extra_state)
    call MPI_Status_set_elements(status, MPI_INTEGER, 0)
    call MPI_Status_set_cancelled(status, .false.)
    ierror = MPI_SUCCESS
  end subroutine greq_query

  subroutine greq_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer :: freed
    common /f08greq/ freed
    freed = freed + int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine greq_free

  subroutine greq_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine greq_cancel

  subroutine record_deletes(n)
    integer, intent(in) :: n
    integer :: last
    common /f08del/ last
    last = n
  end subroutine record_deletes
end module f08_check

program f08_basic
  use mpi_f08
  use f08_check
  implicit none
  integer :: rank, size, left, right, i, n, ierr, cls, flag_i
  integer :: ibuf(10), jbuf(10), ival, isum, counts
  integer, allocatable :: gath(:), sendall(:), recvall(:)
  double precision :: dbuf(5), dsum, t0, t1
  type(MPI_Status) :: status, statuses(4)
  type(MPI_Request) :: reqs(4)
  type(MPI_Datatype) :: vec, sub
  type(MPI_Comm) :: half, dup
  type(MPI_Op) :: op
  integer :: keyval, result, last
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  integer :: grid(4, 4), part(2, 2)
  common /f08del/ last
  integer :: freed
  common /f08greq/ freed
  integer(kind=MPI_COUNT_KIND) :: bigcount
  logical :: lval, lall, periods(2)
  integer :: dims(2), coords(2)
  type(MPI_Comm) :: cart
  type(MPI_Datatype) :: f90type
  integer, allocatable :: wcounts(:), wdispls(:)
  type(MPI_Datatype), allocatable :: wtypes(:)

  last = 0
  call MPI_Init()
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  left = mod(rank - 1 + size, size)
  right = mod(rank + 1, size)

  ! Point to point: a ring, received from MPI_ANY_SOURCE with a status.
  ibuf(1:3) = [rank, rank * 10, 7]
  call MPI_Isend(ibuf, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(1))
  call MPI_Recv(jbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, status)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check(reqs(1) == MPI_REQUEST_NULL, 'request not MPI_REQUEST_NULL after MPI_Wait')
  call check(status%MPI_SOURCE == left, 'status%MPI_SOURCE')
  call check(status%MPI_TAG == 7, 'status%MPI_TAG')
  call MPI_Get_count(status, MPI_INTEGER, counts)
  call check(counts == 3, 'MPI_Get_count')
  call check(all(jbuf(1:3) == [left, left * 10, 7]), 'ring data')
  call MPI_Recv(jbuf, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == MPI_PROC_NULL, 'receive from MPI_PROC_NULL')

  ! Non-blocking both ways and MPI_Waitall with statuses.
  call MPI_Irecv(jbuf(1), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(jbuf(2), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2))
  ibuf(1) = rank + 100
  ibuf(2) = rank + 200
  call MPI_Isend(ibuf(1), 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(ibuf(2), 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(4))
  call MPI_Waitall(4, reqs, statuses)
  call check(jbuf(1) == left + 100 .and. jbuf(2) == right + 200, 'MPI_Waitall data')
  call check(statuses(1)%MPI_SOURCE == left .and. statuses(2)%MPI_TAG == 2, &
             'MPI_Waitall statuses')

  ! Collectives.
  dbuf = 0
  if (rank == 0) dbuf = [(1.5d0 * i, i = 1, 5)]
  call MPI_Bcast(dbuf, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call check(all(dbuf == [(1.5d0 * i, i = 1, 5)]), 'MPI_Bcast')
  call MPI_Allreduce(dble(rank), dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(dsum == dble(size) * (size - 1) / 2, 'MPI_Allreduce MPI_DOUBLE_PRECISION')
  call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(isum == size * (size + 1) / 2, 'MPI_Allreduce MPI_INTEGER')
  ival = rank
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(ival == size - 1, 'MPI_Allreduce MPI_IN_PLACE')
  allocate(gath(size), sendall(size), recvall(size))
  call MPI_Gather(rank * 3, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(gath == [(3 * i, i = 0, size - 1)]), 'MPI_Gather')
  sendall = [(rank * 1000 + i, i = 0, size - 1)]
  call MPI_Alltoall(sendall, 1, MPI_INTEGER, recvall, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(recvall == [(i * 1000 + rank, i = 0, size - 1)]), 'MPI_Alltoall')

  ! MPI_Ialltoallw: arrays of datatypes the glue converts and keeps until
  ! the request completes (allocated beyond 16 ranks).
  allocate(wcounts(size), wdispls(size), wtypes(size))
  wcounts = 1
  wdispls = [(4 * i, i = 0, size - 1)]
  wtypes = MPI_INTEGER
  recvall = -1
  call MPI_Ialltoallw(sendall, wcounts, wdispls, wtypes, recvall, wcounts, wdispls, wtypes, &
                      MPI_COMM_WORLD, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check(all(recvall == [(i * 1000 + rank, i = 0, size - 1)]), 'MPI_Ialltoallw')

  ! Derived datatypes: every other element, and a 2x2 block of a 4x4 array.
  ibuf = [(rank * 100 + i, i = 1, 10)]
  jbuf = -1
  call MPI_Type_vector(5, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Sendrecv(ibuf, 1, vec, right, 3, jbuf, 5, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, status)
  call check(all(jbuf(1:5) == [(left * 100 + i, i = 1, 10, 2)]), 'MPI_Type_vector')
  call MPI_Type_free(vec)
  grid = reshape([(i, i = 1, 16)], [4, 4])
  call MPI_Type_create_subarray(2, [4, 4], [2, 2], [1, 2], MPI_ORDER_FORTRAN, MPI_INTEGER, sub)
  call MPI_Type_commit(sub)
  call MPI_Sendrecv(grid, 1, sub, rank, 4, part, 4, MPI_INTEGER, rank, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(part == grid(2:3, 3:4)), 'MPI_Type_create_subarray')
  call MPI_Type_free(sub)
  ! A non-contiguous array section as a choice buffer.
  jbuf = -1
  call MPI_Sendrecv(ibuf(1:10:2), 5, MPI_INTEGER, right, 5, jbuf(2:10:2), 5, MPI_INTEGER, &
                    left, 5, MPI_COMM_WORLD, status)
  call check(all(jbuf(2:10:2) == [(left * 100 + i, i = 1, 10, 2)]) .and. &
             all(jbuf(1:9:2) == -1), 'non-contiguous array sections')
  ! Sections the counts do not fill: a blocking call works on copies.
  jbuf = -1
  call MPI_Sendrecv(ibuf(1:10:2), 3, MPI_INTEGER, right, 6, jbuf(1:10:3), 3, MPI_INTEGER, &
                    left, 6, MPI_COMM_WORLD, status)
  call check(all(jbuf([1, 4, 7]) == [(left * 100 + i, i = 1, 5, 2)]) .and. &
             count(jbuf == -1) == 7, 'partly filled array sections')

  ! Communicators.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, n)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split size')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, result)
  call check(result == MPI_CONGRUENT, 'MPI_Comm_dup congruent')
  call check(dup /= MPI_COMM_WORLD, 'handles compare with /=')
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')

  ! A Fortran user operation.
  call MPI_Op_create(plus_one, .true., op)
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(isum == size * (size - 1) / 2 + size - 1, 'MPI_Op_create user function')
  call MPI_Op_free(op)
  call MPI_Op_create_c(plus_one_c, .true., op)
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(isum == size * (size - 1) / 2 + size - 1, 'MPI_Op_create_c user function')
  call MPI_Op_free(op)

  ! Attributes: a keyval with a Fortran delete function, MPI_TAG_UB.
  extra = 7
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, keyval, extra)
  aval = 42
  call MPI_Comm_set_attr(dup, keyval, aval)
  aval = 0
  call MPI_Comm_get_attr(dup, keyval, aval, flag)
  call check(flag .and. aval == 42, 'MPI_Comm_get_attr of a user attribute')
  call MPI_Comm_delete_attr(dup, keyval)
  call check(last == 1, 'Fortran delete callback')
  call MPI_Comm_get_attr(dup, keyval, aval, flag)
  call check(.not. flag, 'attribute deleted')
  call MPI_Comm_free_keyval(keyval)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag)
  call check(flag .and. aval >= 32767, 'MPI_TAG_UB')

  ! Errors as codes, with optional ierror present.
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(ival, 1, MPI_INTEGER, size + 5, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'invalid rank not reported')
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'error class MPI_ERR_RANK')
  call MPI_Error_string(ierr, estr, n)
  call check(n > 0 .and. n == len_trim(estr), 'MPI_Error_string length')
  ! A non-contiguous section a count reaches beyond, in a nonblocking
  ! call: a clear error, to the communicator's handler (MPI_ERRORS_RETURN
  ! here), and nothing sent.  (A count covering part of it is fine:
  ! f08_sections.f90.)
  call MPI_Isend(ibuf(1:10:2), 6, MPI_INTEGER, rank, 0, dup, reqs(1), ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_BUFFER, 'count beyond the section: MPI_ERR_BUFFER')
  call MPI_Comm_free(dup, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror present')

  ! Strings with Fortran lengths.
  call MPI_Comm_set_name(MPI_COMM_SELF, 'fortran self   ')
  call MPI_Comm_get_name(MPI_COMM_SELF, name, n)
  call check(n == 12 .and. name == 'fortran self', 'MPI_Comm_set_name/get_name')
  call MPI_Get_processor_name(pname, n)
  call check(n > 0 .and. n == len_trim(pname), 'MPI_Get_processor_name')
  call MPI_Initialized(flag)
  call check(flag, 'MPI_Initialized')

  ! LOGICAL data and LOGICAL arguments.
  lval = rank == 0
  call MPI_Allreduce(lval, lall, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
  call check(lall, 'MPI_Allreduce of MPI_LOGICAL with MPI_LOR')
  call MPI_Allreduce(lval, lall, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(lall .eqv. (size == 1), 'MPI_Allreduce of MPI_LOGICAL with MPI_LAND')
  dims = [size, 1]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.true., .false.], .false., cart)
  call MPI_Cart_get(cart, 2, dims, periods, coords)
  call check(periods(1) .and. .not. periods(2) .and. coords(1) == rank, &
             'MPI_Cart_get LOGICAL periods')
  call MPI_Comm_free(cart)

  ! A large count (INTEGER(KIND=MPI_COUNT_KIND): the MPI_Send_c overload).
  bigcount = 3
  ibuf(1:3) = [rank, 2 * rank, 3 * rank]
  call MPI_Sendrecv(ibuf, bigcount, MPI_INTEGER, right, 8, jbuf, bigcount, MPI_INTEGER, &
                    left, 8, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, bigcount)
  call check(bigcount == 3 .and. all(jbuf(1:3) == [left, 2 * left, 3 * left]), &
             'large-count MPI_Sendrecv and MPI_Get_count')

  ! MPI_TYPE_CREATE_F90_REAL and MPI_SIZEOF.
  call MPI_Type_create_f90_real(15, 307, f90type)
  call MPI_Type_size(f90type, n)
  call MPI_Sizeof(dsum, counts)
  call check(n == 8 .and. counts == 8, 'MPI_Type_create_f90_real / MPI_Sizeof')
  dsum = rank + 0.25d0
  call MPI_Sendrecv(dsum, 1, f90type, right, 9, dbuf, 1, f90type, left, 9, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(dbuf(1) == left + 0.25d0, 'send with an MPI_TYPE_CREATE_F90_REAL type')

  ! A generalized request with Fortran callbacks.
  freed = 0
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, 6_MPI_ADDRESS_KIND, reqs(1))
  call MPI_Grequest_complete(reqs(1))
  call MPI_Wait(reqs(1), status)
  call check(status%MPI_SOURCE == 5 .and. status%MPI_TAG == 6, 'MPI_Grequest query')
  call check(freed == 6, 'MPI_Grequest free callback')

  t1 = MPI_Wtime()
  call check(t1 >= t0 .and. MPI_Wtick() > 0, 'MPI_Wtime')
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
  flag_i = 0
  if (rank == 0) write(*, '(a)') 'f08_basic: OK'
end program f08_basic
