/*
 * group.c: process groups (ordered sets of world ranks).
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

struct zmpi_group zmpi_group_empty = { ZM_GROUP_MAGIC, 0, 1, 1 };

struct zmpi_group *zm_mpi_group_new(int n)
{
    struct zmpi_group *g = zm_core_obj_alloc(sizeof(*g) + sizeof(int) * (size_t)n);
    if (!g)
        return NULL;
    g->magic = ZM_GROUP_MAGIC;
    g->size = n;
    g->predefined = 0;
    atomic_init(&g->refs, 1);
    return g;
}

struct zmpi_group *zm_mpi_group_share(struct zmpi_group *g)
{
    if (g && ZM_UNLIKELY(zm_core_obj_in_ranks) && zm_core_rank_mem_owner(g)) {
        struct zmpi_group *s = malloc(sizeof(*g) + sizeof(int) * (size_t)g->size);
        if (s)
            memcpy(s, g, sizeof(*g) + sizeof(int) * (size_t)g->size);
        zm_mpi_group_unref(g);
        g = s;
    }
    if (g)
        g->predefined = 1;
    return g;
}

void zm_mpi_group_ref(struct zmpi_group *g)
{
    if (g && !g->predefined)
        atomic_fetch_add(&g->refs, 1);
}

void zm_mpi_group_unref(struct zmpi_group *g)
{
    if (g && !g->predefined && atomic_fetch_sub(&g->refs, 1) == 1) {
        zm_mpi_handle_forget(g);
        zm_mpi_magic_clear(&g->magic);
        zm_core_obj_free(g);
    }
}

static int check_group(const char *fn, MPI_Group g)
{
    if (g && g->magic == ZM_GROUP_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_GROUP, fn, "invalid group %s",
                        g == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "(freed or not a group)");
}

/* Position of world rank w in g, or MPI_UNDEFINED. */
static int find(const struct zmpi_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return MPI_UNDEFINED;
}

/* Return group of the n world ranks in `w` (may be empty). */
static int group_out(const char *fn, const int *w, int n, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct zmpi_group *g = zm_mpi_group_new(n);
    if (!g)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(g->world, w, sizeof(int) * (size_t)n);
    *out = g;
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    zm_mpi_enter("MPI_Group_size");
    int rc = check_group("MPI_Group_size", group);
    if (rc == MPI_SUCCESS)
        *size = group->size;
    return rc;
}
ZM_WEAK(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    zm_mpi_rank_t *me = zm_mpi_enter("MPI_Group_rank");
    int rc = check_group("MPI_Group_rank", group);
    if (rc == MPI_SUCCESS)
        *rank = find(group, me->world_rank);
    return rc;
}
ZM_WEAK(Group_rank)

/* Check a list of n distinct ranks of g; returns an MPI code. */
static int check_ranks(const char *fn, MPI_Group g, int n, const int ranks[])
{
    if (n < 0 || n > g->size)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(n=%d): invalid (group has %d ranks)", n,
                            g->size);
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]]) {
            free(seen);
            return zm_mpi_error(NULL, MPI_ERR_RANK, fn, "ranks[%d]=%d: %s (group has %d ranks)", i,
                                ranks[i], ranks[i] >= 0 && ranks[i] < g->size ? "repeated rank"
                                : "invalid rank", g->size);
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_incl";
    zm_mpi_enter(fn);
    int rc = check_group(fn, group);
    if (rc == MPI_SUCCESS)
        rc = check_ranks(fn, group, n, ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    int *w = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!w)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++)
        w[i] = group->world[ranks[i]];
    rc = group_out(fn, w, n, newgroup);
    free(w);
    return rc;
}
ZM_WEAK(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_excl";
    zm_mpi_enter(fn);
    int rc = check_group(fn, group);
    if (rc == MPI_SUCCESS)
        rc = check_ranks(fn, group, n, ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    char *drop = calloc((size_t)group->size + 1, 1);
    int *w = malloc(sizeof(int) * (size_t)(group->size + 1)), k = 0;
    if (!drop || !w) {
        free(drop);
        free(w);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < n; i++)
        drop[ranks[i]] = 1;
    for (int i = 0; i < group->size; i++)
        if (!drop[i])
            w[k++] = group->world[i];
    rc = group_out(fn, w, k, newgroup);
    free(drop);
    free(w);
    return rc;
}
ZM_WEAK(Group_excl)

/* The ranks named by n (first, last, stride) triplets of group g, in
 * order, into a new array (*out, *total).  Returns an MPI code; errors are
 * raised under fn. */
static int range_list(const char *fn, MPI_Group g, int n, int ranges[][3], int **out, int *total)
{
    if (n < 0 || (n > 0 && !ranges))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(n=%d): invalid number of ranges%s", n,
                            n > 0 ? " (ranges is NULL)" : "");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size ||
            (stride > 0 && first > last) || (stride < 0 && first < last))
            return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(ranges[%d]=(%d,%d,%d)): invalid range "
                                "(group has %d ranks)", i, first, last, stride, g->size);
    }
    /* A rank named twice is an error (MPI 4.1 section 7.3.2); finding it
     * here bounds the list by the group's size. */
    int *list = malloc(sizeof(int) * (size_t)(g->size + 1)), k = 0;
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!list || !seen) {
        free(list);
        free(seen);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], stride = ranges[i][2];
        /* Stepping by count keeps a huge stride from overflowing. */
        for (int j = 0, cnt = (ranges[i][1] - first) / stride + 1; j < cnt; j++) {
            int r = first + j * stride;
            if (seen[r]) {
                free(list);
                free(seen);
                return zm_mpi_error(NULL, MPI_ERR_RANK, fn, "(ranges[%d]): rank %d is named by "
                                    "an earlier range too", i, r);
            }
            seen[r] = 1;
            list[k++] = r;
        }
    }
    free(seen);
    *out = list;
    *total = k;
    return MPI_SUCCESS;
}

/* Group_range_incl and Group_range_excl: the ranges' ranks through
 * Group_incl / Group_excl's checks and construction. */
static int range_op(const char *fn, MPI_Group group, int n, int ranges[][3], int excl,
                    MPI_Group *newgroup)
{
    zm_mpi_enter(fn);
    int rc = check_group(fn, group), *list = NULL, total = 0;
    if (rc == MPI_SUCCESS)
        rc = range_list(fn, group, n, ranges, &list, &total);
    if (rc == MPI_SUCCESS)
        rc = check_ranks(fn, group, total, list);
    if (rc == MPI_SUCCESS)
        rc = excl ? PMPI_Group_excl(group, total, list, newgroup)
                  : PMPI_Group_incl(group, total, list, newgroup);
    free(list);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_op("MPI_Group_range_incl", group, n, ranges, 0, newgroup);
}
ZM_WEAK(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_op("MPI_Group_range_excl", group, n, ranges, 1, newgroup);
}
ZM_WEAK(Group_range_excl)

/* Union, intersection and difference share one shape: walk g1 keeping
 * members by a rule, then (union only) append g2's new members. */
static int set_op(const char *fn, MPI_Group g1, MPI_Group g2, int op, MPI_Group *out)
{
    zm_mpi_enter(fn);
    int rc = check_group(fn, g1);
    if (rc == MPI_SUCCESS)
        rc = check_group(fn, g2);
    if (rc != MPI_SUCCESS)
        return rc;
    int *w = malloc(sizeof(int) * (size_t)(g1->size + g2->size + 1)), k = 0;
    if (!w)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < g1->size; i++) {
        int in2 = find(g2, g1->world[i]) != MPI_UNDEFINED;
        if (op == 0 || (op == 1 && in2) || (op == 2 && !in2))
            w[k++] = g1->world[i];
    }
    if (op == 0)
        for (int i = 0; i < g2->size; i++)
            if (find(g1, g2->world[i]) == MPI_UNDEFINED)
                w[k++] = g2->world[i];
    rc = group_out(fn, w, k, out);
    free(w);
    return rc;
}

int PMPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", g1, g2, 0, newgroup);
}
ZM_WEAK(Group_union)

int PMPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", g1, g2, 1, newgroup);
}
ZM_WEAK(Group_intersection)

int PMPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", g1, g2, 2, newgroup);
}
ZM_WEAK(Group_difference)

int PMPI_Group_translate_ranks(MPI_Group g1, int n, const int ranks1[], MPI_Group g2,
                               int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    zm_mpi_enter(fn);
    int rc = check_group(fn, g1);
    if (rc == MPI_SUCCESS)
        rc = check_group(fn, g2);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (r < 0 || r >= g1->size)
            return zm_mpi_error(NULL, MPI_ERR_RANK, fn, "ranks1[%d]=%d: invalid rank (group has "
                                "%d ranks)", i, r, g1->size);
        ranks2[i] = find(g2, g1->world[r]);
    }
    return MPI_SUCCESS;
}
ZM_WEAK(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group g1, MPI_Group g2, int *result)
{
    const char *fn = "MPI_Group_compare";
    int rc = check_group(fn, g1);
    if (rc == MPI_SUCCESS)
        rc = check_group(fn, g2);
    if (rc != MPI_SUCCESS)
        return rc;
    if (g1->size != g2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1, same_set = 1;
    for (int i = 0; i < g1->size; i++) {
        same_order &= g1->world[i] == g2->world[i];
        same_set &= find(g2, g1->world[i]) != MPI_UNDEFINED;
    }
    *result = same_order ? MPI_IDENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}
ZM_WEAK(Group_compare)

int PMPI_Group_free(MPI_Group *group)
{
    const char *fn = "MPI_Group_free";
    zm_mpi_enter(fn);
    if (!group)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "group pointer is NULL");
    int rc = check_group(fn, *group);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_group_unref(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Group_free)
