/*
 * attr_finalize.c: MPI_Finalize first deletes the attributes on
 * MPI_COMM_SELF, newest first (MPI 4.1 section 11.2.2), while MPI is still
 * usable: MPI_Finalized says false in the callbacks, which may call MPI.
 * zmpi then deletes those on MPI_COMM_WORLD the same way.  The keys are
 * freed before MPI_Finalize: the attributes keep them alive.
 */
#include "zt.h"

#include <stdint.h>

#define NSELF 20
#define NWORLD 5

/* What the delete callbacks saw (one per rank, through extra_state). */
struct seen {
    int n;
    int value[NSELF + NWORLD];
    int finalized;              /* calls that saw MPI_Finalized true */
    int bad_rank;               /* calls where MPI_Comm_rank failed */
};

static int record(MPI_Comm comm, int keyval, void *value, void *extra)
{
    struct seen *s = extra;
    int flag = 0, rank = -1;
    (void)comm;
    (void)keyval;
    MPI_Finalized(&flag);
    s->finalized += flag;
    if (!flag && MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
        s->bad_rank++;
    if (s->n < NSELF + NWORLD)
        s->value[s->n] = (int)(intptr_t)value;
    s->n++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    struct seen s = { 0 };
    int rank, kv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < NSELF; i++) {
        ZT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record, &kv, &s));
        ZT_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kv, (void *)(intptr_t)i));
        ZT_OK(MPI_Comm_free_keyval(&kv));
    }
    for (int i = 0; i < NWORLD; i++) {
        ZT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record, &kv, &s));
        ZT_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, (void *)(intptr_t)(100 + i)));
        ZT_OK(MPI_Comm_free_keyval(&kv));
    }
    ZT_EQ(s.n, 0, "no callback before MPI_Finalize");
    MPI_Finalize();

    int errors = 0;
    if (s.n < NSELF || s.finalized || s.bad_rank)
        errors++;
    for (int i = 0; i < NSELF && i < s.n; i++)
        errors += s.value[i] != NSELF - 1 - i;
#ifdef ZMPI
    errors += s.n != NSELF + NWORLD;
    for (int i = NSELF; i < NSELF + NWORLD && i < s.n; i++)
        errors += s.value[i] != 100 + NSELF + NWORLD - 1 - i;
#endif
    if (errors) {
        fprintf(stderr, "FAIL rank %d: %d delete calls at MPI_Finalize (values:", rank, s.n);
        for (int i = 0; i < s.n && i < NSELF + NWORLD; i++)
            fprintf(stderr, " %d", s.value[i]);
        fprintf(stderr, "), %d saw MPI_Finalized true, %d could not call MPI\n", s.finalized,
                s.bad_rank);
        return 1;
    }
    if (rank == 0)
        printf("attr_finalize: passed\n");
    return 0;
}
