! fortran_bench_f08.f90: the cost of the mpi_f08 binding (issue 19): 8-byte
! ping-pong between ranks 0 and 1, 8-byte MPI_Allreduce on all ranks, and
! an 8-byte nonblocking exchange between ranks 0 and 1 (MPI_Irecv,
! MPI_Isend, then MPI_Wait on each, or one MPI_Waitall), the same loops as fortran_bench_c.c, which
! does them through C.  Prints the time per operation in microseconds
! (median of 7 runs).  A plain MPI benchmark (any MPI's mpifort builds it);
! fortran_bench_compare.sh builds both with zmpi and runs them alternately.
!
!   fortran_bench_f08 [ITERS [both|pp|ar|nb|wa [PAD]]]
!
! A second argument runs only the ping-pong (pp), the allreduce (ar) or
! the nonblocking exchange with MPI_Wait (nb) or MPI_Waitall (wa) loop, so that an instruction count
! (callgrind) can tell them apart.  PAD bytes of stack lie between the
! main program and the loops, as in fortran_bench_c.c (an automatic
! array, on the stack when built with -fstack-arrays; else it moves
! nothing), provided bench is not inlined into the main program
! (gfortran: -fno-inline-functions-called-once, which the scripts pass;
! inlined, its variables sit above the pad and only the library's frames
! move).
program bench_f08
  use mpi_f08
  implicit none
  integer :: iters, pad
  character(len=32) :: arg, which

  call MPI_Init()
  iters = 100000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read(arg, *) iters
  end if
  which = 'both'
  if (command_argument_count() > 1) call get_command_argument(2, which)
  pad = 0
  if (command_argument_count() > 2) then
    call get_command_argument(3, arg)
    read(arg, *) pad
  end if
  call padded(max(pad, 0) + 1)
  call MPI_Finalize()
contains
  ! The loops below pad bytes of stack.
  subroutine padded(n)
    integer, intent(in) :: n
    integer(1), volatile :: space(n)
    space(1) = 0
    call bench(iters, which)
  end subroutine padded

  subroutine bench(iters, which)
    integer, intent(in) :: iters
    character(len=*), intent(in) :: which
    integer :: rank, run, i, other
    double precision :: x, y, t, pp(7), ar(7), nb(7), wa(7)
    type(MPI_Status) :: status
    type(MPI_Request) :: req(2)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    pp = 0
    ar = 0
    nb = 0
    wa = 0
    other = 1 - rank
    x = rank
    do run = 1, 7
      if (which == 'both' .or. which == 'pp') then
        call MPI_Barrier(MPI_COMM_WORLD)
        t = MPI_Wtime()
        do i = 1, iters
          if (rank == 0) then
            call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
            call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, status)
          else if (rank == 1) then
            call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, status)
            call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD)
          end if
        end do
        pp(run) = (MPI_Wtime() - t) / iters / 2 * 1d6
      end if
      if (which == 'both' .or. which == 'ar') then
        call MPI_Barrier(MPI_COMM_WORLD)
        t = MPI_Wtime()
        do i = 1, iters
          call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
        end do
        ar(run) = (MPI_Wtime() - t) / iters * 1d6
      end if
      if (which == 'both' .or. which == 'nb') then
        call MPI_Barrier(MPI_COMM_WORLD)
        t = MPI_Wtime()
        if (rank < 2) then
          do i = 1, iters
            call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, other, 0, MPI_COMM_WORLD, req(1))
            call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, other, 0, MPI_COMM_WORLD, req(2))
            call MPI_Wait(req(1), status)
            call MPI_Wait(req(2), MPI_STATUS_IGNORE)
          end do
        end if
        nb(run) = (MPI_Wtime() - t) / iters * 1d6
      end if
      if (which == 'both' .or. which == 'wa') then
        call MPI_Barrier(MPI_COMM_WORLD)
        t = MPI_Wtime()
        if (rank < 2) then
          do i = 1, iters
            call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, other, 0, MPI_COMM_WORLD, req(1))
            call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, other, 0, MPI_COMM_WORLD, req(2))
            call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
          end do
        end if
        wa(run) = (MPI_Wtime() - t) / iters * 1d6
      end if
    end do
    if (rank == 0) write(*, '(a,f9.4,a,f9.4,a,f9.4,a,f9.4,a)') &
        'mpi_f08: ping-pong (half round trip) ', median(pp), ' us, allreduce ', median(ar), &
        ' us, nonblocking ', median(nb), ' us, waitall ', median(wa), ' us'
  end subroutine bench

  double precision function median(v)
    double precision, intent(in) :: v(7)
    double precision :: w(7), tmp
    integer :: a, b
    w = v
    do a = 1, 7
      do b = a + 1, 7
        if (w(b) < w(a)) then
          tmp = w(a); w(a) = w(b); w(b) = tmp
        end if
      end do
    end do
    median = w(4)
  end function median
end program bench_f08
