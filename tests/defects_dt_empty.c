/*
 * defects_dt_empty.c: datatype constructors with nothing in them (issue
 * 23, item 2).
 *
 *   - every constructor with count 0 and NULL arrays makes an empty type
 *     (size 0, lb 0, extent 0) that commits, communicates (nothing), and
 *     reports its envelope;
 *   - blocks of length 0 add nothing, not even bounds;
 *   - a subarray with a zero subsize and a darray block that a process
 *     does not own give types of size 0 that still span the whole array;
 *   - invalid arguments come back through MPI_ERRORS_RETURN with the right
 *     class, and newtype is left alone.
 *
 * With an argument (hindexed_null, indexed_negative) the program makes that
 * mistake under MPI_ERRORS_ARE_FATAL, which must end the job with a
 * message.
 */
#include "zt.h"

/* Size, lb and extent of t, and its true extent. */
static void check_shape(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent,
                        const char *what)
{
    int sz = -1;
    MPI_Aint l = -1, e = -1, tl = -1, te = -1;
    ZT_OK(MPI_Type_size(t, &sz));
    ZT_OK(MPI_Type_get_extent(t, &l, &e));
    ZT_OK(MPI_Type_get_true_extent(t, &tl, &te));
    ZT_EQ(sz, size, what);
    ZT_EQ(l, lb, what);
    ZT_EQ(e, extent, what);
    if (size == 0)
        ZT_EQ(te, 0, what);
}

/* An empty type commits, goes to the next rank and back as nothing, and
 * is freed. */
static void use_empty(MPI_Datatype t, int combiner, int ni, int nd, const char *what)
{
    int me, n, c = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    ZT_CHECK(t != MPI_DATATYPE_NULL, "%s: no type", what);
    check_shape(t, 0, 0, 0, what);
    int gni = -1, gna = -1, gnd = -1, gc = -1;
    ZT_OK(MPI_Type_get_envelope(t, &gni, &gna, &gnd, &gc));
    ZT_EQ(gc, combiner, what);
    ZT_EQ(gni, ni, what);
    ZT_EQ(gnd, nd, what);
    ZT_OK(MPI_Type_commit(&t));
    MPI_Status st;
    ZT_OK(MPI_Sendrecv(NULL, 7, t, (me + 1) % n, 3, NULL, 7, t, (me + n - 1) % n, 3,
                       MPI_COMM_WORLD, &st));
    ZT_OK(MPI_Get_count(&st, t, &c));
    ZT_EQ(c, 0, what);
    ZT_EQ(st.MPI_SOURCE, (me + n - 1) % n, what);
    ZT_OK(MPI_Type_free(&t));
    ZT_CHECK(t == MPI_DATATYPE_NULL, "%s: Type_free did not reset the handle", what);
}

static void count_zero(void)
{
    MPI_Datatype t;
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_contiguous(0, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_CONTIGUOUS, 1, 1, "Type_contiguous(0)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_vector(0, 2, 5, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_VECTOR, 3, 1, "Type_vector(0)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_vector(4, 0, 5, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_VECTOR, 3, 1, "Type_vector(blocklength 0)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_create_hvector(0, 3, -40, MPI_DOUBLE, &t));
    use_empty(t, MPI_COMBINER_HVECTOR, 2, 1, "Type_create_hvector(0)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_INDEXED, 1, 1, "Type_indexed(0, NULL, NULL)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_create_hindexed(0, NULL, NULL, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_HINDEXED, 1, 1, "Type_create_hindexed(0, NULL, NULL)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_create_indexed_block(0, 4, NULL, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_INDEXED_BLOCK, 2, 1, "Type_create_indexed_block(0, NULL)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_create_hindexed_block(0, 4, NULL, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 1, "Type_create_hindexed_block(0, NULL)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_create_struct(0, NULL, NULL, NULL, &t));
    use_empty(t, MPI_COMBINER_STRUCT, 1, 0, "Type_create_struct(0, NULL, NULL, NULL)");
    /* The deprecated MPI-1 forms go through the same code. */
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_hindexed(0, NULL, NULL, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_HINDEXED, 1, 1, "Type_hindexed(0, NULL, NULL)");
    t = MPI_DATATYPE_NULL;
    ZT_OK(MPI_Type_struct(0, NULL, NULL, NULL, &t));
    use_empty(t, MPI_COMBINER_STRUCT, 1, 0, "Type_struct(0, NULL, NULL, NULL)");
}

/* Blocks of length 0 hold no data and set no bounds. */
static void zero_blocks(void)
{
    MPI_Datatype t, types[2] = { MPI_INT, MPI_DOUBLE };
    int bl[2] = { 0, 0 }, di[2] = { 5, 9 };
    MPI_Aint da[2] = { 40, 96 };
    ZT_OK(MPI_Type_indexed(2, bl, di, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_INDEXED, 5, 1, "Type_indexed of empty blocks");
    ZT_OK(MPI_Type_create_struct(2, bl, da, types, &t));
    use_empty(t, MPI_COMBINER_STRUCT, 3, 2, "Type_create_struct of empty blocks");
    ZT_OK(MPI_Type_create_hindexed_block(2, 0, da, MPI_INT, &t));
    use_empty(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 1, "Type_create_hindexed_block(bl 0)");
    /* An empty type inside another adds nothing either. */
    MPI_Datatype e, u;
    ZT_OK(MPI_Type_contiguous(0, MPI_INT, &e));
    ZT_OK(MPI_Type_vector(3, 2, 4, e, &u));
    use_empty(u, MPI_COMBINER_VECTOR, 3, 1, "Type_vector of an empty type");
    ZT_OK(MPI_Type_free(&e));
}

/* Subarrays and darrays whose local part is empty span the whole array. */
static void arrays(void)
{
    int sizes[2] = { 4, 6 }, sub[2] = { 0, 3 }, starts[2] = { 0, 2 };
    MPI_Datatype t;
    ZT_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
    check_shape(t, 0, 0, 24 * (MPI_Aint)sizeof(int), "subarray with subsize 0 (C order)");
    ZT_OK(MPI_Type_commit(&t));
    ZT_OK(MPI_Type_free(&t));
    int sub2[2] = { 2, 0 }, starts2[2] = { 1, 6 };
    ZT_OK(MPI_Type_create_subarray(2, sizes, sub2, starts2, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    check_shape(t, 0, 0, 24 * (MPI_Aint)sizeof(double), "subarray with subsize 0 (Fortran)");
    ZT_OK(MPI_Type_free(&t));

    /* 5 elements over 4 processes in blocks of 2: 2, 2, 1 and none. */
    int g1[1] = { 5 }, d1[1] = { MPI_DISTRIBUTE_BLOCK }, a1[1] = { 2 }, p1[1] = { 4 };
    const int want1[4] = { 2, 2, 1, 0 };
    for (int r = 0; r < 4; r++) {
        ZT_OK(MPI_Type_create_darray(4, r, 1, g1, d1, a1, p1, MPI_ORDER_C, MPI_INT, &t));
        check_shape(t, want1[r] * (int)sizeof(int), 0, 5 * (MPI_Aint)sizeof(int),
                    "darray 5 over 4 in blocks of 2");
        ZT_OK(MPI_Type_free(&t));
    }
    /* 2 x 3 over a 1 x 4 grid, columns cyclic: process 3 owns nothing. */
    int g2[2] = { 2, 3 }, d2[2] = { MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC };
    int a2[2] = { MPI_DISTRIBUTE_DFLT_DARG, 1 }, p2[2] = { 1, 4 };
    const int want2[4] = { 2, 2, 2, 0 };
    for (int r = 0; r < 4; r++) {
        ZT_OK(MPI_Type_create_darray(4, r, 2, g2, d2, a2, p2, MPI_ORDER_C, MPI_INT, &t));
        check_shape(t, want2[r] * (int)sizeof(int), 0, 6 * (MPI_Aint)sizeof(int),
                    "darray 2 x 3 over 1 x 4");
        ZT_OK(MPI_Type_commit(&t));
        ZT_OK(MPI_Type_free(&t));
    }
}

/* Returns the error class of a call's return code. */
static int cls_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Invalid arguments come back through MPI_ERRORS_RETURN with their class
 * and leave newtype alone.  (That they go through the handler at all the
 * "fatal" runs check.) */
static void errors(void)
{
    MPI_Datatype keep = (MPI_Datatype)(intptr_t)0x5a5a0, t = keep;
    int bl[2] = { 1, -1 }, di[2] = { 0, 4 }, sizes[2] = { 4, 0 }, sub[2] = { 1, 0 };
    int st[2] = { 0, 0 };
    /* Errors of calls without a communicator go to MPI_COMM_SELF's handler
     * (MPI 4.0 and later; MPI_COMM_WORLD's before): set both. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    ZT_EQ(cls_of(MPI_Type_indexed(-1, NULL, NULL, MPI_INT, &t)), MPI_ERR_COUNT,
          "Type_indexed(count=-1)");
    ZT_EQ(cls_of(MPI_Type_indexed(2, NULL, di, MPI_INT, &t)), MPI_ERR_ARG,
          "Type_indexed(2, NULL blocklengths)");
    ZT_EQ(cls_of(MPI_Type_indexed(2, bl, di, MPI_INT, &t)), MPI_ERR_ARG,
          "Type_indexed(blocklength -1)");
    ZT_EQ(cls_of(MPI_Type_create_hindexed(2, bl, NULL, MPI_INT, &t)), MPI_ERR_ARG,
          "Type_create_hindexed(2, NULL displacements)");
    ZT_EQ(cls_of(MPI_Type_create_indexed_block(1, 1, NULL, MPI_INT, &t)), MPI_ERR_ARG,
          "Type_create_indexed_block(1, NULL)");
    ZT_EQ(cls_of(MPI_Type_create_hindexed_block(0, -2, NULL, MPI_INT, &t)), MPI_ERR_ARG,
          "Type_create_hindexed_block(blocklength -2)");
    ZT_EQ(cls_of(MPI_Type_create_struct(1, bl, NULL, NULL, &t)), MPI_ERR_ARG,
          "Type_create_struct(1, NULL arrays)");
    ZT_EQ(cls_of(MPI_Type_indexed(0, NULL, NULL, MPI_DATATYPE_NULL, &t)), MPI_ERR_TYPE,
          "Type_indexed(0, oldtype MPI_DATATYPE_NULL)");
    ZT_EQ(cls_of(MPI_Type_contiguous(-3, MPI_INT, &t)), MPI_ERR_COUNT, "Type_contiguous(-3)");
    ZT_EQ(cls_of(MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t)),
          MPI_ERR_ARG, "Type_create_subarray(size 0)");
    int g[1] = { 0 }, d[1] = { MPI_DISTRIBUTE_BLOCK }, a[1] = { MPI_DISTRIBUTE_DFLT_DARG };
    int p[1] = { 1 };
    ZT_EQ(cls_of(MPI_Type_create_darray(1, 0, 1, g, d, a, p, MPI_ORDER_C, MPI_INT, &t)),
          MPI_ERR_ARG, "Type_create_darray(gsize 0)");
    ZT_CHECK(t == keep, "a failed constructor wrote newtype");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1) {
        /* A mistake under MPI_ERRORS_ARE_FATAL: the job must end with a
         * message, never get a silent return code. */
        MPI_Datatype t;
        int rc = MPI_SUCCESS, bl[2] = { 1, 1 };
        if (strcmp(argv[1], "hindexed_null") == 0)
            rc = MPI_Type_create_hindexed(2, bl, NULL, MPI_INT, &t);
        else if (strcmp(argv[1], "indexed_negative") == 0)
            rc = MPI_Type_indexed(-1, NULL, NULL, MPI_INT, &t);
        printf("defects_dt_empty: %s returned %d\n", argv[1], rc);
        MPI_Finalize();
        return 0;
    }
    count_zero();
    zero_blocks();
    arrays();
    errors();
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0)
        printf("defects_dt_empty: ok\n");
    MPI_Finalize();
    return 0;
}
