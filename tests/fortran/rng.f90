! rng.f90: what is per rank in gfortran's RANDOM_NUMBER under zmpi
! (docs/fortran.md).  The generator's state is per worker thread, shared by
! the ranks a worker runs; ranks switch, and may move to another worker,
! only inside MPI calls.  Rank 0 seeds with S, rank 1 (after a barrier)
! with T; after a second barrier rank 0 draws.  On one worker the draw
! continues T's stream (shared state); on two it continues S's or, if a
! wake-up moved one rank onto the other's worker, T's (never a third one).
! And a rank that seeds and draws with no MPI call in between gets its
! seed's sequence, whatever the others do (checked on every rank).
program rng
  use mpi_f08
  implicit none
  integer :: rank, nranks, nworkers, n, i, errs, total
  integer, allocatable :: seed(:)
  double precision :: x, refs, reft, mine(8), ref(8)
  character(len=16) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call get_command_argument(1, arg)
  read(arg, *) nworkers
  call random_seed(size=n)
  allocate(seed(n))
  errs = 0

  ! Reproducible per rank: seed and draw with no MPI call in between.
  call put(1000 + rank)
  call random_number(mine)
  call MPI_Barrier(MPI_COMM_WORLD)
  call put(1000 + rank)
  call random_number(ref)
  if (any(mine /= ref)) then
    errs = errs + 1
    print '(a,i0)', 'rank sequence not reproducible on rank ', rank
  end if

  ! Shared per worker: rank 0 seeds S = 7, rank 1 seeds T = 99 later.
  if (nranks == 2) then
    if (rank == 0) call put(7)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 1) call put(99)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      call random_number(x)
      call put(7)
      call random_number(refs)
      call put(99)
      call random_number(reft)
      if (nworkers == 1 .and. x /= reft) then
        errs = errs + 1
        print *, 'one worker: rank 0 did not draw from the stream rank 1 seeded'
      else if (nworkers == 2 .and. x /= refs .and. x /= reft) then
        errs = errs + 1
        print *, 'two workers: rank 0 drew from neither seeded stream'
      end if
      if (refs == reft) errs = errs + 1
    end if
  end if

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', 'rng: all checks passed'
  call MPI_Finalize()
  if (total /= 0) error stop 1
contains
  subroutine put(s)
    integer, intent(in) :: s
    integer :: k
    seed = [(s * 7919 + k * 104729, k = 1, n)]
    call random_seed(put=seed)
  end subroutine put
end program rng
