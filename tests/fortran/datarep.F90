! datarep.F90: MPI_REGISTER_DATAREP with Fortran conversion procedures
! through use mpi, or use mpi_f08 when compiled with -DUSE_F08 (issue 19).
! Data representation "zmpi-fneg" stores each INTEGER negated and plus the
! extra state; every rank writes its block through it, reads it back
! through it, and reads the file's raw bytes through "native", checking
! each element.  "zmpi-fnull" (MPI_CONVERSION_FN_NULL both ways) stores
! native bytes.  A second registration of a name is MPI_ERR_DUP_DATAREP.
! Prints "datarep: OK" on rank 0.
module conv
#ifdef USE_F08
  use mpi_f08
  use, intrinsic :: iso_c_binding
#else
  use mpi
#endif
  implicit none
  integer :: ncalls = 0
contains
#ifdef USE_F08
  subroutine fneg(buf, n, pos, inbuf, outbuf, extra)
    type(c_ptr), value :: inbuf, outbuf
    integer :: n
    integer(kind=MPI_OFFSET_KIND) :: pos
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer, pointer :: a(:), b(:)
    logical :: buf
    call c_f_pointer(inbuf, a, [int(pos) + n])
    call c_f_pointer(outbuf, b, [int(pos) + n])
    if (buf) then ! write: user (at pos) -> file (from 1)
      b(1:n) = -a(pos + 1:pos + n) + int(extra)
    else          ! read: file (from 1) -> user (at pos)
      b(pos + 1:pos + n) = -(a(1:n) - int(extra))
    end if
  end subroutine fneg

  subroutine write_fn(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER) ierror = MPI_ERR_TYPE
    call fneg(.true., count, position, userbuf, filebuf, extra_state)
    ncalls = ncalls + 1
  end subroutine write_fn

  subroutine read_fn(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER) ierror = MPI_ERR_TYPE
    call fneg(.false., count, position, filebuf, userbuf, extra_state)
    ncalls = ncalls + 1
  end subroutine read_fn

  subroutine extent_fn(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    extent = 4
    ierror = MPI_SUCCESS
  end subroutine extent_fn
#else
  subroutine write_fn(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER) ierror = MPI_ERR_TYPE
    filebuf(1:count) = -userbuf(position + 1:position + count) + int(extra_state)
    ncalls = ncalls + 1
  end subroutine write_fn

  subroutine read_fn(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER) ierror = MPI_ERR_TYPE
    userbuf(position + 1:position + count) = -(filebuf(1:count) - int(extra_state))
    ncalls = ncalls + 1
  end subroutine read_fn

  subroutine extent_fn(datatype, extent, extra_state, ierror)
    integer :: datatype, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    extent = 4
    ierror = MPI_SUCCESS
  end subroutine extent_fn
#endif
end module conv

program datarep
  use conv
  implicit none
  integer, parameter :: n = 100
  integer :: rank, size, ierr, i, cls, a(n), b(n)
#ifdef USE_F08
  type(MPI_File) :: fh
#else
  integer :: fh
#endif
  integer(kind=MPI_OFFSET_KIND) :: disp
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=64) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  ! One file per binding and rank count: ctest runs the layouts at once.
#ifdef USE_F08
  write(path, '(a,i0,a)') 'zmpi_fdatarep_f08_', size, '.dat'
#else
  write(path, '(a,i0,a)') 'zmpi_fdatarep_mpi_', size, '.dat'
#endif
  extra = 1000
  call MPI_Register_datarep('zmpi-fneg', read_fn, write_fn, extent_fn, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP')
  call MPI_Register_datarep('zmpi-fnull', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            extent_fn, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP with MPI_CONVERSION_FN_NULL')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Register_datarep('zmpi-fneg', read_fn, write_fn, extent_fn, extra, ierr)
  call MPI_Error_class(ierr, cls, i)
  call check(cls == MPI_ERR_DUP_DATAREP, 'a second registration: MPI_ERR_DUP_DATAREP')

  do i = 1, n
    a(i) = rank * 100000 + i
  end do
  disp = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                     fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_open')
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'zmpi-fneg', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view zmpi-fneg')
  call MPI_File_write_all(fh, a, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. ncalls > 0, 'write through the Fortran conversion')
  b = 0
  call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. all(b == a), 'read back through the conversion')
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(all(b == -a + 1000), 'the file holds the converted values')
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'zmpi-fnull', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view zmpi-fnull')
  call MPI_File_write_at_all(fh, 0_MPI_OFFSET_KIND, a, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  b = 0
  call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(all(b == a), 'MPI_CONVERSION_FN_NULL stores native bytes')
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL, ierr)
  if (rank == 0) write(*, '(a)') 'datarep: OK'
  call MPI_Finalize(ierr)

contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write(*, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
end program datarep
