! mpi_basic.F90: the basics through module mpi, or through mpif.h when
! compiled with -DUSE_MPIF_H (issue 19), verified by the program itself on
! any number of ranks: point-to-point with integer-array statuses and
! MPI_ANY_SOURCE, non-blocking calls and MPI_Waitall, collectives
! (MPI_IN_PLACE included), derived datatypes, communicators, a Fortran
! user operation, attributes (also the MPI-1 MPI_KEYVAL_CREATE and
! MPI_ATTR_*), errors returned as codes, string arguments,
! MPI_Wtime.  A failed check prints "FAIL rank <r>: <what>" and aborts.
subroutine check(ok, what)
#ifdef USE_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  logical, intent(in) :: ok
  character(len=*), intent(in) :: what
  integer :: rank, ierr
  if (.not. ok) then
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    write(*, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
end subroutine check

! A user operation: inoutvec = invec + inoutvec + 1 (commutative and
! associative: n ranks give the sum plus n - 1).
subroutine plus_one(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype
  integer :: invec(len), inoutvec(len)
  inoutvec = invec + inoutvec + 1
end subroutine plus_one

subroutine count_delete(comm, keyval, attribute_val, extra_state, ierror)
#ifdef USE_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  integer :: comm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  ! One counter per rank: built with -zmpi-no-privatize, the ranks share
  ! this COMMON block.
  integer :: last(0:1023), rank
  common /mpidel/ last
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  last(rank) = last(rank) + 1
  if (attribute_val /= 42 .or. extra_state /= 7) last(rank) = -1000
  ierror = MPI_SUCCESS
end subroutine count_delete

! An MPI-1 copy callback (MPI_KEYVAL_CREATE): default INTEGER values; the
! copy gets the value plus the extra state.
subroutine add_copy(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, &
                    flag, ierr)
  implicit none
  integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierr
  logical :: flag
  attribute_val_out = attribute_val_in + extra_state
  flag = .true.
  ierr = 0
end subroutine add_copy

! Its delete callback counts by hundreds, like count_delete by ones.
subroutine count_delete1(comm, keyval, attribute_val, extra_state, ierr)
#ifdef USE_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  integer :: comm, keyval, attribute_val, extra_state, ierr
  integer :: last(0:1023), rank
  common /mpidel/ last
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  last(rank) = last(rank) + 100
  if (extra_state /= 5 .or. (attribute_val /= 11 .and. attribute_val /= 16)) &
    last(rank) = -1000
  ierr = MPI_SUCCESS
end subroutine count_delete1

program mpi_basic
#ifdef USE_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  external plus_one, count_delete, add_copy, count_delete1
  integer :: rank, size, left, right, i, n, ierr, cls
  integer :: ibuf(10), jbuf(10), ival, isum, counts
  integer, allocatable :: gath(:), sendall(:), recvall(:)
  double precision :: dbuf(5), dsum, t0, t1, drank
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4)
  integer :: reqs(4), vec, sub, half, dup, op, keyval, result, last(0:1023)
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  integer :: grid(4, 4), part(2, 2)
  common /mpidel/ last
  integer :: info
  character(len=MPI_MAX_INFO_KEY) :: ikey
  character(len=40) :: ival_s

  call MPI_Init(ierr)
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  last(rank) = 0
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  left = mod(rank - 1 + size, size)
  right = mod(rank + 1, size)

  ! Point to point: a ring, received from MPI_ANY_SOURCE with a status.
  ibuf(1:3) = (/ rank, rank * 10, 7 /)
  call MPI_Isend(ibuf, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Recv(jbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, status, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call check(reqs(1) == MPI_REQUEST_NULL, 'request not MPI_REQUEST_NULL after MPI_Wait')
  call check(status(MPI_SOURCE) == left, 'status(MPI_SOURCE)')
  call check(status(MPI_TAG) == 7, 'status(MPI_TAG)')
  call MPI_Get_count(status, MPI_INTEGER, counts, ierr)
  call check(counts == 3, 'MPI_Get_count')
  call check(all(jbuf(1:3) == (/ left, left * 10, 7 /)), 'ring data')

  ! Non-blocking both ways and MPI_Waitall with statuses.
  call MPI_Irecv(jbuf(1), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(jbuf(2), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  ibuf(1) = rank + 100
  ibuf(2) = rank + 200
  call MPI_Isend(ibuf(1), 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(ibuf(2), 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  call check(jbuf(1) == left + 100 .and. jbuf(2) == right + 200, 'MPI_Waitall data')
  call check(statuses(MPI_SOURCE, 1) == left .and. statuses(MPI_TAG, 2) == 2, &
             'MPI_Waitall statuses')
  call check(all(reqs == MPI_REQUEST_NULL), 'MPI_Waitall requests')

  ! Collectives.
  dbuf = 0
  if (rank == 0) dbuf = (/ (1.5d0 * i, i = 1, 5) /)
  call MPI_Bcast(dbuf, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call check(all(dbuf == (/ (1.5d0 * i, i = 1, 5) /)), 'MPI_Bcast')
  drank = rank
  call MPI_Allreduce(drank, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(dsum == dble(size) * (size - 1) / 2, 'MPI_Allreduce MPI_DOUBLE_PRECISION')
  ival = rank + 1
  call MPI_Allreduce(ival, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum == size * (size + 1) / 2, 'MPI_Allreduce MPI_INTEGER')
  ival = rank
  call MPI_Allreduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(ival == size - 1, 'MPI_Allreduce MPI_IN_PLACE')
  allocate(gath(size), sendall(size), recvall(size))
  ival = rank * 3
  call MPI_Gather(ival, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(all(gath == (/ (3 * i, i = 0, size - 1) /)), 'MPI_Gather')
  sendall = (/ (rank * 1000 + i, i = 0, size - 1) /)
  call MPI_Alltoall(sendall, 1, MPI_INTEGER, recvall, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(recvall == (/ (i * 1000 + rank, i = 0, size - 1) /)), 'MPI_Alltoall')

  ! Derived datatypes: every other element, and a 2x2 block of a 4x4 array.
  ibuf = (/ (rank * 100 + i, i = 1, 10) /)
  jbuf = -1
  call MPI_Type_vector(5, 1, 2, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call MPI_Sendrecv(ibuf, 1, vec, right, 3, jbuf, 5, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, status, ierr)
  call check(all(jbuf(1:5) == (/ (left * 100 + i, i = 1, 10, 2) /)), 'MPI_Type_vector')
  call MPI_Type_free(vec, ierr)
  grid = reshape((/ (i, i = 1, 16) /), (/ 4, 4 /))
  call MPI_Type_create_subarray(2, (/ 4, 4 /), (/ 2, 2 /), (/ 1, 2 /), MPI_ORDER_FORTRAN, &
                                MPI_INTEGER, sub, ierr)
  call MPI_Type_commit(sub, ierr)
  call MPI_Sendrecv(grid, 1, sub, rank, 4, part, 4, MPI_INTEGER, rank, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(part == grid(2:3, 3:4)), 'MPI_Type_create_subarray')
  call MPI_Type_free(sub, ierr)

  ! Communicators.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_size(half, n, ierr)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split size')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, result, ierr)
  call check(result == MPI_CONGRUENT, 'MPI_Comm_dup congruent')
  call MPI_Comm_free(half, ierr)
  call check(half == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')

  ! A Fortran user operation.
  call MPI_Op_create(plus_one, .true., op, ierr)
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(isum == size * (size - 1) / 2 + size - 1, 'MPI_Op_create user function')
  call MPI_Op_free(op, ierr)

  ! Attributes: a keyval with a Fortran delete function; MPI_COMM_DUP_FN
  ! copies the attribute to a duplicate; MPI_TAG_UB.
  extra = 7
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, keyval, extra, ierr)
  aval = 42
  call MPI_Comm_set_attr(dup, keyval, aval, ierr)
  call MPI_Comm_dup(dup, half, ierr)
  aval = 0
  call MPI_Comm_get_attr(half, keyval, aval, flag, ierr)
  call check(flag .and. aval == 42, 'MPI_COMM_DUP_FN copied the attribute')
  call MPI_Comm_free(half, ierr)
  call check(last(rank) == 1, 'Fortran delete callback on MPI_Comm_free')
  call MPI_Comm_delete_attr(dup, keyval, ierr)
  call check(last(rank) == 2, 'Fortran delete callback on MPI_Comm_delete_attr')
  call MPI_Comm_get_attr(dup, keyval, aval, flag, ierr)
  call check(.not. flag, 'attribute deleted')
  call MPI_Comm_free_keyval(keyval, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag, ierr)
  call check(flag .and. aval >= 32767, 'MPI_TAG_UB')

  ! The MPI-1 forms: MPI_KEYVAL_CREATE with Fortran callbacks on default
  ! INTEGER values, MPI_ATTR_PUT/GET/DELETE, MPI_DUP_FN, MPI_NULL_COPY_FN.
  last(rank) = 0
  call MPI_Keyval_create(add_copy, count_delete1, keyval, 5, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_KEYVAL_CREATE')
  call MPI_Attr_put(dup, keyval, 11, ierr)
  call MPI_Comm_dup(dup, half, ierr)
  call MPI_Attr_get(half, keyval, ival, flag, ierr)
  call check(flag .and. ival == 16, 'MPI_KEYVAL_CREATE copy callback')
  call MPI_Comm_free(half, ierr)
  call check(last(rank) == 100, 'MPI-1 delete callback on MPI_Comm_free')
  call MPI_Attr_delete(dup, keyval, ierr)
  call check(last(rank) == 200, 'MPI-1 delete callback on MPI_ATTR_DELETE')
  call MPI_Keyval_free(keyval, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'MPI_KEYVAL_FREE')
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, keyval, 0, ierr)
  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, i, 0, ierr)
  call MPI_Attr_put(dup, keyval, -3, ierr)
  call MPI_Attr_put(dup, i, 9, ierr)
  call MPI_Comm_dup(dup, half, ierr)
  call MPI_Attr_get(half, keyval, ival, flag, ierr)
  call check(flag .and. ival == -3, 'MPI_DUP_FN copied the attribute')
  call MPI_Attr_get(half, i, ival, flag, ierr)
  call check(.not. flag, 'MPI_NULL_COPY_FN copied nothing')
  call MPI_Comm_free(half, ierr)
  call MPI_Attr_delete(dup, keyval, ierr)
  call MPI_Attr_delete(dup, i, ierr)
  call MPI_Keyval_free(keyval, ierr)
  call MPI_Keyval_free(i, ierr)
  last(rank) = 2

  ! Errors as codes.
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ival, 1, MPI_INTEGER, size + 5, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'invalid rank not reported')
  call MPI_Error_class(ierr, cls, i)
  call check(cls == MPI_ERR_RANK, 'error class MPI_ERR_RANK')
  call MPI_Error_string(ierr, estr, n, i)
  call check(n > 0 .and. n == len_trim(estr), 'MPI_Error_string length')
  call MPI_Comm_free(dup, ierr)

  ! Strings with Fortran lengths.
  call MPI_Comm_set_name(MPI_COMM_SELF, 'fortran self   ', ierr)
  call MPI_Comm_get_name(MPI_COMM_SELF, name, n, ierr)
  call check(n == 12 .and. name == 'fortran self', 'MPI_Comm_set_name/get_name')
  ! Info keys and values: trailing blanks are not part of them.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'zmpi_key  ', 'some value   ', ierr)
  call MPI_Info_get_nkeys(info, n, ierr)
  call MPI_Info_get_nthkey(info, 0, ikey, ierr)
  call check(n == 1 .and. ikey == 'zmpi_key', 'MPI_Info_set/get_nthkey')
  n = len(ival_s)
  call MPI_Info_get_string(info, 'zmpi_key', n, ival_s, flag, ierr)
  call check(flag .and. n == 10 .and. ival_s == 'some value', 'MPI_Info_get_string')
  call MPI_Info_get_string(info, 'missing', n, ival_s, flag, ierr)
  call check(.not. flag, 'MPI_Info_get_string of a missing key')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free')

  call MPI_Get_processor_name(pname, n, ierr)
  call check(n > 0 .and. n == len_trim(pname), 'MPI_Get_processor_name')
  call MPI_Initialized(flag, ierr)
  call check(flag, 'MPI_Initialized')

  t1 = MPI_Wtime()
  call check(t1 >= t0 .and. MPI_Wtick() > 0, 'MPI_Wtime')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) write(*, '(a)') 'mpi_basic: OK'
end program mpi_basic
