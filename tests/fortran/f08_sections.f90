! f08_sections.f90: array sections as choice buffers of module mpi_f08 in
! nonblocking, persistent, collective, one-sided and file calls (issue 19,
! MPI_SUBARRAYS_SUPPORTED).  A section a(1:n:3), b(2, :), c(5:1:-1), a
! rank-3 section, with a count covering all or part of it, with a vector
! datatype and a resized datatype with holes over it: the data must land on
! exactly the section's elements, every other element untouched.  Each
! check compares element by element and counts failures; rank 0 prints
! "f08_sections: OK" only when no rank found one.
program f08_sections
  use mpi_f08
  implicit none
  integer, parameter :: N = 12
  integer :: rank, size, right, left, nfail

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  right = mod(rank + 1, size)
  left = mod(rank - 1 + size, size)
  nfail = 0
  if (.not. MPI_SUBARRAYS_SUPPORTED) call fail('MPI_SUBARRAYS_SUPPORTED is .FALSE.', 0, 0, 0)

  call test_isend_irecv()
  call test_types()
  call test_persistent()
  call test_collectives()
  call test_rma()
  call test_file()
  call test_errors()
  call test_more()

  call MPI_Allreduce(MPI_IN_PLACE, nfail, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
  if (rank == 0 .and. nfail == 0) write(*, '(a)') 'f08_sections: OK'
  if (rank == 0 .and. nfail /= 0) write(*, '(a, i0, a)') 'f08_sections: ', nfail, ' failures'

contains

  ! The value rank r sends as its element i.
  integer function v(r, i)
    integer, intent(in) :: r, i
    v = 1000 * (r + 1) + i
  end function v

  subroutine fail(what, i, got, want)
    character(*), intent(in) :: what
    integer, intent(in) :: i, got, want
    nfail = nfail + 1
    if (nfail <= 20) write(*, '(a, i0, 3a, i0, a, i0, a, i0)') 'FAIL rank ', rank, ': ', &
        what, ' element ', i, ' is ', got, ' not ', want
  end subroutine fail

  subroutine expect(what, got, want)
    character(*), intent(in) :: what
    integer, intent(in) :: got(:), want(:)
    integer :: i
    do i = 1, ubound(got, 1)
      if (got(i) /= want(i)) call fail(what, i, got(i), want(i))
    end do
  end subroutine expect

  ! Point-to-point around a ring: each rank sends sections to its right
  ! neighbour and receives into sections from its left one.
  subroutine test_isend_irecv()
    integer :: a(3 * N), b(3, N), c(N), d(2, 3, 4), e(2, 3, 4), i
    integer :: wa(3 * N), wb(3, N), wc(N), we(2, 3, 4)
    type(MPI_Request) :: req(8)
    a = [(v(rank, i), i = 1, 3 * N)]
    c = [(v(rank, 100 + i), i = 1, N)]
    d = reshape([(v(rank, 200 + i), i = 1, 24)], [2, 3, 4])
    b = -1
    e = -1
    wa = -1
    ! a(1:n:3) into b(2, :); c(5:1:-1) into wa(2:10:2); a rank-3 section;
    ! a count covering half of a section; a zero count.
    call MPI_Irecv(b(2, :), N, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(1))
    call MPI_Irecv(wa(2:10:2), 5, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(2))
    call MPI_Irecv(e(1, :, 1:4:3), 6, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req(3))
    call MPI_Irecv(wa(13:36:2), 3, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req(4))
    call MPI_Irecv(wa(14:20:3), 0, MPI_INTEGER, left, 5, MPI_COMM_WORLD, req(5))
    call MPI_Isend(a(1:3 * N:3), N, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(6))
    call MPI_Isend(c(5:1:-1), 5, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(7))
    call MPI_Isend(d(2, 1:3, 2:3), 6, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(8))
    call MPI_Send(c(N:1:-2), 3, MPI_INTEGER, right, 4, MPI_COMM_WORLD)
    call MPI_Send(c(1:N:4), 0, MPI_INTEGER, right, 5, MPI_COMM_WORLD)
    call MPI_Waitall(8, req, MPI_STATUSES_IGNORE)
    wb = -1
    wb(2, :) = [(v(left, 1 + 3 * (i - 1)), i = 1, N)]
    call expect('Irecv b(2, :)', reshape(b, [3 * N]), reshape(wb, [3 * N]))
    we = -1
    ! e(1, :, 1:4:3) is e(1, 1:3, 1) then e(1, 1:3, 4), in that order; it
    ! receives d(2, 1:3, 2) then d(2, 1:3, 3) of the left neighbour.
    do i = 1, 3
      we(1, i, 1) = v(left, 200 + 2 + 2 * (i - 1) + 6)
      we(1, i, 4) = v(left, 200 + 2 + 2 * (i - 1) + 12)
    end do
    call expect('Irecv rank-3 section', reshape(e, [24]), reshape(we, [24]))
    wc = -1
    do i = 1, 5
      wc(i) = v(left, 100 + 6 - i)
    end do
    call expect('Irecv wa(2:10:2)', wa(2:10:2), wc(1:5))
    call expect('Irecv wa(13:17:2) partial count', wa(13:17:2), [(v(left, 100 + N - 2 * (i - 1)), i = 1, 3)])
    call expect('elements between and after', [wa(1:11:2), wa(12:36:2), wa(19:35:2)], &
                [(-1, i = 1, 6 + 13 + 9)])
  end subroutine test_isend_irecv

  ! A vector datatype and a resized datatype with holes and a lower bound
  ! over sections, both ways.
  subroutine test_types()
    integer :: a(3 * N), b(2 * N), w(2 * N), i
    type(MPI_Datatype) :: vec, holes, tmp
    type(MPI_Request) :: req(2)
    ! Every second element of the virtual contiguous buffer, 4 of them.
    call MPI_Type_vector(4, 1, 2, MPI_INTEGER, vec)
    call MPI_Type_commit(vec)
    ! One integer after a hole of one, extent 3 integers, lower bound -1
    ! integer: element k of a count covers virtual integers 3k-1 .. 3k+1,
    ! with data at 3k+1.
    call MPI_Type_create_struct(1, [1], [4_MPI_ADDRESS_KIND], [MPI_INTEGER], tmp)
    call MPI_Type_create_resized(tmp, -4_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND, holes)
    call MPI_Type_free(tmp)
    call MPI_Type_commit(holes)
    a = [(v(rank, i), i = 1, 3 * N)]
    b = -1
    ! Sent: virtual elements 0, 2, 4, 6 of a(1:24:3) = a(1), a(7), a(13), a(19).
    call MPI_Irecv(b(2 * N:1:-2), 4, MPI_INTEGER, left, 6, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a(1:24:3), 1, vec, right, 6, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    w = -1
    w(2 * N:2 * N - 6:-2) = [v(left, 1), v(left, 7), v(left, 13), v(left, 19)]
    call expect('vector type over a(1:24:3)', b, w)
    ! Received with the vector type into b(2:17:2): virtual 0, 2, 4, 6 are
    ! b(2), b(6), b(10), b(14).
    b = -1
    call MPI_Irecv(b(2:17:2), 1, vec, left, 7, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a(3:6), 4, MPI_INTEGER, right, 7, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    w = -1
    w(2:14:4) = [(v(left, 2 + i), i = 1, 4)]
    call expect('vector type into b(2:17:2)', b, w)
    ! The holey type, count 3, over a(3 * N:1:-2): its data are the
    ! virtual integers 1, 4 and 7 (the lower bound only moves the extent).
    b = -1
    call MPI_Irecv(b(1:2 * N:2), 3, holes, left, 8, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a(3 * N:1:-2), 3, holes, right, 8, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    w = -1
    ! Virtual k of a(3N:1:-2) is a(3N - 2k); of b(1:2N:2) is b(1 + 2k).
    do i = 0, 2
      w(1 + 2 * (1 + 3 * i)) = v(left, 3 * N - 2 * (1 + 3 * i))
    end do
    call expect('resized type with holes', b, w)
    call MPI_Type_free(vec)
    call MPI_Type_free(holes)
  end subroutine test_types

  ! Persistent requests started twice, on sections.
  subroutine test_persistent()
    integer :: a(3 * N), b(3, N), wb(3, N), it, i
    type(MPI_Request) :: req(2)
    call MPI_Recv_init(b(3, 2:N:2), N / 2, MPI_INTEGER, left, 9, MPI_COMM_WORLD, req(1))
    call MPI_Send_init(a(3 * N:1:-3), N / 2, MPI_INTEGER, right, 9, MPI_COMM_WORLD, req(2))
    do it = 1, 2
      a = [(v(rank, i) + 100000 * it, i = 1, 3 * N)]
      b = -1
      call MPI_Startall(2, req)
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
      wb = -1
      wb(3, 2:N:2) = [(v(left, 3 * N - 3 * (i - 1)) + 100000 * it, i = 1, N / 2)]
      call expect('persistent b(3, 2:N:2)', reshape(b, [3 * N]), reshape(wb, [3 * N]))
    end do
    call MPI_Request_free(req(1))
    call MPI_Request_free(req(2))
  end subroutine test_persistent

  ! Nonblocking collectives: Iallreduce between sections (and in place into
  ! one), Iallgather and Ialltoall into a row of a matrix (a block per
  ! rank), Ibcast with a vector type over a section.
  subroutine test_collectives()
    integer :: x(2 * N), y(N, 2), g(2, 2 * size), s(3, size), r(3, size), i, k
    integer :: wy(N, 2), wg(2, 2 * size), wr(3, size)
    type(MPI_Request) :: req
    type(MPI_Datatype) :: vec
    x = [(v(rank, i), i = 1, 2 * N)]
    y = -1
    call MPI_Iallreduce(x(1:2 * N:2), y(N:1:-1, 2), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wy = -1
    do i = 1, N
      wy(N + 1 - i, 2) = sum([(v(k, 2 * i - 1), k = 0, size - 1)])
    end do
    call expect('Iallreduce', reshape(y, [2 * N]), reshape(wy, [2 * N]))
    y(:, 1) = [(v(rank, i), i = 1, N)]
    call MPI_Iallreduce(MPI_IN_PLACE, y(1:N:3, 1), N / 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wy(:, 1) = [(v(rank, i), i = 1, N)]
    wy(1:N:3, 1) = [(v(size - 1, i), i = 1, N, 3)]
    call expect('Iallreduce in place', reshape(y, [2 * N]), reshape(wy, [2 * N]))
    ! Two integers per rank into g(2, :): rank k's go to g(2, 2k+1:2k+2).
    g = -1
    call MPI_Iallgather(x(2:4:2), 2, MPI_INTEGER, g(2, :), 2, MPI_INTEGER, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wg = -1
    do k = 0, size - 1
      wg(2, 2 * k + 1:2 * k + 2) = [v(k, 2), v(k, 4)]
    end do
    call expect('Iallgather into g(2, :)', reshape(g, [4 * size]), reshape(wg, [4 * size]))
    ! One integer to each rank from s(3, :), into r(1, size:1:-1).
    s = reshape([(v(rank, i), i = 1, 3 * size)], [3, size])
    r = -1
    call MPI_Ialltoall(s(3, :), 1, MPI_INTEGER, r(1, size:1:-1), 1, MPI_INTEGER, &
                       MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wr = -1
    do k = 0, size - 1
      wr(1, size - k) = v(k, 3 + 3 * rank)
    end do
    call expect('Ialltoall', reshape(r, [3 * size]), reshape(wr, [3 * size]))
    ! Ibcast of every second element of x(2 * N:1:-1), as a vector type.
    call MPI_Type_vector(N, 1, 2, MPI_INTEGER, vec)
    call MPI_Type_commit(vec)
    x = [(v(rank, i), i = 1, 2 * N)]
    call MPI_Ibcast(x(2 * N:1:-1), 1, vec, 0, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Type_free(vec)
    call expect('Ibcast of a vector over x(2N:1:-1)', x, &
                [(merge(v(0, i), v(rank, i), mod(i, 2) == 0), i = 1, 2 * N)])
  end subroutine test_collectives

  ! Put and Get between sections and a window.
  subroutine test_rma()
    integer :: wbuf(4 * N), a(3 * N), g(2, N), wg(2, N), w(4 * N), i
    type(MPI_Win) :: win
    type(MPI_Datatype) :: vec
    integer(MPI_ADDRESS_KIND) :: disp
    wbuf = -1
    a = [(v(rank, i), i = 1, 3 * N)]
    call MPI_Win_create(wbuf, int(4 * N * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, &
                        MPI_COMM_WORLD, win)
    call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)
    call MPI_Type_commit(vec)
    call MPI_Win_fence(0, win)
    disp = 0
    call MPI_Put(a(1:3 * N:3), N, MPI_INTEGER, right, disp, N, MPI_INTEGER, win)
    disp = N
    ! Virtual 0, 2, 4 of a(3N:1:-1): a(3N), a(3N-2), a(3N-4).
    call MPI_Put(a(3 * N:1:-1), 1, vec, right, disp, 3, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    w = -1
    w(1:N) = [(v(left, 1 + 3 * (i - 1)), i = 1, N)]
    w(N + 1:N + 3) = [v(left, 3 * N), v(left, 3 * N - 2), v(left, 3 * N - 4)]
    call expect('Put from sections', wbuf, w)
    g = -1
    disp = 0
    call MPI_Get(g(2, N:1:-1), N, MPI_INTEGER, right, disp, N, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    wg = -1
    wg(2, N:1:-1) = [(v(rank, 1 + 3 * (i - 1)), i = 1, N)]
    call expect('Get into g(2, N:1:-1)', reshape(g, [2 * N]), reshape(wg, [2 * N]))
    call MPI_Type_free(vec)
    call MPI_Win_free(win)
  end subroutine test_rma

  ! File writes from sections and reads into sections, blocking and
  ! nonblocking, at each rank's own offset.
  subroutine test_file()
    integer :: a(3 * N), b(3, N), c(2 * N), wb(3, N), wc(2 * N), i
    type(MPI_File) :: fh
    type(MPI_Request) :: req
    integer(MPI_OFFSET_KIND) :: off
    a = [(v(rank, i), i = 1, 3 * N)]
    call MPI_File_open(MPI_COMM_WORLD, 'f08_sections.dat', ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                       MPI_INFO_NULL, fh)
    off = rank * 2 * N * 4
    call MPI_File_write_at(fh, off, a(1:3 * N:3), N, MPI_INTEGER, MPI_STATUS_IGNORE)
    call MPI_File_iwrite_at(fh, off + N * 4, a(3 * N:1:-3), N, MPI_INTEGER, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_File_sync(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    b = -1
    c = -1
    call MPI_File_iread_at(fh, off, b(2, :), N, MPI_INTEGER, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_File_read_at(fh, off, c(2 * N:1:-1), 2 * N, MPI_INTEGER, MPI_STATUS_IGNORE)
    wb = -1
    wb(2, :) = [(v(rank, 1 + 3 * (i - 1)), i = 1, N)]
    call expect('File iread_at into b(2, :)', reshape(b, [3 * N]), reshape(wb, [3 * N]))
    wc(2 * N:N + 1:-1) = [(v(rank, 1 + 3 * (i - 1)), i = 1, N)]
    wc(N:1:-1) = [(v(rank, 3 * N - 3 * (i - 1)), i = 1, N)]
    call expect('File read_at into c(2N:1:-1)', c, wc)
    call MPI_File_close(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) call MPI_File_delete('f08_sections.dat', MPI_INFO_NULL)
  end subroutine test_file

  ! A count reaching outside the section fails in any call (MPI_ERR_BUFFER
  ! through the communicator's handler); what no datatype describes works
  ! on a copy, blocking or not.
  subroutine test_errors()
    integer :: a(3 * N), ierr, cls, i
    double precision :: d(2)
    type(MPI_Request) :: req, req2
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    a = 0
    call MPI_Isend(a(1:3 * N:3), N + 1, MPI_INTEGER, right, 10, MPI_COMM_WORLD, req, ierr)
    call MPI_Error_class(ierr, cls)
    if (cls /= MPI_ERR_BUFFER) call fail('count beyond the section: error class', 1, cls, &
                                         MPI_ERR_BUFFER)
    ! An 8-byte element over 4-byte elements 12 bytes apart: no datatype
    ! describes it, so the nonblocking call works on a copy (more in
    ! f08_sec_copy.f90).
    a = [(v(rank, i), i = 1, 3 * N)]
    d = 0
    call MPI_Irecv(d, 1, MPI_DOUBLE_PRECISION, left, 11, MPI_COMM_WORLD, req2, ierr)
    call MPI_Isend(a(1:3 * N:3), 1, MPI_DOUBLE_PRECISION, right, 11, MPI_COMM_WORLD, req, ierr)
    if (ierr /= MPI_SUCCESS) call fail('nonblocking straddling send', 1, ierr, MPI_SUCCESS)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Wait(req2, MPI_STATUS_IGNORE)
    call expect('nonblocking straddling send', transfer(d(1), [0, 0]), [v(left, 1), v(left, 4)])
    ! The same in a blocking call works on a copy.
    a = [(v(rank, i), i = 1, 3 * N)]
    d = 0
    call MPI_Sendrecv(a(1:12:3), 2, MPI_DOUBLE_PRECISION, right, 12, d, 2, &
                      MPI_DOUBLE_PRECISION, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) call fail('blocking straddling send', 1, ierr, MPI_SUCCESS)
    call expect('blocking straddling send', transfer(d, [0, 0, 0, 0]), &
                [v(left, 1), v(left, 4), v(left, 7), v(left, 10)])
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  end subroutine test_errors

  ! Reductions whose sendbuf and recvbuf are laid out differently (the
  ! recvbuf first receives the sendbuf's data, then the call runs in
  ! place), Ireduce with a section only at some ranks, a subarray and a
  ! struct of two types over sections, a nonblocking gather into a
  ! rank-2 section.
  subroutine test_more()
    integer :: x(N), y(3, N), wy(3, N), z(2, N), sub(4, 6), t(4, 6), wt(4, 6), i, k
    integer :: g(4, 2 * size), wg(4, 2 * size)
    real :: r(N)
    type(MPI_Request) :: req
    type(MPI_Datatype) :: subt, st, f90i
    x = [(v(rank, i), i = 1, N)]
    y = -1
    call MPI_Iscan(x, y(3, N:1:-1), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wy = -1
    wy(3, N:1:-1) = [(sum([(v(k, i), k = 0, rank)]), i = 1, N)]
    call expect('Iscan contiguous into y(3, N:1:-1)', reshape(y, [3 * N]), reshape(wy, [3 * N]))
    ! Root size-1 receives into a section; its sendbuf is a section of
    ! another stride; the other ranks send from y(1, :).
    y(1, :) = [(v(rank, i), i = 1, N)]
    z = -1
    if (rank == size - 1) then
      call MPI_Ireduce(y(1, 1:N), z(2, :), N, MPI_INTEGER, MPI_SUM, size - 1, MPI_COMM_WORLD, req)
    else
      call MPI_Ireduce(y(1, :), z, N, MPI_INTEGER, MPI_SUM, size - 1, MPI_COMM_WORLD, req)
    end if
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    if (rank == size - 1) then
      call expect('Ireduce into z(2, :)', z(2, :), [(sum([(v(k, i), k = 0, size - 1)]), i = 1, N)])
      call expect('Ireduce z(1, :) untouched', z(1, :), [(-1, i = 1, N)])
    end if
    ! A 2 x 3 subarray (Fortran order) of a 3 x 4 matrix, over the section
    ! sub(2:4, 1:4) seen as 12 contiguous integers.
    call MPI_Type_create_subarray(2, [3, 4], [2, 3], [1, 0], MPI_ORDER_FORTRAN, MPI_INTEGER, subt)
    call MPI_Type_commit(subt)
    sub = reshape([(v(rank, i), i = 1, 24)], [4, 6])
    t = -1
    call MPI_Irecv(t(1, :), 6, MPI_INTEGER, left, 20, MPI_COMM_WORLD, req)
    call MPI_Send(sub(2:4, 1:4), 1, subt, right, 20, MPI_COMM_WORLD)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wt = -1
    ! Virtual (i, j) of the 3 x 4 matrix is sub(1 + i, j); the subarray
    ! holds i = 2..3, j = 1..3.
    wt(1, :) = [((v(left, 1 + i + 4 * (k - 1)), i = 2, 3), k = 1, 3)]
    call expect('subarray type over sub(2:4, 1:4)', reshape(t, [24]), reshape(wt, [24]))
    call MPI_Type_free(subt)
    ! A struct of an INTEGER and a REAL (both 4 bytes) over x(N:1:-2).
    call MPI_Type_create_struct(2, [1, 1], [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND], &
                                [MPI_INTEGER, MPI_REAL], st)
    call MPI_Type_commit(st)
    r = 0
    x = [(v(rank, i), i = 1, N)]
    x(N - 2) = transfer(real(rank) + 0.5, 0)
    x(N - 6) = transfer(real(rank) + 1.5, 0)
    y = -1
    call MPI_Irecv(y(2, 1:4), 2, st, left, 21, MPI_COMM_WORLD, req)
    call MPI_Send(x(N:1:-2), 2, st, right, 21, MPI_COMM_WORLD)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call expect('struct type integers', [y(2, 1), y(2, 3)], [v(left, N), v(left, N - 4)])
    if (transfer(y(2, 2), 0.0) /= real(left) + 0.5 .or. transfer(y(2, 4), 0.0) /= real(left) + 1.5) &
      call fail('struct type reals', 2, y(2, 2), transfer(real(left) + 0.5, 0))
    call MPI_Type_free(st)
    ! A vector of an MPI_Type_create_f90_integer type over x(N:1:-1):
    ! virtual 0, 3, 6 are x(N), x(N - 3), x(N - 6).
    call MPI_Type_create_f90_integer(9, f90i)
    call MPI_Type_vector(3, 1, 3, f90i, st)
    call MPI_Type_commit(st)
    x = [(v(rank, i), i = 1, N)]
    y = -1
    call MPI_Irecv(y(1, 1:3), 3, MPI_INTEGER, left, 22, MPI_COMM_WORLD, req)
    call MPI_Send(x(N:1:-1), 1, st, right, 22, MPI_COMM_WORLD)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call expect('vector of an F90 integer type', y(1, 1:3), [v(left, N), v(left, N - 3), &
                v(left, N - 6)])
    call MPI_Type_free(st)
    ! Igather of 4 integers per rank into g(2:3, :) (2 x 2*size): each
    ! rank's block is two whole columns.
    g = -1
    call MPI_Igather(x(1:8:2), 4, MPI_INTEGER, g(2:3, :), 4, MPI_INTEGER, 0, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    if (rank == 0) then
      wg = -1
      do k = 0, size - 1
        wg(2:3, 2 * k + 1:2 * k + 2) = reshape([(v(k, 2 * i - 1), i = 1, 4)], [2, 2])
      end do
      ! (x(1:8:2) still holds v(rank, 1), v(rank, 3), ...: only x(N - 2)
      ! and x(N - 6) were changed above.)
      call expect('Igather into g(2:3, :)', reshape(g, [8 * size]), reshape(wg, [8 * size]))
    end if
    call test_v()
  end subroutine test_more

  ! The v collectives (per-peer counts and displacements) with sections:
  ! Igatherv into g(3, :) (rank k gives mod(k, 3) + 1 integers, one after
  ! the other from displacement 1), Ialltoallv between sections of
  ! different strides.
  subroutine test_v()
    integer :: x(N), g(3, 3 * size + 1), wg(3, 3 * size + 1), ng
    integer :: s(2, 2 * size), r(4 * size), wr(4 * size), k, i
    integer :: cnt(size), dsp(size), scnt(size), sdsp(size)
    type(MPI_Request) :: req
    ng = 3 * size + 1
    x = [(v(rank, i), i = 1, N)]
    do k = 0, size - 1
      cnt(k + 1) = mod(k, 3) + 1
    end do
    dsp(1) = 1
    do k = 1, size - 1
      dsp(k + 1) = dsp(k) + cnt(k)
    end do
    g = -1
    call MPI_Igatherv(x(1:2 * cnt(rank + 1):2), cnt(rank + 1), MPI_INTEGER, g(3, :), cnt, dsp, &
                      MPI_INTEGER, 0, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    if (rank == 0) then
      wg = -1
      do k = 0, size - 1
        wg(3, dsp(k + 1) + 1:dsp(k + 1) + cnt(k + 1)) = [(v(k, 2 * i - 1), i = 1, cnt(k + 1))]
      end do
      call expect('Igatherv into g(3, :)', reshape(g, [3 * ng]), reshape(wg, [3 * ng]))
    end if
    ! To rank k: 2 integers from s(2, 2k+1:2k+2), into r(4k+3:4k+4 step
    ! -1 reversed): r is received through the section r(4 * size:1:-2).
    s = reshape([(v(rank, i), i = 1, 4 * size)], [2, 2 * size])
    scnt = 2
    sdsp = [(2 * k, k = 0, size - 1)]
    r = -1
    call MPI_Ialltoallv(s(2, :), scnt, sdsp, MPI_INTEGER, r(4 * size:1:-2), scnt, sdsp, &
                        MPI_INTEGER, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    wr = -1
    do k = 0, size - 1
      ! From rank k: its s(2, 2 * rank + 1), s(2, 2 * rank + 2), landing at
      ! virtual 2k, 2k + 1 of r(4 * size:1:-2): r(4 * size - 4k) and
      ! r(4 * size - 4k - 2).
      wr(4 * size - 4 * k) = v(k, 2 * (2 * rank + 1))
      wr(4 * size - 4 * k - 2) = v(k, 2 * (2 * rank + 2))
    end do
    call expect('Ialltoallv between sections', r, wr)
  end subroutine test_v

end program f08_sections
