! threads_omp_f.f90: OpenMP inside the ranks of a Fortran program
! (tests/threads.cmake, docs/threads.md), built with zmpifort -fopenmp.
!
! The default team size is the CPUs over the ranks (at least 1, or
! OMP_NUM_THREADS); omp_set_num_threads on the rank's thread sets its own;
! every thread of a team of 3 exchanges messages with the same thread of
! the neighbouring ranks at MPI_THREAD_MULTIPLE; a critical section
! around an exchange is the rank's own.
program threads_omp_f
  use mpi_f08
  use omp_lib
  implicit none
  integer :: provided, rank, nranks, expect, team, t, r, seen, nenv, stat
  character(len=16) :: env

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  if (provided /= MPI_THREAD_MULTIPLE) error stop "provided level"
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)

  call get_environment_variable("OMP_NUM_THREADS", env, status=stat)
  if (stat == 0 .and. len_trim(env) > 0) then
    read (env, *) nenv
    expect = nenv
  else
    expect = max(1, omp_get_num_procs() / nranks)
  end if
  if (omp_get_max_threads() /= expect) error stop "default omp_get_max_threads"
  team = -1
  !$omp parallel
  !$omp master
  team = omp_get_num_threads()
  !$omp end master
  !$omp end parallel
  if (team /= expect) error stop "default team size"

  do r = 1, 5
    call omp_set_num_threads(3)
    if (omp_get_max_threads() /= 3) error stop "omp_set_num_threads(3)"
    seen = 0
    !$omp parallel private(t) reduction(+:seen)
    t = omp_get_thread_num()
    if (omp_get_num_threads() /= 3) error stop "team of 3"
    call exchange(100 + t, r * 10 + t)
    seen = seen + 1
    !$omp end parallel
    if (seen /= 3) error stop "reduction over a team of 3"
    call omp_set_num_threads(expect)
    !$omp parallel num_threads(2)
    !$omp critical
    call exchange(500, r)
    !$omp end critical
    !$omp end parallel
  end do

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', "threads_omp_f: ", nranks, " ranks: OK"
  call MPI_Finalize()

contains

  subroutine exchange(tag, salt)
    integer, intent(in) :: tag, salt
    integer :: outv, inv, next, prev
    next = mod(rank + 1, nranks)
    prev = mod(rank - 1 + nranks, nranks)
    outv = rank * 1000 + salt
    inv = -1
    call MPI_Sendrecv(outv, 1, MPI_INTEGER, next, tag, inv, 1, MPI_INTEGER, prev, tag, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (inv /= prev * 1000 + salt) error stop "value exchanged inside a parallel region"
  end subroutine exchange
end program threads_omp_f
