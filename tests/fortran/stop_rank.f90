! stop_rank.f90: STOP in one rank ends that rank only (issue 19).  Rank 1
! finalizes and stops at once; the other ranks then exchange messages among
! themselves and rank 0 reports "stop_rank: OK", which it could not if the
! STOP had ended the whole job.  With the argument "error", rank 1 runs ERROR STOP 3
! instead, which must end the whole job with status 3, and the lines every
! rank wrote before it must reach the output (a file under expect_fail.sh,
! which libgfortran buffers).  With "runtime", rank 1 ends the job with a
! runtime error of libgfortran (opening a missing file), status 2, and the
! lines must reach the output too.
program stop_rank
  use mpi_f08
  implicit none
  integer :: rank, size, token
  character(len=16) :: arg
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call get_command_argument(1, arg)
  if (arg == 'error' .or. arg == 'runtime') then
    write(*, '(a,i0,a)') 'stop_rank: rank ', rank, ' wrote this before ERROR STOP'
    call MPI_Barrier(MPI_COMM_WORLD)
  end if
  if (rank == 1) then
    if (arg == 'error') error stop 3
    if (arg == 'runtime') open(unit=77, file='/nonexistent/stop_rank.dat', status='old')
    call MPI_Finalize()
    stop 'rank 1 stops'
  end if
  if (arg == 'error' .or. arg == 'runtime') then
    ! Wait for a message that never comes: only rank 1's end ends this.
    call MPI_Recv(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  ! Ranks 0 and 2 pass a token without rank 1.
  if (rank == 0) then
    token = 41
    call MPI_Send(token, 1, MPI_INTEGER, 2, 0, MPI_COMM_WORLD)
    call MPI_Recv(token, 1, MPI_INTEGER, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (token /= 42) error stop 1
    write(*, '(a)') 'stop_rank: OK'
  else if (rank == 2) then
    call MPI_Recv(token, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    token = token + 1
    call MPI_Send(token, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
  end if
  call MPI_Finalize()
end program stop_rank
