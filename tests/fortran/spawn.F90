! spawn.F90: MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from Fortran: the
! parents spawn children of this same program and talk to them over the
! intercommunicator.  One source for the three bindings: module mpi, mpif.h
! (-DUSE_MPIF_H) and mpi_f08 (-DUSE_F08).
!
!  1. MPI_COMM_SPAWN, 3 children, arguments 'child' and '  two words   '
!     ended by a blank entry: a child gets 'child' and '  two words'
!     (trailing blanks dropped, leading ones kept).
!  2. MPI_COMM_SPAWN_MULTIPLE of this program twice (1 and 2 ranks), the
!     arguments a COUNT x * array: row 1 'multi' 'a', row 2 'multi' 'b' 'c'.
!     One world of 3; MPI_APPNUM says the row.
!  3. MPI_ARGV_NULL and MPI_ERRCODES_IGNORE: one child without arguments.
!  4. A command that cannot become ranks (/bin/sh), under MPI_ERRORS_RETURN:
!     MPI_ERR_SPAWN naming it, MPI_COMM_NULL, an error code per rank; with
!     MPI_COMM_SPAWN_MULTIPLE and MPI_ARGVS_NULL too.
!
! Each child checks its arguments, world size, MPI_APPNUM and a value the
! parents broadcast to it, and sends 1000 * case + its rank (or -1) to
! parent 0, which checks every answer.  Prints "spawn: OK" at parent 0.
!
! A child reads its arguments first thing, before any MPI call: libgfortran
! keeps one argument list per process, which each rank's main sets, so a
! rank reads its own list only before it can be switched out.  The runs
! with different lists per child (case 2) are on one worker thread.
#ifdef USE_F08
#define HANDLE(t) type(t)
#else
#define HANDLE(t) integer
#endif
program spawn
#if defined(USE_F08)
  use mpi_f08
  implicit none
#elif defined(USE_MPIF_H)
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  character(len=512) :: prog
  character(len=32) :: args(4)
  integer :: lens(4), nargs, i, ierr
  HANDLE(MPI_Comm) :: parent

  call get_command_argument(0, prog)
  nargs = command_argument_count()
  do i = 1, min(nargs, 4)
    call get_command_argument(i, args(i), lens(i))
  end do
  call MPI_Init(ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent == MPI_COMM_NULL) then
    call parent_main(trim(prog))
  else
    call child_main(parent)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    write (*, '(A, I0, A, A)') 'spawn: FAIL rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

  ! Which case this child is (see the header), or -1 if its arguments are
  ! not one of the lists the parents pass.
  integer function child_case(appnum)
    integer, intent(in) :: appnum
    child_case = -1
    if (nargs == 0) then
      child_case = 3
    else if (nargs == 2 .and. args(1) == 'child' .and. lens(2) == 11 .and. &
             args(2)(1:11) == '  two words') then
      child_case = 1
    else if (appnum == 0 .and. nargs == 2 .and. args(1) == 'multi' .and. args(2) == 'a') then
      child_case = 2
    else if (appnum == 1 .and. nargs == 3 .and. args(1) == 'multi' .and. &
             args(2) == 'b' .and. args(3) == 'c') then
      child_case = 2
    end if
  end function child_case

  subroutine child_main(parent)
    HANDLE(MPI_Comm), intent(in) :: parent
    HANDLE(MPI_Comm) :: p
    integer :: rank, size, k, x, answer, ierr
    integer(kind=MPI_ADDRESS_KIND) :: appnum
    logical :: flag
    integer, parameter :: wsize(3) = (/ 3, 3, 1 /)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag, ierr)
    if (.not. flag) appnum = -1
    k = child_case(int(appnum))
    x = 0
    call MPI_Bcast(x, 1, MPI_INTEGER, 0, parent, ierr)
    answer = -1
    if (k > 0) then
      if (size == wsize(k) .and. x == 4242 + k .and. &
          (k == 2 .or. appnum == 0)) answer = 1000 * k + rank
    end if
    if (answer < 0) write (*, '(A, I0, A, I0, A, I0, A, I0, A, A)') 'spawn: child ', rank, &
        ' case ', k, ' appnum ', appnum, ' size ', size, ' arg1 ', trim(args(1))
    call MPI_Send(answer, 1, MPI_INTEGER, 0, 7, parent, ierr)
    p = parent
    call MPI_Comm_disconnect(p, ierr)
  end subroutine child_main

  ! The parents' side of one spawn: the children of intercommunicator
  ! inter (n of them) get 4242 + k and must answer 1000 * k + their rank.
  subroutine talk(inter, n, k)
    HANDLE(MPI_Comm), intent(inout) :: inter
    integer, intent(in) :: n, k
    integer :: rank, rsize, i, x, ierr
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_remote_size(inter, rsize, ierr)
    if (rsize /= n) call fail('wrong number of children')
    x = 4242 + k
    if (rank == 0) then
      call MPI_Bcast(x, 1, MPI_INTEGER, MPI_ROOT, inter, ierr)
      do i = 0, n - 1
        call MPI_Recv(x, 1, MPI_INTEGER, i, 7, inter, MPI_STATUS_IGNORE, ierr)
        if (x /= 1000 * k + i) call fail('a child answered wrong (see its line)')
      end do
    else
      call MPI_Bcast(x, 1, MPI_INTEGER, MPI_PROC_NULL, inter, ierr)
    end if
    call MPI_Comm_disconnect(inter, ierr)
  end subroutine talk

  subroutine parent_main(prog)
    character(len=*), intent(in) :: prog
    character(len=16) :: argv(3)
    character(len=len(prog)) :: cmds(2)
    character(len=8) :: argvs(2, 4)
    character(len=MPI_MAX_ERROR_STRING) :: msg
    integer :: codes(3), maxprocs(2), rank, ierr, rc, cls, mlen
    HANDLE(MPI_Info) :: infos(2)
    HANDLE(MPI_Comm) :: inter

    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    ! 1. MPI_COMM_SPAWN with arguments.
    argv(1) = 'child'
    argv(2) = '  two words'
    argv(3) = ' '
    codes = -7
    call MPI_Comm_spawn(prog, argv, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes, ierr)
    if (ierr /= MPI_SUCCESS .or. any(codes /= MPI_SUCCESS)) call fail('MPI_Comm_spawn')
    call talk(inter, 3, 1)
    ! 2. MPI_COMM_SPAWN_MULTIPLE: rows of different lengths, blank-ended.
    cmds = prog
    argvs = ' '
    argvs(1, 1) = 'multi'
    argvs(1, 2) = 'a'
    argvs(2, 1) = 'multi'
    argvs(2, 2) = 'b'
    argvs(2, 3) = 'c'
    maxprocs = (/ 1, 2 /)
    infos = MPI_INFO_NULL
    codes = -7
    call MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, inter, &
                                 codes, ierr)
    if (ierr /= MPI_SUCCESS .or. any(codes /= MPI_SUCCESS)) &
      call fail('MPI_Comm_spawn_multiple')
    call talk(inter, 3, 2)
    ! 3. No arguments, no error codes.
    call MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                        MPI_ERRCODES_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) call fail('MPI_Comm_spawn with MPI_ARGV_NULL')
    call talk(inter, 1, 3)
    ! 4. A command that cannot become ranks fails at once.
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    codes = -7
    call MPI_Comm_spawn('/bin/sh   ', MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &
                        inter, codes, rc)
    call MPI_Error_class(rc, cls, ierr)
    call MPI_Error_string(rc, msg, mlen, ierr)
    if (cls /= MPI_ERR_SPAWN .or. inter /= MPI_COMM_NULL .or. any(codes(1:2) == MPI_SUCCESS) &
        .or. any(codes(1:2) == -7) .or. codes(3) /= -7 .or. index(msg(1:mlen), '"/bin/sh"') == 0) &
      call fail('spawning /bin/sh: ' // msg(1:mlen))
    cmds(1) = '/bin/sh'
    maxprocs = (/ 1, 1 /)
    codes = -7
    call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &
                                 inter, codes, rc)
    call MPI_Error_class(rc, cls, ierr)
    if (cls /= MPI_ERR_SPAWN .or. inter /= MPI_COMM_NULL .or. any(codes(1:2) == MPI_SUCCESS)) &
      call fail('MPI_Comm_spawn_multiple of /bin/sh')
    if (rank == 0) write (*, '(A)') 'spawn: OK'
  end subroutine parent_main

end program spawn
