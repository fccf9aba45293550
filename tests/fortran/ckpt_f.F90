! ckpt_f.F90: a Fortran rank's state survives ZMPI_CHECKPOINT and a restart
! (tests/ckpt_restart.sh, tests/ckpt_fortran.cmake): module variables (an
! array and an ALLOCATABLE one), a COMMON block, SAVEd variables of a
! subroutine, an ALLOCATABLE local array, locals on the stack and where the
! rank was in its loop.  The arrays are allocated before the checkpoint and
! changed after it.  Each iteration passes a value around a ring and sums a
! checksum with MPI_ALLREDUCE (64-bit integers reduced modulo a prime, so
! the result is exact whatever the number of workers).  At iteration CK_AT
! the ranks take a checkpoint in the directory named by the first argument;
! with CK_STOP set in the environment they end right after it (a restarted
! job does not see it: the environment is not part of the checkpoint).
! Rank 0 prints the checksum and whether GET_COMMAND_ARGUMENT still gives
! the directory at the end ("cmdline ok").  Built with module mpi_f08 and,
! with -DUSE_MPI, module mpi.
module ck_state
  implicit none
  integer(8), parameter :: ck_prime = 1000000007_8
  integer(8) :: modtab(256)
  integer(8), allocatable :: modheap(:)
end module ck_state

! A SAVEd accumulator: returns the next value of a sequence kept between
! calls (and across the checkpoint).
subroutine ck_saved(v, out)
  use ck_state, only : ck_prime
  implicit none
  integer(8), intent(in) :: v
  integer(8), intent(out) :: out
  integer(8), save :: acc = 7
  integer, save :: calls = 0
  calls = calls + 1
  acc = modulo(acc * 3 + v + calls, ck_prime)
  out = acc
end subroutine ck_saved

program ckpt_f
#ifdef USE_MPI
  use mpi
#else
  use mpi_f08
#endif
  use ck_state
  implicit none
  integer, parameter :: ck_at = 3, iters = 7
  integer(8) :: blk(100)
  common /ckblk/ blk
  integer(8), allocatable :: grid(:, :)
  integer(8) :: local(64), out, in, mine, total, check, s
  integer :: rank, size, ierr, it, i, next, prev, st
  character(len=512) :: dir, again
  character(len=MPI_MAX_ERROR_STRING) :: msg
#ifdef USE_MPI
  integer :: status(MPI_STATUS_SIZE)
#else
  type(MPI_Status) :: status
#endif

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call get_command_argument(1, dir, status=st)
  if (st /= 0 .or. len_trim(dir) == 0) then
    write(*, '(a)') 'usage: ckpt_f DIR'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  allocate(modheap(1000), grid(50, 40))
  do i = 1, 64
    local(i) = rank * 64 + i
  end do
  do i = 1, 1000
    modheap(i) = int(rank, 8) * 1000 + i
  end do
  do i = 1, 256
    modtab(i) = i * (rank + 1)
  end do
  do i = 1, 100
    blk(i) = 5 * i + rank
  end do
  grid = rank
  check = 0
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  do it = 1, iters
    call ck_saved(int(it, 8), s)
    out = modheap(it) + local(it) + modtab(it) + blk(it) + grid(it, it) + s
    call MPI_Sendrecv(out, 1, MPI_INTEGER8, next, it, in, 1, MPI_INTEGER8, prev, it, &
                      MPI_COMM_WORLD, status, ierr)
    mine = modulo(in * 3 + out + sum(grid(:, it)) + len_trim(dir), ck_prime)
    call MPI_Allreduce(mine, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    check = modulo(check * 31 + modulo(total, ck_prime), ck_prime)
    ! Changes to every kind of variable, before and after the checkpoint.
    modheap(it + 1) = modheap(it + 1) + modulo(total, 1000_8)
    modtab(it + 1) = modtab(it + 1) + it
    blk(it + 1) = blk(it + 1) * 2
    grid(:, it + 1) = grid(:, it + 1) + modulo(total, 97_8)
    local(it + 1) = local(it + 1) + in
    if (it == ck_at) then
      ! dir itself, blank-padded (the binding trims it): an expression
      ! such as TRIM(dir) would be a temporary from libgfortran's heap,
      ! freed after the call, which a restarted job does not have
      ! (docs/checkpoint.md).
      call ZMPI_Checkpoint(dir, ierr)
      if (ierr /= MPI_SUCCESS) then
        call MPI_Error_string(ierr, msg, i, st)
        write(*, '(a,i0,2a)') 'rank ', rank, ': checkpoint refused: ', msg(1:i)
        call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
      end if
      call get_environment_variable('CK_STOP', status=st)
      if (st == 0) then
        call MPI_Finalize(ierr)
        if (rank == 0) write(*, '(a)') 'stopped after the checkpoint'
        stop
      end if
    end if
  end do
  call get_command_argument(1, again, status=st)
  if (rank == 0) then
    if (st == 0 .and. again == dir) then
      write(*, '(a,i0,a,i0,a)') 'checksum ', check, ' of ', size, ' ranks (cmdline ok)'
    else
      write(*, '(a,i0,a,i0,3a)') 'checksum ', check, ' of ', size, &
        ' ranks (cmdline lost: "', trim(again), '")'
    end if
  end if
  deallocate(modheap, grid)
  call MPI_Finalize(ierr)
end program ckpt_f
