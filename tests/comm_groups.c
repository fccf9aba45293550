/*
 * comm_groups.c: communicator construction (dup, split, split_type, create),
 * comparison, naming and freeing; group construction and comparison; and
 * isolation of traffic between a communicator and its duplicate.
 */
#include "zt.h"

/* Dup is congruent, split with reversed keys is similar, a split in halves
 * is unequal, and a communicator is identical to itself. */
static void check_compare(int rank, int size)
{
    MPI_Comm dup, rev, half;
    int res = -1;

    ZT_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    ZT_EQ(res, MPI_IDENT, "compare(world, world)");
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    ZT_EQ(res, MPI_CONGRUENT, "compare(world, dup of world)");
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    ZT_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    ZT_EQ(res, size > 1 ? MPI_SIMILAR : MPI_CONGRUENT,
          "compare(world, world reversed)");
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half));
    ZT_OK(MPI_Comm_compare(MPI_COMM_WORLD, half, &res));
    ZT_EQ(res, size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT, "compare(world, half)");
    ZT_OK(MPI_Comm_free(&dup));
    ZT_OK(MPI_Comm_free(&rev));
    ZT_OK(MPI_Comm_free(&half));
    ZT_CHECK(dup == MPI_COMM_NULL && half == MPI_COMM_NULL,
             "MPI_Comm_free did not reset the handle");
}

/* Split by rank % 3 with key -rank: sizes and ranks follow, MPI_UNDEFINED
 * gives MPI_COMM_NULL, and a Bcast inside each part stays inside it. */
static void check_split(int rank, int size)
{
    MPI_Comm part, none;
    int psize = -1, prank = -1, color = rank % 3, v;

    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &part));
    ZT_OK(MPI_Comm_size(part, &psize));
    ZT_OK(MPI_Comm_rank(part, &prank));
    int expect_size = (size - color + 2) / 3;
    ZT_EQ(psize, expect_size, "size of split part");
    /* Larger world ranks get smaller keys, hence lower part ranks. */
    ZT_EQ(prank, expect_size - 1 - rank / 3, "rank in split part");
    v = (prank == 0) ? color * 100 + rank : -1;
    ZT_OK(MPI_Bcast(&v, 1, MPI_INT, 0, part));
    int top = color + 3 * (expect_size - 1);
    ZT_EQ(v, color * 100 + top, "value broadcast inside split part");
    ZT_OK(MPI_Comm_free(&part));
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none));
    if (rank == 0) {
        ZT_OK(MPI_Comm_size(none, &psize));
        ZT_EQ(psize, 1, "size of the one-rank split");
        ZT_OK(MPI_Comm_free(&none));
    } else {
        ZT_CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a comm");
    }
}

/* All ranks of one job share one node (zmpi: one process; MPICH here: one
 * host), so MPI_COMM_TYPE_SHARED gives the whole world, ordered by key. */
static void check_split_type(int rank, int size)
{
    MPI_Comm node;
    int nsize = -1, nrank = -1;

    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank,
                              MPI_INFO_NULL, &node));
    ZT_OK(MPI_Comm_size(node, &nsize));
    ZT_OK(MPI_Comm_rank(node, &nrank));
    ZT_EQ(nsize, size, "size of the shared-memory communicator");
    ZT_EQ(nrank, size - 1 - rank, "rank in shared communicator, reversed key");
    ZT_OK(MPI_Comm_free(&node));
}

/* MPI_Comm_create on the even ranks; odd ranks get MPI_COMM_NULL. */
static void check_create(int rank, int size)
{
    MPI_Group world, even;
    MPI_Comm ecomm;
    int range[1][3] = { { 0, size - 1, 2 } }, esize = -1, erank = -1;

    ZT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    ZT_OK(MPI_Group_range_incl(world, 1, range, &even));
    ZT_OK(MPI_Comm_create(MPI_COMM_WORLD, even, &ecomm));
    if (rank % 2 == 0) {
        ZT_OK(MPI_Comm_size(ecomm, &esize));
        ZT_OK(MPI_Comm_rank(ecomm, &erank));
        ZT_EQ(esize, (size + 1) / 2, "size of the even communicator");
        ZT_EQ(erank, rank / 2, "rank in the even communicator");
        int sum = 0, one = rank;
        ZT_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ecomm));
        ZT_EQ(sum, 2 * (esize - 1) * esize / 2, "sum of even world ranks");
        ZT_OK(MPI_Comm_free(&ecomm));
    } else {
        ZT_CHECK(ecomm == MPI_COMM_NULL, "odd rank got a communicator");
    }
    ZT_OK(MPI_Group_free(&even));
    ZT_OK(MPI_Group_free(&world));
}

/* Names: the predefined ones, and a name set on a dup. */
static void check_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm dup;
    int len = -1;

    ZT_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    ZT_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world is named '%s'", name);
    ZT_EQ(len, strlen("MPI_COMM_WORLD"), "length of the world's name");
    ZT_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    ZT_CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self is named '%s'", name);
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_OK(MPI_Comm_set_name(dup, "zt dup of world"));
    ZT_OK(MPI_Comm_get_name(dup, name, &len));
    ZT_CHECK(strcmp(name, "zt dup of world") == 0, "dup is named '%s'", name);
    ZT_EQ(len, strlen("zt dup of world"), "length of the dup's name");
    ZT_OK(MPI_Comm_free(&dup));
}

/* A message sent on a dup is not received by a receive on the parent with
 * the same source and tag, even with wildcards. */
static void check_isolation(int rank, int size)
{
    MPI_Comm dup;
    MPI_Status st;
    int a = -1, b = -1;

    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int on_dup = 1000 + rank, on_world = 2000 + rank;
    MPI_Request r[2];
    ZT_OK(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]));
    ZT_OK(MPI_Send(&on_dup, 1, MPI_INT, to, 5, dup));
    ZT_OK(MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
    ZT_EQ(b, 1000 + from, "value received on the dup");
    ZT_OK(MPI_Send(&on_world, 1, MPI_INT, to, 5, MPI_COMM_WORLD));
    ZT_OK(MPI_Wait(&r[0], &st));
    ZT_EQ(a, 2000 + from, "value received on the world");
    ZT_OK(MPI_Comm_free(&dup));
}

/* Group algebra on the world group. */
static void check_groups(int rank, int size)
{
    MPI_Group w, lo, hi, odd, u, in, diff;
    int n = size / 2, res = -1, gs = -1, gr = -2;
    int *ids = zt_malloc((size_t)size * sizeof *ids);
    int *out = zt_malloc((size_t)size * sizeof *out);

    for (int i = 0; i < size; i++)
        ids[i] = i;
    ZT_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    ZT_OK(MPI_Group_incl(w, n, ids, &lo));
    ZT_OK(MPI_Group_excl(w, n, ids, &hi));
    int range[1][3] = { { 1, size - 1, 2 } };
    ZT_OK(MPI_Group_range_incl(w, 1, range, &odd));
    ZT_OK(MPI_Group_union(lo, hi, &u));
    ZT_OK(MPI_Group_compare(u, w, &res));
    ZT_EQ(res, MPI_IDENT, "compare(lo union hi, world)");
    ZT_OK(MPI_Group_union(hi, lo, &in));
    ZT_OK(MPI_Group_compare(in, w, &res));
    ZT_EQ(res, (n > 0 && size - n > 0) ? MPI_SIMILAR : MPI_IDENT,
          "compare(hi union lo, world)");
    ZT_OK(MPI_Group_free(&in));
    ZT_OK(MPI_Group_intersection(lo, odd, &in));
    ZT_OK(MPI_Group_size(in, &gs));
    ZT_EQ(gs, n / 2, "size of lo intersect odd");
    ZT_OK(MPI_Group_difference(w, odd, &diff));
    ZT_OK(MPI_Group_size(diff, &gs));
    ZT_EQ(gs, (size + 1) / 2, "size of world minus odd");
    ZT_OK(MPI_Group_rank(diff, &gr));
    ZT_EQ(gr, rank % 2 ? MPI_UNDEFINED : rank / 2, "rank in world minus odd");
    ZT_OK(MPI_Group_translate_ranks(w, size, ids, odd, out));
    for (int i = 0; i < size; i++)
        ZT_EQ(out[i], i % 2 ? i / 2 : MPI_UNDEFINED, "translated rank");
    ZT_OK(MPI_Group_compare(lo, hi, &res));
    ZT_EQ(res, MPI_UNEQUAL, "compare(lo, hi)");
    MPI_Group *all[] = { &w, &lo, &hi, &odd, &u, &in, &diff };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        ZT_OK(MPI_Group_free(all[i]));
        ZT_CHECK(*all[i] == MPI_GROUP_NULL, "Group_free left a handle");
    }
    free(ids);
    free(out);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2, "needs at least 2 ranks, has %d", size);
    check_compare(rank, size);
    check_split(rank, size);
    check_split_type(rank, size);
    check_create(rank, size);
    check_names();
    check_isolation(rank, size);
    check_groups(rank, size);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
