/*
 * env.c: initialisation, thread levels, timers, version and environment
 * queries behave as the standard says.
 */
#include "zt.h"

/* Before MPI_Init the library reports itself as neither initialised nor
 * finalised, and MPI_Get_version already works. */
static void check_before_init(void)
{
    int flag = -1, v = -1, sv = -1;

    ZT_OK(MPI_Initialized(&flag));
    ZT_EQ(flag, 0, "MPI_Initialized before MPI_Init");
    ZT_OK(MPI_Finalized(&flag));
    ZT_EQ(flag, 0, "MPI_Finalized before MPI_Init");
    ZT_OK(MPI_Get_version(&v, &sv));
    ZT_EQ(v, MPI_VERSION, "MPI_Get_version before MPI_Init");
    ZT_EQ(sv, MPI_SUBVERSION, "MPI_Get_version subversion before MPI_Init");
}

/* The provided level is a valid one and MPI_Query_thread agrees with it. */
static void check_thread_level(int provided)
{
    int q = -1, flag = -1;

    ZT_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
             "provided thread level %d is not a valid level", provided);
    ZT_CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
             MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
             MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
             "thread level constants are not ordered");
    ZT_OK(MPI_Query_thread(&q));
    ZT_EQ(q, provided, "MPI_Query_thread vs MPI_Init_thread provided");
    ZT_OK(MPI_Is_thread_main(&flag));
    ZT_CHECK(flag != 0, "MPI_Is_thread_main is false in the thread that "
             "called MPI_Init_thread");
    ZT_OK(MPI_Initialized(&flag));
    ZT_EQ(flag != 0, 1, "MPI_Initialized after MPI_Init_thread");
    ZT_OK(MPI_Finalized(&flag));
    ZT_EQ(flag, 0, "MPI_Finalized before MPI_Finalize");
}

/* MPI_Wtime never goes backwards and MPI_Wtick is a positive resolution. */
static void check_timers(void)
{
    double tick = MPI_Wtick();
    double prev = MPI_Wtime(), first = prev;

    ZT_CHECK(tick > 0.0 && tick < 1.0, "MPI_Wtick returned %g", tick);
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        ZT_CHECK(now >= prev, "MPI_Wtime went backwards: %.9f then %.9f",
                 prev, now);
        prev = now;
    }
    ZT_CHECK(prev >= first, "MPI_Wtime went backwards overall");
}

/* Processor name, version and library version are consistent strings. */
static void check_names(void)
{
    char *name = zt_malloc(MPI_MAX_PROCESSOR_NAME);
    char *lib = zt_malloc(MPI_MAX_LIBRARY_VERSION_STRING);
    int len = -1, v = -1, sv = -1;

    ZT_OK(MPI_Get_processor_name(name, &len));
    ZT_CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME,
             "processor name length %d", len);
    ZT_EQ(strlen(name), len, "strlen of processor name vs resultlen");
    ZT_OK(MPI_Get_version(&v, &sv));
    ZT_EQ(v, MPI_VERSION, "MPI_Get_version version vs MPI_VERSION");
    ZT_EQ(sv, MPI_SUBVERSION, "MPI_Get_version subversion vs MPI_SUBVERSION");
    len = -1;
    ZT_OK(MPI_Get_library_version(lib, &len));
    ZT_CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING,
             "library version length %d", len);
    ZT_EQ(strlen(lib), len, "strlen of library version vs resultlen");
    free(name);
    free(lib);
}

/* MPI_TAG_UB is at least the minimum the standard guarantees. */
static void check_attributes(void)
{
    int *tag_ub = NULL, flag = 0;

    ZT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    ZT_CHECK(flag && tag_ub != NULL, "MPI_TAG_UB attribute missing");
    ZT_CHECK(*tag_ub >= 32767, "MPI_TAG_UB is %d, below 32767", *tag_ub);
}

/* Ranks and sizes of the predefined communicators are consistent. */
static void check_world(void)
{
    int size = -1, rank = -1, self_size = -1, self_rank = -1;

    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d of %d",
             rank, size);
    ZT_OK(MPI_Comm_size(MPI_COMM_SELF, &self_size));
    ZT_OK(MPI_Comm_rank(MPI_COMM_SELF, &self_rank));
    ZT_EQ(self_size, 1, "size of MPI_COMM_SELF");
    ZT_EQ(self_rank, 0, "rank in MPI_COMM_SELF");
}

int main(int argc, char **argv)
{
    int provided = -1, flag = -1;

    check_before_init();
    ZT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    check_thread_level(provided);
    check_world();
    check_timers();
    check_names();
    check_attributes();
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Finalize());
    MPI_Finalized(&flag);
    if (!flag) {
        fprintf(stderr, "FAIL: MPI_Finalized is false after MPI_Finalize\n");
        return 1;
    }
    MPI_Initialized(&flag);
    if (!flag) {
        fprintf(stderr, "FAIL: MPI_Initialized is false after MPI_Finalize\n");
        return 1;
    }
    return 0;
}
