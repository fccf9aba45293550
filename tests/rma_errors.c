/*
 * rma_errors.c: wrong one-sided calls return the right error class under
 * MPI_ERRORS_RETURN on the window, and never write outside the window:
 * the guard words around every rank's window stay as they were.
 */
#include "zt.h"

#define W 8      /* window ints */
#define GUARD 8  /* guard ints on each side */

static void expect(int rc, int cls, const char *what)
{
    int got = -1;
    MPI_Error_class(rc, &got);
    ZT_CHECK(rc != MPI_SUCCESS && got == cls, "%s: got class %d (rc %d), expected %d", what,
             got, rc, cls);
}

static int sum_op_fn_called;
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    sum_op_fn_called = 1;
}

static void epoch_errors(MPI_Win win, int rank, int size)
{
    int v = 1, right = (rank + 1) % size;
    expect(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
           "MPI_Put outside any epoch");
    expect(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "unlock without lock");
    expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "unlock_all without lock_all");
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete without start");
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait without post");
    expect(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC, "flush outside a lock epoch");
    expect(MPI_Win_lock(99, right, 0, win), MPI_ERR_LOCKTYPE, "bad lock type");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK, "lock of a bad rank");
    expect(MPI_Win_fence(1, win), MPI_ERR_ASSERT, "fence with a bad assert");
    ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    expect(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC, "lock twice");
    expect(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "fence inside a lock epoch");
    MPI_Win cp = win;
    expect(MPI_Win_free(&cp), MPI_ERR_RMA_SYNC, "free with a lock held");
    ZT_OK(MPI_Win_unlock(right, win));
    /* Request forms need a passive-target epoch. */
    MPI_Request rq = MPI_REQUEST_NULL;
    ZT_OK(MPI_Win_fence(0, win));
    expect(MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC,
           "MPI_Rput in a fence epoch");
    ZT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
}

static void access_errors(MPI_Win win, int rank, int size)
{
    int v[2 * W], r = 0, right = (rank + 1) % size;
    double d = 1.0;
    for (int i = 0; i < 2 * W; i++)
        v[i] = 1000 + i;
    ZT_OK(MPI_Win_fence(0, win));
    expect(MPI_Put(v, 1, MPI_INT, right, W, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "MPI_Put one past the end");
    expect(MPI_Put(v, 2, MPI_INT, right, W - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "MPI_Put straddling the end");
    expect(MPI_Put(v, 1, MPI_INT, right, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "MPI_Put at a negative displacement");
    expect(MPI_Get(v, 2 * W, MPI_INT, right, 0, 2 * W, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "MPI_Get of more than the window");
    expect(MPI_Accumulate(v, 1, MPI_INT, right, (MPI_Aint)1 << 61, 1, MPI_INT, MPI_SUM, win),
           MPI_ERR_RMA_RANGE, "MPI_Accumulate at a huge displacement");
    /* The same through the inline path of blocking Put and Get (one
     * contiguous type on both sides): it must fall back and report too. */
    expect(MPI_Put(v, 1, MPI_INT, right, (MPI_Aint)1 << 62, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "MPI_Put at a displacement whose byte offset passes 2^64");
    expect(MPI_Get(v, 1, MPI_INT, right, W, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "MPI_Get one past the end");
    expect(MPI_Get(v, 1, MPI_INT, -3, 0, 1, MPI_INT, win), MPI_ERR_RANK, "MPI_Get of rank -3");
    expect(MPI_Get(v, 1, MPI_INT, right, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_TYPE,
           "MPI_Get into MPI_DATATYPE_NULL");
    expect(MPI_Put(v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK, "bad target rank");
    expect(MPI_Put(v, -1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT, "negative count");
    expect(MPI_Put(v, 2, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE, "size mismatch");
    expect(MPI_Put(v, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE,
           "MPI_DATATYPE_NULL");
    expect(MPI_Accumulate(&d, 1, MPI_DOUBLE, right, 0, 2, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE,
           "accumulate of doubles into ints");
    expect(MPI_Accumulate(v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP,
           "MPI_Accumulate with MPI_NO_OP");
    MPI_Op uop;
    MPI_Op_create(user_fn, 1, &uop);
    expect(MPI_Accumulate(v, 1, MPI_INT, right, 0, 1, MPI_INT, uop, win), MPI_ERR_OP,
           "MPI_Accumulate with a user op");
    MPI_Op_free(&uop);
    ZT_CHECK(!sum_op_fn_called, "the user op was not called");
    expect(MPI_Accumulate(&d, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, MPI_BAND, win),
           MPI_ERR_OP, "MPI_BAND on doubles");
    /* With no element, any predefined op goes (as in MPICH and Open MPI). */
    ZT_OK(MPI_Get_accumulate(v, 0, MPI_BYTE, &r, 0, MPI_BYTE, right, 0, 0, MPI_BYTE, MPI_SUM,
                             win));
    /* Nor do sides without data need to agree on their types: a type of
     * size 0 on one side, doubles with count 0 on the other. */
    MPI_Datatype empty;
    ZT_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    ZT_OK(MPI_Type_commit(&empty));
    ZT_OK(MPI_Accumulate(v, 1, empty, right, 0, 0, MPI_DOUBLE, MPI_SUM, win));
    ZT_OK(MPI_Accumulate(v, 0, MPI_INT, right, 0, 1, empty, MPI_SUM, win));
    ZT_OK(MPI_Get_accumulate(v, 0, MPI_DOUBLE, &r, 2, empty, right, 0, 0, MPI_INT, MPI_SUM,
                             win));
    MPI_Type_free(&empty);
    expect(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, right, 0, win), MPI_ERR_TYPE,
           "MPI_Compare_and_swap on a double");
    expect(MPI_Fetch_and_op(v, &r, MPI_INT, right, W, MPI_SUM, win), MPI_ERR_RMA_RANGE,
           "MPI_Fetch_and_op past the end");
    expect(MPI_Win_attach(win, v, sizeof(v)), MPI_ERR_RMA_FLAVOR, "attach to a non-dynamic window");
    /* MPI_PROC_NULL targets are no-ops. */
    ZT_OK(MPI_Put(v, 1, MPI_INT, MPI_PROC_NULL, 1 << 30, 1, MPI_INT, win));
    ZT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
}

static void dynamic_errors(int rank, int size)
{
    MPI_Win win;
    int buf[4] = { 0 }, v = 5, right = (rank + 1) % size;
    ZT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    ZT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Win_attach(win, buf, sizeof(buf)));
    expect(MPI_Win_attach(win, buf + 1, sizeof(int)), MPI_ERR_RMA_ATTACH, "overlapping attach");
    MPI_Aint a, all[1024];
    MPI_Get_address(buf, &a);
    MPI_Allgather(&a, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    ZT_OK(MPI_Put(&v, 1, MPI_INT, right, all[right] + 3 * (MPI_Aint)sizeof(int), 1, MPI_INT,
                  win));
    expect(MPI_Put(&v, 1, MPI_INT, right, all[right] + 4 * (MPI_Aint)sizeof(int), 1, MPI_INT,
                   win), MPI_ERR_RMA_RANGE, "MPI_Put past the attached region");
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_EQ(buf[3], 5, "element put into the attached region");
    ZT_OK(MPI_Win_detach(win, buf));
    expect(MPI_Win_detach(win, buf), MPI_ERR_RMA_ATTACH, "detach twice");
    ZT_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem = zt_malloc((W + 2 * GUARD) * sizeof(int));
    for (int i = 0; i < W + 2 * GUARD; i++)
        mem[i] = -7;
    MPI_Win win;
    ZT_OK(MPI_Win_create(mem + GUARD, W * sizeof(int), sizeof(int), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win));
    ZT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    epoch_errors(win, rank, size);
    access_errors(win, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < W + 2 * GUARD; i++)
        ZT_EQ(mem[i], -7, "window or guard word after refused accesses");
    MPI_Win keep = win;
    ZT_OK(MPI_Win_free(&win));
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int v = 0;
    expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, keep), MPI_ERR_WIN, "a freed window");
    expect(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_WIN_NULL");
    free(mem);
    if (size <= 1024)
        dynamic_errors(rank, size);
    MPI_Finalize();
    return 0;
}
