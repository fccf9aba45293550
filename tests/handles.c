/*
 * handles.c: conversion between C and Fortran handles and statuses.
 *
 * Checks, for every kind of handle (communicator, group, datatype, request,
 * operation, error handler, info, window, message): the fixed values of the
 * NULL and predefined handles (the ones mpi.h documents), round trips of
 * the program's own handles, that a handle keeps its value and distinct
 * objects get distinct values (also when every rank converts at once), and
 * that a freed communicator's, datatype's or operation's value converts
 * back to the NULL handle (the kinds whose freeing zmpi can always detect;
 * for the others that takes their free paths telling the handle table).
 * Then the
 * status conversions in all directions, including the recognised IGNORE
 * constants, which are errors (MPI_ERR_ARG).
 *
 * With the argument "fatal_status_ignore" the program converts
 * MPI_STATUS_IGNORE under MPI_ERRORS_ARE_FATAL, which must end the job
 * with a message naming the call and the argument.
 */
#include "zt.h"

/* Every predefined datatype, in the order of their Fortran values 1, 2... */
static MPI_Datatype predef_type(int i)
{
    const MPI_Datatype all[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE,
        MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
        MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_PACKED,
        MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
        MPI_LONG_DOUBLE_INT, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX,
        MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER, MPI_INTEGER1, MPI_INTEGER2,
        MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16, MPI_REAL2, MPI_REAL4, MPI_REAL8,
        MPI_REAL16, MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
        MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_CXX_BOOL,
        MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX,
    };
    return i < (int)(sizeof all / sizeof *all) ? all[i] : MPI_DATATYPE_NULL;
}

static MPI_Op predef_op(int i)
{
    const MPI_Op all[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                           MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE,
                           MPI_NO_OP };
    return i < (int)(sizeof all / sizeof *all) ? all[i] : MPI_OP_NULL;
}

/* NULL handles are 0 and the predefined handles have the values mpi.h
 * documents, both ways; indices no handle has give the NULL handle. */
static void check_predefined(void)
{
    ZT_EQ(MPI_Comm_c2f(MPI_COMM_NULL), 0, "MPI_COMM_NULL");
    ZT_EQ(MPI_Comm_c2f(MPI_COMM_WORLD), 1, "MPI_COMM_WORLD");
    ZT_EQ(MPI_Comm_c2f(MPI_COMM_SELF), 2, "MPI_COMM_SELF");
    ZT_CHECK(MPI_Comm_f2c(0) == MPI_COMM_NULL, "f2c(0) is not MPI_COMM_NULL");
    ZT_CHECK(MPI_Comm_f2c(1) == MPI_COMM_WORLD, "f2c(1) is not MPI_COMM_WORLD");
    ZT_CHECK(MPI_Comm_f2c(2) == MPI_COMM_SELF, "f2c(2) is not MPI_COMM_SELF");
    ZT_CHECK(MPI_Comm_f2c(-5) == MPI_COMM_NULL, "f2c(-5) is not MPI_COMM_NULL");
    ZT_CHECK(MPI_Comm_f2c(1 << 30) == MPI_COMM_NULL, "f2c(2^30) is not MPI_COMM_NULL");

    ZT_EQ(MPI_Group_c2f(MPI_GROUP_NULL), 0, "MPI_GROUP_NULL");
    ZT_EQ(MPI_Group_c2f(MPI_GROUP_EMPTY), 1, "MPI_GROUP_EMPTY");
    ZT_CHECK(MPI_Group_f2c(1) == MPI_GROUP_EMPTY, "f2c(1) is not MPI_GROUP_EMPTY");
    ZT_CHECK(MPI_Group_f2c(0) == MPI_GROUP_NULL, "f2c(0) is not MPI_GROUP_NULL");

    ZT_EQ(MPI_Type_c2f(MPI_DATATYPE_NULL), 0, "MPI_DATATYPE_NULL");
    int ntypes = 0;
    for (int i = 0; predef_type(i) != MPI_DATATYPE_NULL; i++, ntypes++) {
        ZT_EQ(MPI_Type_c2f(predef_type(i)), i + 1, "Fortran value of a predefined datatype");
        ZT_CHECK(MPI_Type_f2c(i + 1) == predef_type(i), "f2c(%d) is not its datatype", i + 1);
    }
    ZT_EQ(ntypes, 65, "number of predefined datatypes listed");
    ZT_EQ(MPI_Type_c2f(MPI_INT), 8, "MPI_INT");
    ZT_EQ(MPI_Type_c2f(MPI_INTEGER), 39, "MPI_INTEGER");
    ZT_EQ(MPI_Type_c2f(MPI_LONG_LONG), MPI_Type_c2f(MPI_LONG_LONG_INT), "MPI_LONG_LONG alias");

    ZT_EQ(MPI_Op_c2f(MPI_OP_NULL), 0, "MPI_OP_NULL");
    for (int i = 0; predef_op(i) != MPI_OP_NULL; i++) {
        ZT_EQ(MPI_Op_c2f(predef_op(i)), i + 1, "Fortran value of a predefined operation");
        ZT_CHECK(MPI_Op_f2c(i + 1) == predef_op(i), "f2c(%d) is not its operation", i + 1);
    }

    ZT_EQ(MPI_Errhandler_c2f(MPI_ERRHANDLER_NULL), 0, "MPI_ERRHANDLER_NULL");
    ZT_EQ(MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL), 1, "MPI_ERRORS_ARE_FATAL");
    ZT_EQ(MPI_Errhandler_c2f(MPI_ERRORS_RETURN), 2, "MPI_ERRORS_RETURN");
    ZT_EQ(MPI_Errhandler_c2f(MPI_ERRORS_ABORT), 3, "MPI_ERRORS_ABORT");
    ZT_CHECK(MPI_Errhandler_f2c(2) == MPI_ERRORS_RETURN, "f2c(2) is not MPI_ERRORS_RETURN");

    ZT_EQ(MPI_Request_c2f(MPI_REQUEST_NULL), 0, "MPI_REQUEST_NULL");
    ZT_CHECK(MPI_Request_f2c(0) == MPI_REQUEST_NULL, "f2c(0) is not MPI_REQUEST_NULL");
    ZT_EQ(MPI_Info_c2f(MPI_INFO_NULL), 0, "MPI_INFO_NULL");
    ZT_CHECK(MPI_Info_f2c(0) == MPI_INFO_NULL, "f2c(0) is not MPI_INFO_NULL");
#ifdef ZMPI
    ZT_EQ(MPI_Info_c2f(MPI_INFO_ENV), 1, "MPI_INFO_ENV");
    ZT_CHECK(MPI_Info_f2c(1) == MPI_INFO_ENV, "f2c(1) is not MPI_INFO_ENV");
#endif
    ZT_EQ(MPI_Win_c2f(MPI_WIN_NULL), 0, "MPI_WIN_NULL");
    ZT_CHECK(MPI_Win_f2c(0) == MPI_WIN_NULL, "f2c(0) is not MPI_WIN_NULL");
    ZT_EQ(MPI_Message_c2f(MPI_MESSAGE_NULL), 0, "MPI_MESSAGE_NULL");
    ZT_EQ(MPI_Message_c2f(MPI_MESSAGE_NO_PROC), 1, "MPI_MESSAGE_NO_PROC");
    ZT_CHECK(MPI_Message_f2c(1) == MPI_MESSAGE_NO_PROC, "f2c(1) is not MPI_MESSAGE_NO_PROC");
}

/* A user handle's value: positive, above the predefined ones, the same on
 * every call, and converting back to the handle. */
#define ROUND_TRIP(Kind, h, above)                                                \
    do {                                                                          \
        MPI_Fint f_ = MPI_##Kind##_c2f(h);                                        \
        ZT_CHECK(f_ > (above), #Kind " handle got value %d", (int)f_);             \
        ZT_EQ(MPI_##Kind##_c2f(h), f_, "second c2f of the same " #Kind);           \
        ZT_CHECK(MPI_##Kind##_f2c(f_) == (h), #Kind " f2c(%d) is not the handle", (int)f_); \
    } while (0)

static void check_comm_group(int rank, int size)
{
    MPI_Comm a, b;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &b));
    ROUND_TRIP(Comm, a, 2);
    ROUND_TRIP(Comm, b, 2);
    MPI_Fint fa = MPI_Comm_c2f(a), fb = MPI_Comm_c2f(b);
    ZT_CHECK(fa != fb, "two communicators share value %d", (int)fa);
    int n = 0;
    ZT_OK(MPI_Comm_size(MPI_Comm_f2c(fa), &n));
    ZT_EQ(n, size, "size of the communicator converted back");

    /* Every rank converted its own objects at the same time: all values
     * differ (the table is shared by the job). */
    MPI_Fint *all = zt_malloc(sizeof(MPI_Fint) * (size_t)size);
    ZT_OK(MPI_Allgather(&fa, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        for (int j = 0; j < i; j++)
            ZT_CHECK(all[i] != all[j], "ranks %d and %d got the same value %d", j, i, all[i]);
    free(all);

    MPI_Group g, h;
    ZT_OK(MPI_Comm_group(a, &g));
    int r0 = 0;
    ZT_OK(MPI_Group_incl(g, 1, &r0, &h));
    ROUND_TRIP(Group, g, 1);
    ROUND_TRIP(Group, h, 1);
    ZT_CHECK(MPI_Group_c2f(g) != MPI_Group_c2f(h), "two groups share a value");

    /* Freed communicators convert back to the NULL handle, and their old
     * C handles no longer convert (the error goes to MPI_ERRORS_RETURN).
     * The barriers keep other ranks from making communicators meanwhile,
     * which could reuse a freed object (and so its value) at once. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Comm dead = a;
    ZT_OK(MPI_Comm_free(&a));
    ZT_CHECK(MPI_Comm_f2c(fa) == MPI_COMM_NULL, "freed communicator's value %d converts", fa);
    ZT_EQ(MPI_Comm_c2f(dead), 0, "c2f of a freed communicator");
    ZT_OK(MPI_Comm_free(&b));
    ZT_CHECK(MPI_Comm_f2c(fb) == MPI_COMM_NULL, "freed communicator's value %d converts", fb);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Group_free(&h));
    ZT_OK(MPI_Group_free(&g));
}

/* Many handles of one kind (more than the first segments of the table
 * hold): distinct values, each converting back. */
static void check_types(void)
{
    enum { N = 300 };
    MPI_Datatype *t = zt_malloc(sizeof(MPI_Datatype) * N);
    MPI_Fint *f = zt_malloc(sizeof(MPI_Fint) * N);
    for (int i = 0; i < N; i++) {
        ZT_OK(MPI_Type_contiguous(i + 1, MPI_INT, &t[i]));
        f[i] = MPI_Type_c2f(t[i]);
        ZT_CHECK(f[i] > 65, "derived type got value %d", (int)f[i]);
    }
    for (int i = 0; i < N; i++) {
        ZT_CHECK(MPI_Type_f2c(f[i]) == t[i], "type %d does not convert back", i);
        for (int j = 0; j < i; j++)
            ZT_CHECK(f[i] != f[j], "types %d and %d share value %d", j, i, (int)f[i]);
    }
    /* The converted handle works: its size is the type's. */
    int size = 0;
    ZT_OK(MPI_Type_size(MPI_Type_f2c(f[9]), &size));
    ZT_EQ(size, 10 * (int)sizeof(int), "size of a converted type");
    /* The barriers keep other ranks from making types while this one
     * checks that its freed values no longer convert: the table is shared
     * by the process, so a type made meanwhile may reuse a freed value. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        ZT_OK(MPI_Type_free(&t[i]));
        ZT_CHECK(MPI_Type_f2c(f[i]) == MPI_DATATYPE_NULL, "freed type %d still converts", i);
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(t);
    free(f);
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void eh_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

static void check_others(int rank)
{
    /* Requests: a receive from oneself, completed through its value. */
    int in = -1, out = 1000 + rank;
    MPI_Request r;
    ZT_OK(MPI_Irecv(&in, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &r));
    ROUND_TRIP(Request, r, 0);
    MPI_Fint fr = MPI_Request_c2f(r);
    ZT_OK(MPI_Send(&out, 1, MPI_INT, rank, 5, MPI_COMM_WORLD));
    MPI_Request r2 = MPI_Request_f2c(fr);
    ZT_OK(MPI_Wait(&r2, MPI_STATUS_IGNORE));
    ZT_EQ(in, 1000 + rank, "value received through a converted request");
    ZT_CHECK(r2 == MPI_REQUEST_NULL, "completed request not set to MPI_REQUEST_NULL");

    /* Messages: a matched probe, received through its value. */
    MPI_Message m;
    MPI_Status st;
    ZT_OK(MPI_Isend(&out, 1, MPI_INT, rank, 6, MPI_COMM_WORLD, &r));
    ZT_OK(MPI_Mprobe(rank, 6, MPI_COMM_WORLD, &m, &st));
    ROUND_TRIP(Message, m, 1);
    MPI_Message m2 = MPI_Message_f2c(MPI_Message_c2f(m));
    in = -1;
    ZT_OK(MPI_Mrecv(&in, 1, MPI_INT, &m2, MPI_STATUS_IGNORE));
    ZT_EQ(in, 1000 + rank, "value received through a converted message");
    ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));

    MPI_Op op;
    ZT_OK(MPI_Op_create(user_fn, 1, &op));
    ROUND_TRIP(Op, op, 14);
    MPI_Fint fo = MPI_Op_c2f(op);
    /* As for types: no rank makes an operation while freed values are
     * checked, since one made meanwhile may reuse the freed value. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Op_free(&op));
    ZT_CHECK(MPI_Op_f2c(fo) == MPI_OP_NULL, "freed operation's value converts");
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Errhandler eh;
    ZT_OK(MPI_Comm_create_errhandler(eh_fn, &eh));
    ROUND_TRIP(Errhandler, eh, 3);
    ZT_OK(MPI_Errhandler_free(&eh));

    MPI_Info info;
    ZT_OK(MPI_Info_create(&info));
    ROUND_TRIP(Info, info, 0);
    MPI_Fint fi = MPI_Info_c2f(info);
    ZT_OK(MPI_Info_set(MPI_Info_f2c(fi), "key", "value"));
    char v[16];
    int flag = 0;
    ZT_OK(MPI_Info_get(info, "key", (int)sizeof v - 1, v, &flag));
    ZT_CHECK(flag && strcmp(v, "value") == 0, "info set through its converted handle");
    ZT_OK(MPI_Info_free(&info));

    MPI_Win win;
    int *base = NULL;
    ZT_OK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &base, &win));
    ROUND_TRIP(Win, win, 0);
    ZT_OK(MPI_Win_free(&win));
}

static void check_statuses(int rank)
{
    /* A real status: 12 bytes from oneself with tag 7. */
    char buf[12] = "abcdefghijk", got[12];
    MPI_Status st, back;
    ZT_OK(MPI_Sendrecv(buf, 12, MPI_CHAR, rank, 7, got, 12, MPI_CHAR, rank, 7, MPI_COMM_WORLD,
                       &st));
    MPI_Fint f[MPI_STATUS_SIZE];
    ZT_OK(MPI_Status_c2f(&st, f));
    ZT_EQ(f[0], rank, "Fortran status MPI_SOURCE");
    ZT_EQ(f[1], 7, "Fortran status MPI_TAG");
    ZT_EQ(f[2], st.MPI_ERROR, "Fortran status MPI_ERROR");
    memset(&back, 0x55, sizeof back);
    ZT_OK(MPI_Status_f2c(f, &back));
    int count = -1, cancelled = -1;
    ZT_OK(MPI_Get_count(&back, MPI_CHAR, &count));
    ZT_OK(MPI_Test_cancelled(&back, &cancelled));
    ZT_CHECK_STATUS(back, rank, 7, 12);
    ZT_EQ(count, 12, "count of the status converted back");
    ZT_EQ(cancelled, 0, "cancelled flag of the status converted back");

    /* Through Fortran 2008 and back, both ways round. */
    MPI_F08_status s08, s08b;
    ZT_OK(MPI_Status_c2f08(&st, &s08));
    ZT_EQ(s08.MPI_SOURCE, rank, "F08 status MPI_SOURCE");
    ZT_EQ(s08.MPI_TAG, 7, "F08 status MPI_TAG");
    memset(&back, 0x55, sizeof back);
    ZT_OK(MPI_Status_f082c(&s08, &back));
    ZT_CHECK_STATUS(back, rank, 7, 12);
    MPI_Fint f2[MPI_STATUS_SIZE];
    ZT_OK(MPI_Status_f082f(&s08, f2));
    ZT_CHECK(memcmp(f, f2, sizeof f) == 0, "F08 -> Fortran differs from C -> Fortran");
    ZT_OK(MPI_Status_f2f08(f2, &s08b));
    ZT_CHECK(memcmp(&s08, &s08b, sizeof s08) == 0, "Fortran -> F08 differs from C -> F08");

#ifdef ZMPI
    /* The hidden part: a byte count above 2^32 survives the Fortran form
     * (the layout mpi.h documents: [4] low and [5] high 32 bits). */
    MPI_Fint big[MPI_STATUS_SIZE] = { 3, 4, 0, 0, 0x12345678, 1 };
    MPI_Count elems = 0;
    ZT_OK(MPI_Status_f2c(big, &back));
    ZT_OK(MPI_Get_elements_x(&back, MPI_BYTE, &elems));
    ZT_EQ(elems, 0x112345678ll, "byte count above 2^32 through the Fortran status");
    ZT_OK(MPI_Status_c2f(&back, f2));
    ZT_CHECK(memcmp(big, f2, sizeof big) == 0, "Fortran -> C -> Fortran changed the status");
#endif

    /* The IGNORE constants are recognised: distinct, and converting from
     * or to one is an error. */
    ZT_CHECK(MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE, "F IGNORE constants are equal");
    ZT_CHECK(MPI_F08_STATUS_IGNORE != MPI_F08_STATUSES_IGNORE, "F08 IGNORE constants equal");
    ZT_CHECK(MPI_F_STATUS_IGNORE != NULL && MPI_F08_STATUS_IGNORE != NULL,
             "IGNORE constants are NULL");
    ZT_EQ(zt_err_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f)), MPI_ERR_ARG, "c2f(STATUS_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_c2f(ZT_STATUSES_IGNORE, f)), MPI_ERR_ARG,
          "c2f(STATUSES_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_c2f(&st, MPI_F_STATUS_IGNORE)), MPI_ERR_ARG,
          "c2f into MPI_F_STATUS_IGNORE");
    ZT_EQ(zt_err_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back)), MPI_ERR_ARG,
          "f2c(MPI_F_STATUS_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &back)), MPI_ERR_ARG,
          "f2c(MPI_F_STATUSES_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_f2c(f, MPI_STATUS_IGNORE)), MPI_ERR_ARG,
          "f2c into MPI_STATUS_IGNORE");
    ZT_EQ(zt_err_class(MPI_Status_c2f08(&st, MPI_F08_STATUS_IGNORE)), MPI_ERR_ARG,
          "c2f08 into MPI_F08_STATUS_IGNORE");
    ZT_EQ(zt_err_class(MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &back)), MPI_ERR_ARG,
          "f082c(MPI_F08_STATUSES_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_f2f08(MPI_F_STATUSES_IGNORE, &s08)), MPI_ERR_ARG,
          "f2f08(MPI_F_STATUSES_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_f082f(&s08, MPI_F_STATUS_IGNORE)), MPI_ERR_ARG,
          "f082f into MPI_F_STATUS_IGNORE");
    ZT_EQ(zt_err_class(MPI_Status_f082f(MPI_F08_STATUS_IGNORE, f)), MPI_ERR_ARG,
          "f082f(MPI_F08_STATUS_IGNORE)");
    ZT_EQ(zt_err_class(MPI_Status_c2f(NULL, f)), MPI_ERR_ARG, "c2f(NULL)");
    ZT_EQ(zt_err_class(MPI_Status_f2c(f, NULL)), MPI_ERR_ARG, "f2c into NULL");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal_status_ignore") == 0) {
        MPI_Fint f[MPI_STATUS_SIZE];
        MPI_Status_c2f(MPI_STATUS_IGNORE, f);
        ZT_CHECK(0, "MPI_Status_c2f(MPI_STATUS_IGNORE) returned under MPI_ERRORS_ARE_FATAL");
    }
    /* Errors tied to no communicator go to MPI_COMM_SELF's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    check_predefined();
    check_comm_group(rank, size);
    check_types();
    check_others(rank);
    check_statuses(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("handles: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
