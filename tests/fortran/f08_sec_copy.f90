! f08_sec_copy.f90: array sections that no datatype describes, in
! nonblocking, persistent and one-sided calls of module mpi_f08 (issue 19,
! MPI_SUBARRAYS_SUPPORTED; docs/fortran.md).  Such a call works on a
! contiguous copy of the section that the library fills at the call (at
! every MPI_Start for a persistent request), writes back when the
! operation completes and frees afterwards.  The shapes: an 8-byte element
! over a section of 4-byte integers, the w collectives' buffers, the
! reduce-scatter ones, per-peer blocks that are not whole slices, a darray
! datatype, persistent reductions with differently laid out buffers; file
! calls (nonblocking, split collective) with such sections too.  Each
! check compares every element, those between the section's elements
! included (they must stay untouched); rank 0 prints "f08_sec_copy: OK"
! only when no rank found a difference.
program f08_sec_copy
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: N = 12
  integer :: rank, size, right, left, nfail

  interface
    ! The C library's own functions, to complete a request from C.
    function c_request_f2c(f) bind(C, name='PMPI_Request_f2c') result(r)
      import :: c_int, c_ptr
      integer(c_int), value :: f
      type(c_ptr) :: r
    end function c_request_f2c
    function c_wait(r, st) bind(C, name='PMPI_Wait') result(rc)
      import :: c_int, c_ptr, c_intptr_t
      type(c_ptr) :: r
      integer(c_intptr_t), value :: st
      integer(c_int) :: rc
    end function c_wait
  end interface

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  right = mod(rank + 1, size)
  left = mod(rank - 1 + size, size)
  nfail = 0

  call test_p2p()
  call test_persistent()
  call test_cancel_free()
  call test_rma_fence()
  call test_rma_lock()
  call test_w()
  call test_reduce_scatter()
  call test_peer_blocks()
  call test_darray()
  call test_reduce_layouts()
  call test_file()
  call test_partitioned()

  call MPI_Allreduce(MPI_IN_PLACE, nfail, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
  if (rank == 0 .and. nfail == 0) write(*, '(a)') 'f08_sec_copy: OK'
  if (rank == 0 .and. nfail /= 0) write(*, '(a, i0, a)') 'f08_sec_copy: ', nfail, ' failures'

contains

  ! The value rank r holds as its element i (start it: a persistent
  ! request's data change between starts).
  integer function v(r, i, it)
    integer, intent(in) :: r, i, it
    v = 100000 * it + 1000 * (r + 1) + i
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

  ! b after receiving rank r's a(1:3N:3) (start it) into b(1:2N:2): the
  ! odd elements hold it, the even ones are untouched (-1).
  subroutine expect_b(what, b, r, it)
    character(*), intent(in) :: what
    integer, intent(in) :: b(2 * N), r, it
    integer :: w(2 * N), i
    w = -1
    w(1:2 * N:2) = [(v(r, 1 + 3 * (i - 1), it), i = 1, N)]
    call expect(what, b, w)
  end subroutine expect_b

  ! Nonblocking sends and receives of N/2 8-byte reals over sections of
  ! integers 12 and 8 bytes apart: each real spans two array elements
  ! that are not adjacent, which no datatype describes.
  subroutine test_p2p()
    integer :: a(3 * N), b(2 * N), b2(2 * N), i, idx, outc, ids(4)
    type(MPI_Request) :: req(4)
    type(MPI_Status) :: st
    logical :: done(4), flag
    a = [(v(rank, i, 0), i = 1, 3 * N)]
    b = -1
    b2 = -1
    call MPI_Irecv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    call expect_b('Irecv/Isend, Waitall', b, left, 0)
    ! Waitany and Testany, then a receive completed from C
    ! (MPI_Request_f2c).
    b = -1
    call MPI_Irecv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2))
    call MPI_Waitany(2, req, idx, st)
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(2, req, idx, flag, st)
    end do
    call expect_b('Waitany and Testany', b, left, 0)
    b = -1
    call MPI_Irecv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, req(1))
    call MPI_Send(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD)
    if (c_wait(c_request_f2c(req(1)%MPI_VAL), 1_c_intptr_t) /= 0) &
      call fail('PMPI_Wait from C', 1, 1, 0)
    call expect_b('completed by PMPI_Wait from C', b, left, 0)
    ! Testsome with two section receives and two contiguous sends.
    b = -1
    call MPI_Irecv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, req(1))
    call MPI_Irecv(b2(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, req(2))
    call MPI_Isend(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, req(3))
    call MPI_Isend(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, req(4))
    done = .false.
    do while (.not. all(done))
      call MPI_Testsome(4, req, outc, ids, MPI_STATUSES_IGNORE)
      do i = 1, outc
        done(ids(i)) = .true.
        if (ids(i) == 1) call expect_b('Testsome receive 1', b, left, 0)
        if (ids(i) == 2) call expect_b('Testsome receive 2', b2, left, 0)
      end do
    end do
  end subroutine test_p2p

  ! Persistent send and receive of sections, started three times with
  ! new data each time, completed by Waitall, Wait and Testall.
  subroutine test_persistent()
    integer :: a(3 * N), b(2 * N), i, it
    type(MPI_Request) :: req(2)
    logical :: flag
    call MPI_Recv_init(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 10, MPI_COMM_WORLD, &
                       req(1))
    call MPI_Send_init(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 10, MPI_COMM_WORLD, &
                       req(2))
    do it = 1, 3
      a = [(v(rank, i, it), i = 1, 3 * N)]
      b = -1
      call MPI_Startall(2, req)
      if (it == 1) then
        call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
      else if (it == 2) then
        call MPI_Wait(req(2), MPI_STATUS_IGNORE)
        call MPI_Wait(req(1), MPI_STATUS_IGNORE)
      else
        flag = .false.
        do while (.not. flag)
          call MPI_Testall(2, req, flag, MPI_STATUSES_IGNORE)
        end do
      end if
      call expect_b('persistent receive', b, left, it)
    end do
    call MPI_Request_free(req(1))
    call MPI_Request_free(req(2))
  end subroutine test_persistent

  ! A cancelled receive into a section writes nothing into it; a send
  ! freed while active still delivers (its copy is freed once done).
  subroutine test_cancel_free()
    integer :: a(3 * N), b(2 * N), i
    type(MPI_Request) :: req
    type(MPI_Status) :: st
    logical :: flag
    b = -1
    call MPI_Irecv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 99, &
                   MPI_COMM_WORLD, req)
    call MPI_Cancel(req)
    call MPI_Wait(req, st)
    call MPI_Test_cancelled(st, flag)
    if (.not. flag) call fail('cancelled receive: not cancelled', 1, 0, 1)
    call expect('cancelled receive', b, [(-1, i = 1, 2 * N)])
    a = [(v(rank, i, 7), i = 1, 3 * N)]
    call MPI_Isend(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 11, MPI_COMM_WORLD, req)
    call MPI_Request_free(req)
    call MPI_Recv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 11, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE)
    call expect_b('send freed while active', b, left, 7)
    ! A receive freed while active: its copy stays until the message
    ! arrives (the library frees both afterwards), which a memory checker
    ! sees.  The barrier orders the free before the send.
    call MPI_Irecv(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, left, 12, MPI_COMM_WORLD, req)
    call MPI_Request_free(req)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Send(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 12, MPI_COMM_WORLD)
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine test_cancel_free

  ! Fence epochs: Put, Get, Accumulate and Get_accumulate with sections
  ! of integers as 8-byte reals; the results appear at the next fence.
  subroutine test_rma_fence()
    integer, asynchronous :: w(4 * N)
    integer :: a(3 * N), b(2 * N), i, want(4 * N)
    type(MPI_Win) :: win
    integer(MPI_ADDRESS_KIND), parameter :: n4 = N
    w = -1
    call MPI_Win_create(w, int(4 * 4 * N, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, &
                        MPI_COMM_WORLD, win)
    a = [(v(rank, i, 0), i = 1, 3 * N)]
    call MPI_Win_fence(0, win)
    call MPI_Put(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, N / 2, &
                 MPI_DOUBLE_PRECISION, win)
    call MPI_Accumulate(a(2:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, n4, N / 2, &
                        MPI_DOUBLE_PRECISION, MPI_REPLACE, win)
    call MPI_Win_fence(0, win)
    want = -1
    want(1:N) = [(v(left, 1 + 3 * (i - 1), 0), i = 1, N)]
    want(N + 1:2 * N) = [(v(left, 2 + 3 * (i - 1), 0), i = 1, N)]
    call expect('Put and Accumulate targets', w, want)
    b = -1
    call MPI_Get(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, N / 2, &
                 MPI_DOUBLE_PRECISION, win)
    call MPI_Win_fence(0, win)
    ! right's w(1:N) came from right's left neighbour: this rank.
    call expect_b('Get into a section', b, rank, 0)
    b = -1
    call MPI_Get_accumulate(a(3:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, b(1:2 * N:2), N / 2, &
                            MPI_DOUBLE_PRECISION, right, n4, N / 2, MPI_DOUBLE_PRECISION, &
                            MPI_REPLACE, win)
    call MPI_Win_fence(0, win)
    want = -1
    want(1:2 * N:2) = [(v(rank, 2 + 3 * (i - 1), 0), i = 1, N)]
    call expect('Get_accumulate result into a section', b, want(1:2 * N))
    call expect('Get_accumulate target', w(N + 1:2 * N), [(v(left, 3 + 3 * (i - 1), 0), i = 1, N)])
    call MPI_Win_free(win)
  end subroutine test_rma_fence

  ! Passive target: Rput/Rget (requests), flushes, Fetch_and_op and
  ! Compare_and_swap of one 8-byte integer over two integers apart.
  subroutine test_rma_lock()
    integer, asynchronous :: w(4 * N)
    integer :: a(3 * N), b(2 * N), c(4), r(4), i
    type(MPI_Win) :: win
    type(MPI_Request) :: req
    integer(MPI_ADDRESS_KIND), parameter :: n2 = 2 * N
    w = -1
    call MPI_Win_create(w, int(4 * 4 * N, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, &
                        MPI_COMM_WORLD, win)
    a = [(v(rank, i, 5), i = 1, 3 * N)]
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win)
    call MPI_Rput(a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, N / 2, &
                  MPI_DOUBLE_PRECISION, win, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Win_flush(right, win)
    b = -1
    call MPI_Rget(b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, N / 2, &
                  MPI_DOUBLE_PRECISION, win, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call expect_b('Rget into a section', b, rank, 5)
    ! Fetch_and_op: c(1:4:3) as one 8-byte integer replaces right's w(2N+1:2N+2);
    ! the old value (-1, -1) lands in r(1:4:3).
    c = [v(rank, 1, 6), -7, -7, v(rank, 2, 6)]
    r = -5
    call MPI_Fetch_and_op(c(1:4:3), r(1:4:3), MPI_INTEGER8, right, n2, MPI_REPLACE, win)
    call MPI_Win_flush(right, win)
    call expect('Fetch_and_op result', r, [-1, -5, -5, -1])
    ! Compare_and_swap: compare with what is there now (c's value), swap
    ! in r's (-1, -1); the old value lands in a(1:4:3).
    a(1:4) = -9
    call MPI_Compare_and_swap(r(1:4:3), c(1:4:3), a(1:4:3), MPI_INTEGER8, right, n2, win)
    call MPI_Win_unlock(right, win)
    call expect('Compare_and_swap result', a(1:4), [v(rank, 1, 6), -9, -9, v(rank, 2, 6)])
    call MPI_Barrier(MPI_COMM_WORLD)
    call expect('Compare_and_swap target', w(2 * N + 1:2 * N + 2), [-1, -1])
    call expect('Rput target', w(1:N), [(v(left, 1 + 3 * (i - 1), 5), i = 1, N)])
    call MPI_Win_free(win)
  end subroutine test_rma_lock

  ! The w collectives: one integer to each peer k from s(2, k + 1), into
  ! r(2k + 1) of the section r(1:2 size:2); nonblocking, then persistent
  ! three times.
  subroutine test_w()
    integer :: s(3, size), r(2 * size), want(2 * size), k, it
    integer :: cnt(size), dsp(size)
    type(MPI_Datatype) :: types(size)
    type(MPI_Request) :: req
    cnt = 1
    dsp = [(4 * k, k = 0, size - 1)]
    types = MPI_INTEGER
    do it = 0, 3
      if (it == 1) call MPI_Alltoallw_init(s(2, :), cnt, dsp, types, r(1:2 * size:2), cnt, &
                                           dsp, types, MPI_COMM_WORLD, MPI_INFO_NULL, req)
      s = -3
      s(2, :) = [(v(rank, k, it), k = 0, size - 1)]
      r = -1
      if (it == 0) then
        call MPI_Ialltoallw(s(2, :), cnt, dsp, types, r(1:2 * size:2), cnt, dsp, types, &
                            MPI_COMM_WORLD, req)
      else
        call MPI_Start(req)
      end if
      call MPI_Wait(req, MPI_STATUS_IGNORE)
      want = -1
      want(1:2 * size:2) = [(v(k, rank, it), k = 0, size - 1)]
      call expect('alltoallw into r(1:2 size:2)', r, want)
    end do
    call MPI_Request_free(req)
  end subroutine test_w

  ! Reduce_scatter_block and Reduce_scatter: 2 integers per rank, from
  ! x(1:4 size:2), into y(1:4:3).
  subroutine test_reduce_scatter()
    integer :: x(4 * size), y(4), want(4), k, i, it, cnt(size)
    type(MPI_Request) :: req
    cnt = 2
    do it = 0, 3
      if (it == 1) call MPI_Reduce_scatter_init(x(1:4 * size:2), y(1:4:3), cnt, MPI_INTEGER, &
                                                MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req)
      x = -3
      x(1:4 * size:2) = [(v(rank, i, it), i = 1, 2 * size)]
      y = -1
      if (it == 0) then
        call MPI_Ireduce_scatter_block(x(1:4 * size:2), y(1:4:3), 2, MPI_INTEGER, MPI_SUM, &
                                       MPI_COMM_WORLD, req)
      else
        call MPI_Start(req)
      end if
      call MPI_Wait(req, MPI_STATUS_IGNORE)
      want = [(sum([(v(k, 2 * rank + 1, it), k = 0, size - 1)])), -1, -1, &
              (sum([(v(k, 2 * rank + 2, it), k = 0, size - 1)]))]
      call expect('reduce-scatter into y(1:4:3)', y, want)
    end do
    call MPI_Request_free(req)
    y = -1
    x(1:4 * size:2) = [(v(rank, i, 0), i = 1, 2 * size)]
    call MPI_Ireduce_scatter(x(1:4 * size:2), y(1:4:3), cnt, MPI_INTEGER, MPI_SUM, &
                             MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    want = [(sum([(v(k, 2 * rank + 1, 0), k = 0, size - 1)])), -1, -1, &
            (sum([(v(k, 2 * rank + 2, 0), k = 0, size - 1)]))]
    call expect('Ireduce_scatter into y(1:4:3)', y, want)
  end subroutine test_reduce_scatter

  ! Alltoall of one integer per peer over rank-2 sections whose slices
  ! hold two: a block is not a whole slice.
  subroutine test_peer_blocks()
    integer :: s(4, size), r(3, size), want(3, size), k, it
    type(MPI_Request) :: req
    do it = 0, 3
      if (it == 1) call MPI_Alltoall_init(s(2:3, :), 1, MPI_INTEGER, r(1:2, :), 1, MPI_INTEGER, &
                                          MPI_COMM_WORLD, MPI_INFO_NULL, req)
      s = -3
      ! Virtual element k of s(2:3, :) goes to peer k.
      s(2:3, :) = reshape([(v(rank, k, it), k = 0, 2 * size - 1)], [2, size])
      r = -1
      if (it == 0) then
        call MPI_Ialltoall(s(2:3, :), 1, MPI_INTEGER, r(1:2, :), 1, MPI_INTEGER, &
                           MPI_COMM_WORLD, req)
      else
        call MPI_Start(req)
      end if
      call MPI_Wait(req, MPI_STATUS_IGNORE)
      ! From peer k: its virtual element rank, at virtual element k here.
      want = -1
      want(1:2, :) = reshape([(v(k, rank, it), k = 0, size - 1), (-1, k = 1, size)], [2, size])
      call expect('alltoall of part slices', reshape(r, [3 * size]), reshape(want, [3 * size]))
    end do
    call MPI_Request_free(req)
  end subroutine test_peer_blocks

  ! A darray datatype (one process holding the whole block) over a
  ! section: nonblocking and persistent sends.
  subroutine test_darray()
    integer :: a(3 * N), b(N), i, it
    type(MPI_Datatype) :: da
    type(MPI_Request) :: req(2)
    call MPI_Type_create_darray(1, 0, 1, [N], [MPI_DISTRIBUTE_BLOCK], [MPI_DISTRIBUTE_DFLT_DARG], &
                                [1], MPI_ORDER_FORTRAN, MPI_INTEGER, da)
    call MPI_Type_commit(da)
    do it = 0, 3
      if (it == 1) then
        call MPI_Send_init(a(3 * N:1:-3), 1, da, right, 30, MPI_COMM_WORLD, req(2))
        call MPI_Recv_init(b, N, MPI_INTEGER, left, 30, MPI_COMM_WORLD, req(1))
      end if
      a = [(v(rank, i, it), i = 1, 3 * N)]
      b = -1
      if (it == 0) then
        call MPI_Irecv(b, N, MPI_INTEGER, left, 30, MPI_COMM_WORLD, req(1))
        call MPI_Isend(a(3 * N:1:-3), 1, da, right, 30, MPI_COMM_WORLD, req(2))
      else
        call MPI_Startall(2, req)
      end if
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
      call expect('darray over a(3N:1:-3)', b, [(v(left, 3 * N - 3 * (i - 1), it), i = 1, N)])
    end do
    call MPI_Request_free(req(1))
    call MPI_Request_free(req(2))
    call MPI_Type_free(da)
  end subroutine test_darray

  ! Persistent reductions whose sendbuf and recvbuf are laid out
  ! differently: Allreduce_init from a contiguous array into y(2, :),
  ! Reduce_init between sections of different strides.
  subroutine test_reduce_layouts()
    integer :: x(N), y(3, N), z(2 * N), z2(2 * N), want(3, N), want2(2 * N), k, i, it
    type(MPI_Request) :: req(2)
    call MPI_Allreduce_init(x, y(2, :), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                            MPI_INFO_NULL, req(1))
    call MPI_Reduce_init(z(1:2 * N:2), y(3, N:1:-1), N, MPI_INTEGER, MPI_SUM, 0, &
                         MPI_COMM_WORLD, MPI_INFO_NULL, req(2))
    do it = 1, 3
      x = [(v(rank, i, it), i = 1, N)]
      z = -3
      z(1:2 * N:2) = [(v(rank, i, it + 10), i = 1, N)]
      y = -1
      call MPI_Start(req(1))
      call MPI_Start(req(2))
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
      want = -1
      want(2, :) = [(sum([(v(k, i, it), k = 0, size - 1)]), i = 1, N)]
      if (rank == 0) want(3, N:1:-1) = [(sum([(v(k, i, it + 10), k = 0, size - 1)]), i = 1, N)]
      call expect('persistent reductions, other layouts', reshape(y, [3 * N]), &
                  reshape(want, [3 * N]))
    end do
    call MPI_Request_free(req(1))
    call MPI_Request_free(req(2))
    ! Sections with an 8-byte integer over two 4-byte ones apart (the
    ! high halves are 0, the sums fit the low ones): alike (both copied),
    ! then of other strides (run in place on the recvbuf's copy).
    z = -3
    z(1:2 * N:4) = [(v(rank, i, 0), i = 1, N / 2)]
    z(3:2 * N:4) = 0
    z2 = -1
    call MPI_Iallreduce(z(1:2 * N:2), z2(1:2 * N:2), N / 2, MPI_INTEGER8, MPI_SUM, &
                        MPI_COMM_WORLD, req(1))
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    want2 = -1
    want2(1:2 * N:4) = [(sum([(v(k, i, 0), k = 0, size - 1)]), i = 1, N / 2)]
    want2(3:2 * N:4) = 0
    call expect('Iallreduce of alike copied sections', z2, want2)
    y = -1
    call MPI_Iallreduce(z(1:2 * N:2), y(1, :), N / 2, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, &
                        req(1))
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    want = -1
    want(1, :) = want2(1:2 * N:2)
    call expect('Iallreduce of copied sections, other strides', reshape(y, [3 * N]), &
                reshape(want, [3 * N]))
  end subroutine test_reduce_layouts

  ! Nonblocking and split collective file calls with sections of
  ! integers as 8-byte reals, at each rank's own offset.
  subroutine test_file()
    integer :: a(3 * N), b(2 * N), b2(2 * N), want(2 * N), i
    type(MPI_File) :: fh
    type(MPI_Request) :: req
    integer(MPI_OFFSET_KIND) :: off
    a = [(v(rank, i, 0), i = 1, 3 * N)]
    call MPI_File_open(MPI_COMM_WORLD, 'f08_sec_copy.dat', ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                       MPI_INFO_NULL, fh)
    off = rank * 2 * N * 4
    call MPI_File_iwrite_at(fh, off, a(1:3 * N:3), N / 2, MPI_DOUBLE_PRECISION, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_File_write_at_all_begin(fh, off + N * 4, a(2:3 * N:3), N / 2, MPI_DOUBLE_PRECISION)
    call MPI_File_write_at_all_end(fh, a(2:3 * N:3), MPI_STATUS_IGNORE)
    call MPI_File_sync(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    b = -1
    b2 = -1
    call MPI_File_iread_at(fh, off, b(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call expect_b('File_iread_at into a section', b, rank, 0)
    call MPI_File_read_at_all_begin(fh, off + N * 4, b2(1:2 * N:2), N / 2, MPI_DOUBLE_PRECISION)
    call MPI_File_read_at_all_end(fh, b2(1:2 * N:2), MPI_STATUS_IGNORE)
    want = -1
    want(1:2 * N:2) = [(v(rank, 2 + 3 * (i - 1), 0), i = 1, N)]
    call expect('File_read_at_all_begin/end into a section', b2, want)
    call MPI_File_close(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) call MPI_File_delete('f08_sec_copy.dat', MPI_INFO_NULL)
  end subroutine test_file

  ! Partitioned send and receive of the same sections, two partitions of
  ! N/4 reals each, started three times with new data: the sender fills
  ! its section after MPI_Start and readies one partition, then the other;
  ! the receiver polls MPI_Parrived for partition 1, whose elements must
  ! then be in its section already (the copy is written back there), and
  ! finds everything after MPI_Wait.
  subroutine test_partitioned()
    integer :: a(3 * N), b(2 * N), i, it, w(2 * N)
    type(MPI_Request) :: sreq, rreq
    logical :: flag
    call MPI_Psend_init(a(1:3 * N:3), 2, int(N / 4, MPI_COUNT_KIND), MPI_DOUBLE_PRECISION, &
                        right, 40, MPI_COMM_WORLD, MPI_INFO_NULL, sreq)
    call MPI_Precv_init(b(1:2 * N:2), 2, int(N / 4, MPI_COUNT_KIND), MPI_DOUBLE_PRECISION, &
                        left, 40, MPI_COMM_WORLD, MPI_INFO_NULL, rreq)
    do it = 1, 3
      a = -7
      b = -1
      call MPI_Start(rreq)
      call MPI_Start(sreq)
      a = [(v(rank, i, it), i = 1, 3 * N)]
      call MPI_Pready(1, sreq)
      flag = .false.
      do while (.not. flag)
        call MPI_Parrived(rreq, 1, flag)
      end do
      w = -1
      w(1:2 * N:2) = [(v(left, 1 + 3 * (i - 1), it), i = 1, N)]
      call expect('Parrived partition 1 of a section', b(N + 1:2 * N), w(N + 1:2 * N))
      call MPI_Pready(0, sreq)
      call MPI_Wait(sreq, MPI_STATUS_IGNORE)
      call MPI_Wait(rreq, MPI_STATUS_IGNORE)
      call expect_b('Psend_init/Precv_init of sections', b, left, it)
    end do
    call MPI_Request_free(sreq)
    call MPI_Request_free(rreq)
  end subroutine test_partitioned

end program f08_sec_copy
