/*
 * rma_flavors.c: every window flavor with Put and Get under fences.
 *
 *   - Win_create, Win_allocate, Win_allocate_shared and Win_create_dynamic
 *     (with attach/detach): every rank puts a block into its right
 *     neighbour's window and gets one from its left neighbour's, checked
 *     element by element;
 *   - derived datatypes on both sides: a strided origin (vector) into an
 *     indexed target, and a Get back through the same types;
 *   - the attributes (base, size, disp_unit, flavor, model), the group,
 *     the name and the info hints.
 */
#include "zt.h"

#define N 64

/* The value rank r stores at element i in round k. */
static int val(int r, int i, int k)
{
    return r * 100000 + i * 10 + k;
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int du, int flavor)
{
    void *p;
    int flag;
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &p, &flag));
    ZT_CHECK(flag && p == base, "MPI_WIN_BASE %p, expected %p", p, base);
    MPI_Aint *sz;
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    ZT_EQ(*sz, size, "MPI_WIN_SIZE");
    int *ip;
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &ip, &flag));
    ZT_EQ(*ip, du, "MPI_WIN_DISP_UNIT");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &ip, &flag));
    ZT_EQ(*ip, flavor, "MPI_WIN_CREATE_FLAVOR");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &ip, &flag));
    ZT_EQ(*ip, MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
}

/* Put a block to the right neighbour and get one from the left, at
 * element offset `off` of their windows (disp_unit sizeof(int), or 1 with
 * byte displacements when bytes is set).  `dyn` holds absolute addresses
 * of the neighbours' buffers for dynamic windows (else NULL). */
static void ring_put_get(MPI_Win win, int *local, int round, const MPI_Aint *dyn, int bytes)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[N], got[N];
    for (int i = 0; i < N; i++)
        src[i] = val(rank, i, round);
    MPI_Aint rd = 0, ld = N / 2;
    if (bytes)
        ld *= (MPI_Aint)sizeof(int);
    if (dyn) {
        rd = dyn[right];
        ld = dyn[left] + (MPI_Aint)(N / 2 * sizeof(int));
    }
    ZT_OK(MPI_Win_fence(0, win));
    ZT_OK(MPI_Put(src, N / 2, MPI_INT, right, rd, N / 2, MPI_INT, win));
    ZT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N / 2; i++)
        ZT_EQ(local[i], val(left, i, round), "element put by the left neighbour");
    for (int i = N / 2; i < N; i++)
        local[i] = val(rank, i, round);
    ZT_OK(MPI_Win_fence(0, win));
    ZT_OK(MPI_Get(got, N / 2, MPI_INT, left, ld, N / 2, MPI_INT, win));
    ZT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N / 2; i++)
        ZT_EQ(got[i], val(left, N / 2 + i, round), "element got from the left neighbour");
}

/* Derived types on both sides: origin every other int of 2*K, target the
 * K ints at indices 3i+1 (an indexed type), then get them back with the
 * types swapped. */
static void derived(MPI_Win win, int *local)
{
    enum { K = 8 };
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype vec, idx;
    int bl[K], dp[K];
    for (int i = 0; i < K; i++)
        bl[i] = 1, dp[i] = 3 * i + 1;
    ZT_OK(MPI_Type_vector(K, 1, 2, MPI_INT, &vec));
    ZT_OK(MPI_Type_indexed(K, bl, dp, MPI_INT, &idx));
    ZT_OK(MPI_Type_commit(&vec));
    ZT_OK(MPI_Type_commit(&idx));
    int src[2 * K], back[2 * K];
    for (int i = 0; i < 2 * K; i++)
        src[i] = val(rank, i, 7), back[i] = -1;
    for (int i = 0; i < N; i++)
        local[i] = -5;
    ZT_OK(MPI_Win_fence(0, win));
    ZT_OK(MPI_Put(src, 1, vec, right, 0, 1, idx, win));
    ZT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        int want = i % 3 == 1 && i / 3 < K ? val(left, 2 * (i / 3), 7) : -5;
        ZT_EQ(local[i], want, "element of the indexed target");
    }
    ZT_OK(MPI_Get(back, 1, vec, right, 0, 1, idx, win));
    ZT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 2 * K; i++)
        ZT_EQ(back[i], i % 2 ? -1 : src[i], "element got back through the vector");
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
}

static void names_groups_info(MPI_Win win)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, size, gsize, cmp;
    ZT_OK(MPI_Win_get_name(win, name, &len));
    ZT_EQ(len, 0, "length of a new window's name");
    ZT_OK(MPI_Win_set_name(win, "halo window"));
    ZT_OK(MPI_Win_get_name(win, name, &len));
    ZT_CHECK(strcmp(name, "halo window") == 0, "name '%s'", name);
    MPI_Group g, wg;
    ZT_OK(MPI_Win_get_group(win, &g));
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group_size(g, &gsize);
    ZT_EQ(gsize, size, "window group size");
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    ZT_EQ(cmp, MPI_IDENT, "window group compared with the world's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info in, out;
    char v[64];
    int flag;
    MPI_Info_create(&in);
    MPI_Info_set(in, "accumulate_ordering", "none");
    ZT_OK(MPI_Win_set_info(win, in));
    ZT_OK(MPI_Win_get_info(win, &out));
    MPI_Info_get(out, "accumulate_ordering", 63, v, &flag);
    ZT_CHECK(flag && strcmp(v, "none") == 0, "accumulate_ordering '%s'", flag ? v : "unset");
    MPI_Info_get(out, "accumulate_ops", 63, v, &flag);
    ZT_CHECK(flag && strcmp(v, "same_op_no_op") == 0, "accumulate_ops default");
    MPI_Info_free(&in);
    MPI_Info_free(&out);
}

/* Two halves of one array attached one after the other: a Put and a Get
 * across their seam reach attached memory, so they work; one that runs
 * past the second half is refused. */
static void seam(MPI_Win win, MPI_Aint *addr)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *two = zt_malloc(2 * N * sizeof(int)), src[N], got[N];
    for (int i = 0; i < 2 * N; i++)
        two[i] = -1;
    for (int i = 0; i < N; i++)
        src[i] = rank * 1000 + i;
    ZT_OK(MPI_Win_attach(win, two, N * sizeof(int)));
    ZT_OK(MPI_Win_attach(win, two + N, N * sizeof(int)));
    MPI_Aint me;
    MPI_Get_address(two, &me);
    ZT_OK(MPI_Allgather(&me, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_Aint at = MPI_Aint_add(addr[right], (N / 2) * sizeof(int));
    ZT_OK(MPI_Win_lock_all(0, win));
    ZT_OK(MPI_Put(src, N, MPI_INT, right, at, N, MPI_INT, win));
    ZT_OK(MPI_Win_flush(right, win));
    ZT_OK(MPI_Get(got, N, MPI_INT, right, at, N, MPI_INT, win));
    ZT_OK(MPI_Win_flush(right, win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Put(src, N, MPI_INT, right, MPI_Aint_add(at, N * sizeof(int)), N, MPI_INT, win);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_RMA_RANGE, "a Put past the second attached half");
    MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
    ZT_OK(MPI_Win_unlock_all(win));
    for (int i = 0; i < N; i++)
        ZT_EQ(got[i], src[i], "Get across the seam");
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 2 * N; i++) {
        int k = i - N / 2;
        ZT_EQ(two[i], k >= 0 && k < N ? left * 1000 + k : -1, "Put across the seam");
    }
    ZT_OK(MPI_Win_detach(win, two));
    ZT_OK(MPI_Win_detach(win, two + N));
    free(two);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;

    /* Win_create on the program's memory. */
    int *mem = zt_malloc(N * sizeof(int));
    ZT_OK(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win));
    check_attrs(win, mem, N * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_CREATE);
    names_groups_info(win);
    ring_put_get(win, mem, 1, NULL, 0);
    derived(win, mem);
    ZT_OK(MPI_Win_free(&win));
    ZT_CHECK(win == MPI_WIN_NULL, "MPI_Win_free sets MPI_WIN_NULL");
    free(mem);

    /* Win_allocate with byte displacements. */
    int *a;
    ZT_OK(MPI_Win_allocate(N * sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win));
    ZT_CHECK(((uintptr_t)a & 63) == 0, "Win_allocate memory is cache-line aligned");
    check_attrs(win, a, N * sizeof(int), 1, MPI_WIN_FLAVOR_ALLOCATE);
    ring_put_get(win, a, 2, NULL, 1);
    ZT_OK(MPI_Win_free(&win));

    /* Win_allocate_shared, when the world's ranks share memory (one
     * process, or processes of one node); a world across nodes is refused
     * with MPI_ERR_COMM, since nodes share no memory (docs/net.md). */
    MPI_Comm node;
    int nsize, wsize;
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_free(&node);
    if (nsize == wsize) {
        ZT_OK(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                      MPI_COMM_WORLD, &a, &win));
        check_attrs(win, a, N * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_SHARED);
        ring_put_get(win, a, 3, NULL, 0);
        derived(win, a);
        ZT_OK(MPI_Win_free(&win));
    } else {
        int cls;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                         MPI_COMM_WORLD, &a, &win);
        MPI_Error_class(rc, &cls);
        ZT_CHECK(cls == MPI_ERR_COMM, "Win_allocate_shared across nodes: MPI_ERR_COMM");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    /* Win_create_dynamic: attach, use, detach, attach another buffer. */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Aint *addr = zt_malloc(sizeof(MPI_Aint) * (size_t)size);
    ZT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    for (int round = 4; round < 6; round++) {
        int *d = zt_malloc(N * sizeof(int));
        ZT_OK(MPI_Win_attach(win, d, N * sizeof(int)));
        MPI_Aint me;
        MPI_Get_address(d, &me);
        MPI_Allgather(&me, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
        ring_put_get(win, d, round, addr, 0);
        ZT_OK(MPI_Win_detach(win, d));
        MPI_Barrier(MPI_COMM_WORLD);
        free(d);
    }
    seam(win, addr);
    ZT_OK(MPI_Win_free(&win));
    free(addr);
    MPI_Finalize();
    return 0;
}
