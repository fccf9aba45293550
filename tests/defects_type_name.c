/*
 * defects_type_name.c: MPI_Type_set_name on predefined datatypes (issue
 * 23, item 5).
 *
 * The standard lets a program rename any datatype, predefined ones
 * included.  Under zmpi every virtual rank is an MPI process, so a name is
 * the renaming rank's own:
 *   - each rank gives MPI_INT its own name (odd ranks also MPI_DOUBLE) and
 *     sees that name, while the types it did not rename keep their
 *     standard names, whatever the other ranks did;
 *   - renaming again replaces the name; many types can be renamed; a long
 *     name is cut to MPI_MAX_OBJECT_NAME - 1 characters; "" is a name;
 *   - derived types keep their own names;
 *   - bad arguments come back through MPI_ERRORS_RETURN with their class.
 */
#include "zt.h"

static void expect_name(MPI_Datatype t, const char *want, const char *what)
{
    char got[MPI_MAX_OBJECT_NAME];
    int len = -1;
    ZT_OK(MPI_Type_get_name(t, got, &len));
    ZT_CHECK(strcmp(got, want) == 0, "%s: name is \"%s\", expected \"%s\"", what, got, want);
    ZT_EQ(len, (int)strlen(want), what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    char mine[64], dmine[64];
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    snprintf(mine, sizeof mine, "int of rank %d", me);
    snprintf(dmine, sizeof dmine, "double of rank %d", me);

    expect_name(MPI_INT, "MPI_INT", "MPI_INT before any renaming");
    /* Rank 0 renames first, alone: nobody else may see it. */
    if (me == 0)
        ZT_OK(MPI_Type_set_name(MPI_INT, mine));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_name(MPI_INT, me == 0 ? mine : "MPI_INT", "MPI_INT after rank 0 renamed it");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Then every rank, in a loop, racing with the others. */
    for (int round = 0; round < 50; round++) {
        snprintf(mine, sizeof mine, "int of rank %d, round %d", me, round);
        ZT_OK(MPI_Type_set_name(MPI_INT, mine));
        if (me % 2)
            ZT_OK(MPI_Type_set_name(MPI_DOUBLE, dmine));
        expect_name(MPI_INT, mine, "MPI_INT renamed by this rank");
        expect_name(MPI_DOUBLE, me % 2 ? dmine : "MPI_DOUBLE", "MPI_DOUBLE");
        expect_name(MPI_CHAR, "MPI_CHAR", "MPI_CHAR, renamed by nobody");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_name(MPI_INT, mine, "MPI_INT after the others renamed theirs");

    /* Many types, a long name, the empty name. */
    MPI_Datatype many[] = { MPI_BYTE, MPI_SHORT, MPI_LONG, MPI_FLOAT, MPI_UNSIGNED,
                            MPI_LONG_LONG, MPI_UNSIGNED_CHAR, MPI_2INT, MPI_DOUBLE_INT,
                            MPI_PACKED, MPI_C_BOOL, MPI_INT64_T };
    int nmany = (int)(sizeof many / sizeof many[0]);
    for (int i = 0; i < nmany; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "t%d.%d", i, me);
        ZT_OK(MPI_Type_set_name(many[i], nm));
    }
    for (int i = 0; i < nmany; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "t%d.%d", i, me);
        expect_name(many[i], nm, "one of many renamed types");
    }
    char longname[3 * MPI_MAX_OBJECT_NAME];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ZT_OK(MPI_Type_set_name(MPI_FLOAT, longname));
    longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
    expect_name(MPI_FLOAT, longname, "a name longer than MPI_MAX_OBJECT_NAME");
    ZT_OK(MPI_Type_set_name(MPI_SHORT, ""));
    expect_name(MPI_SHORT, "", "the empty name");

    /* The renamed types still communicate. */
    int v = me, w = -1;
    ZT_OK(MPI_Sendrecv(&v, 1, MPI_INT, (me + 1) % n, 0, &w, 1, MPI_INT, (me + n - 1) % n, 0,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_EQ(w, (me + n - 1) % n, "Sendrecv of a renamed MPI_INT");
    ZT_OK(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(w, n * (n - 1) / 2, "Allreduce of a renamed MPI_INT");

    /* Derived types keep names of their own. */
    MPI_Datatype t;
    ZT_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    expect_name(t, "", "an unnamed derived type");
    ZT_OK(MPI_Type_set_name(t, dmine));
    expect_name(t, dmine, "a named derived type");
    ZT_OK(MPI_Type_free(&t));

    /* Bad arguments. */
    /* Errors of calls without a communicator go to MPI_COMM_SELF's handler
     * (MPI 4.0 and later; MPI_COMM_WORLD's before): set both. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int cls = -1;
    MPI_Error_class(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), &cls);
    ZT_EQ(cls, MPI_ERR_TYPE, "Type_set_name(MPI_DATATYPE_NULL)");
    MPI_Error_class(MPI_Type_set_name(MPI_INT, NULL), &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "Type_set_name(name NULL)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    expect_name(MPI_INT, mine, "MPI_INT after the failed calls");

    if (me == 0)
        printf("defects_type_name: %d ranks ok\n", n);
    MPI_Finalize();
    return 0;
}
