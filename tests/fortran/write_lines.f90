! write_lines.f90: WRITE(*,*) and formatted WRITE to unit 6 from every rank
! at once (issue 19).  libgfortran's unit 6 is one unit for all ranks; a
! WRITE statement's record must still come out whole.  Every rank writes
! NLINES lines of three kinds (list-directed, formatted with a payload
! derived from rank and line, PRINT), with MPI calls in between so that
! ranks switch and both workers write at the same time.  write_lines.sh
! checks the output file: every line intact, every rank's lines all there
! and in order.  Then each rank opens a scratch file with NEWUNIT=: the
! unit numbers must differ between ranks (libgfortran hands them out
! process-wide) and each rank must read back what it wrote; a failure
! prints a line write_lines.sh rejects.
program write_lines
  use mpi_f08
  implicit none
  integer, parameter :: nlines = 120
  integer :: rank, nranks, i, token, u, back
  integer, allocatable :: units(:)
  character(len=100) :: payload

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  do i = 1, nlines
    select case (mod(i, 3))
    case (0)
      write(*, *) 'L', rank, i, rank * 100000 + i
    case (1)
      payload = repeat(achar(65 + mod(rank + i, 26)), 20 + mod(rank * 7 + i, 80))
      write(*, '(a,i0,a,i0,a,i0,a,a)') 'F ', rank, ' ', i, ' ', &
          len_trim(payload), ' ', trim(payload)
    case default
      print '(a,i0,a,i0,a,i0)', 'P ', rank, ' ', i, ' ', rank * 100000 + i
    end select
    ! A rank switch between statements: other ranks write in between.
    if (mod(i, 7) == 0) call MPI_Barrier(MPI_COMM_WORLD)
    if (mod(i, 11) == 0) then
      call MPI_Allreduce(i, token, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    end if
  end do
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  allocate(units(nranks))
  open(newunit=u, status='scratch', form='formatted')
  write(u, *) rank
  call MPI_Allgather(u, 1, MPI_INTEGER, units, 1, MPI_INTEGER, MPI_COMM_WORLD)
  rewind(u)
  read(u, *) back
  close(u)
  if (back /= rank) print '(a,i0,a,i0)', 'FAIL rank ', rank, ' read back ', back
  do i = 1, nranks
    if (i - 1 /= rank .and. units(i) == u) print '(a,i0,a,i0)', 'FAIL rank ', rank, &
        ' has the NEWUNIT of rank ', i - 1
  end do
  call MPI_Finalize()
end program write_lines
