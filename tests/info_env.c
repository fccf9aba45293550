/*
 * info_env.c: info objects keep keys in the order of their first setting,
 * round-trip values, truncate as MPI_Info_get/MPI_Info_get_string define,
 * enforce the key and value limits, and work before MPI_Init; MPI_INFO_ENV
 * and MPI_Info_create_env describe the job; MPI_Comm_set_info and
 * MPI_Comm_get_info keep the assertion hints; MPI_Alloc_mem aligns and
 * MPI_Free_mem rejects foreign pointers; MPI_Pcontrol and
 * MPI_Get_hw_resource_info answer.
 *
 * Run it with the arguments "alpha" "beta gamma": MPI_Info_create_env
 * must report them.
 */
#include "zt.h"

#include <stdint.h>
#include <unistd.h>

/* The value of `key` in `info` into buf (size MPI_MAX_INFO_VAL + 1);
 * returns the flag. */
static int get(MPI_Info info, const char *key, char *buf)
{
    int len = MPI_MAX_INFO_VAL + 1, flag = -1;
    ZT_OK(MPI_Info_get_string(info, key, &len, buf, &flag));
    ZT_CHECK(flag == 0 || flag == 1, "flag %d for key %s", flag, key);
    if (flag)
        ZT_EQ(len, strlen(buf) + 1, "buflen returned by MPI_Info_get_string");
    return flag;
}

/* The keys of `info` must be exactly `keys`, in that order. */
static void expect_keys(MPI_Info info, int n, const char *const *keys, const char *what)
{
    char key[MPI_MAX_INFO_KEY + 1];
    int nkeys = -1;
    ZT_OK(MPI_Info_get_nkeys(info, &nkeys));
    ZT_EQ(nkeys, n, what);
    for (int i = 0; i < n; i++) {
        ZT_OK(MPI_Info_get_nthkey(info, i, key));
        ZT_CHECK(strcmp(key, keys[i]) == 0, "%s: key %d is \"%s\", expected \"%s\"", what, i,
                 key, keys[i]);
    }
}

static void expect_class(int rc, int cls, const char *what)
{
    int got = -1;
    ZT_CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    ZT_OK(MPI_Error_class(rc, &got));
    ZT_CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

/* Info calls are always available (MPI 4.1 section 11.2.1): use some
 * before MPI_Init and keep the object. */
static MPI_Info before_init(void)
{
    MPI_Info info;
    char v[8];
    int flag = 0, vl = -1;
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "made", "early"));
    ZT_OK(MPI_Info_get_valuelen(info, "made", &vl, &flag));
    ZT_CHECK(flag && vl == 5, "valuelen before MPI_Init: flag %d len %d", flag, vl);
    ZT_OK(MPI_Info_get(info, "made", 7, v, &flag));
    ZT_CHECK(flag && strcmp(v, "early") == 0, "MPI_Info_get before MPI_Init");
    return info;
}

static void check_order_and_dup(MPI_Info early)
{
    static const char *const k1[] = { "made", "zeta", "alpha", "mid" };
    static const char *const k2[] = { "made", "zeta", "mid", "alpha" };
    char v[MPI_MAX_INFO_VAL + 1];
    MPI_Info d;
    ZT_OK(MPI_Info_set(early, "zeta", "1"));
    ZT_OK(MPI_Info_set(early, "alpha", "2"));
    ZT_OK(MPI_Info_set(early, "mid", "3"));
    expect_keys(early, 4, k1, "keys in the order of first setting");
    /* A new value keeps the key's place. */
    ZT_OK(MPI_Info_set(early, "zeta", "one"));
    expect_keys(early, 4, k1, "keys after setting zeta again");
    ZT_CHECK(get(early, "zeta", v) && strcmp(v, "one") == 0, "zeta's new value");
    ZT_OK(MPI_Info_dup(early, &d));
    expect_keys(d, 4, k1, "keys of the duplicate");
    /* Deleting and setting again moves the key to the end. */
    ZT_OK(MPI_Info_delete(early, "alpha"));
    ZT_OK(MPI_Info_set(early, "alpha", "back"));
    expect_keys(early, 4, k2, "keys after delete and set");
    /* The duplicate is independent both ways. */
    expect_keys(d, 4, k1, "duplicate after changing the original");
    ZT_CHECK(get(d, "alpha", v) && strcmp(v, "2") == 0, "duplicate keeps alpha=2");
    ZT_OK(MPI_Info_set(d, "only_in_dup", "x"));
    ZT_CHECK(!get(early, "only_in_dup", v), "a key set on the duplicate shows in the original");
    ZT_OK(MPI_Info_free(&d));
    ZT_CHECK(d == MPI_INFO_NULL, "MPI_Info_free sets MPI_INFO_NULL");
}

/* MPI_Info_get_string and the deprecated MPI_Info_get truncate without
 * writing past the buffer. */
static void check_truncation(void)
{
    MPI_Info info;
    char buf[16];
    int len, flag;
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "k", "abcdefghij"));
    memset(buf, '#', sizeof(buf));
    len = 4;
    ZT_OK(MPI_Info_get_string(info, "k", &len, buf, &flag));
    ZT_CHECK(flag && strcmp(buf, "abc") == 0 && buf[4] == '#', "get_string into 4 bytes: %.8s", buf);
    ZT_EQ(len, 11, "buflen after truncation: the size needed");
    memset(buf, '#', sizeof(buf));
    len = 0;
    ZT_OK(MPI_Info_get_string(info, "k", &len, buf, &flag));
    ZT_CHECK(flag && buf[0] == '#', "get_string with buflen 0 wrote the value");
    ZT_EQ(len, 11, "buflen 0 asks for the size");
    len = 11;
    ZT_OK(MPI_Info_get_string(info, "k", &len, buf, &flag));
    ZT_CHECK(strcmp(buf, "abcdefghij") == 0 && len == 11, "get_string into exactly 11 bytes");
    len = 16;
    memset(buf, '#', sizeof(buf));
    ZT_OK(MPI_Info_get_string(info, "missing", &len, buf, &flag));
    ZT_CHECK(!flag && buf[0] == '#', "a missing key changed value or set flag");
    /* MPI_Info_get: valuelen excludes the terminator, written at value[n]. */
    memset(buf, '#', sizeof(buf));
    ZT_OK(MPI_Info_get(info, "k", 3, buf, &flag));
    ZT_CHECK(flag && strcmp(buf, "abc") == 0 && buf[4] == '#', "MPI_Info_get(valuelen=3)");
    ZT_OK(MPI_Info_get_valuelen(info, "k", &len, &flag));
    ZT_CHECK(flag && len == 10, "MPI_Info_get_valuelen: %d", len);
    ZT_OK(MPI_Info_free(&info));
}

/* Limits and bad arguments, with MPI_ERRORS_RETURN on MPI_COMM_SELF (info
 * calls have no communicator). */
static void check_limits(void)
{
    char *key = zt_malloc(MPI_MAX_INFO_KEY + 2), *val = zt_malloc(MPI_MAX_INFO_VAL + 2);
    char got[MPI_MAX_INFO_KEY + 1];
    MPI_Info info, null = MPI_INFO_NULL;
    int n = -1;
    ZT_OK(MPI_Info_create(&info));
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = '\0';
    memset(val, 'v', MPI_MAX_INFO_VAL);
    val[MPI_MAX_INFO_VAL] = '\0';
    ZT_OK(MPI_Info_set(info, key, val));
    ZT_OK(MPI_Info_get_nthkey(info, 0, got));
    ZT_EQ(strlen(got), MPI_MAX_INFO_KEY, "longest key comes back whole");
    key[MPI_MAX_INFO_KEY] = 'k';
    key[MPI_MAX_INFO_KEY + 1] = '\0';
    expect_class(MPI_Info_set(info, key, "x"), MPI_ERR_INFO_KEY, "key of MAX+1 characters");
    expect_class(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY, "empty key");
    val[MPI_MAX_INFO_VAL] = 'v';
    val[MPI_MAX_INFO_VAL + 1] = '\0';
    expect_class(MPI_Info_set(info, "k", val), MPI_ERR_INFO_VALUE, "value of MAX+1 characters");
    expect_class(MPI_Info_delete(info, "nope"), MPI_ERR_INFO_NOKEY, "deleting a missing key");
    expect_class(MPI_Info_get_nthkey(info, 1, got), MPI_ERR_ARG, "nthkey past the end");
    expect_class(MPI_Info_get_nthkey(info, -1, got), MPI_ERR_ARG, "nthkey -1");
    expect_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO, "nkeys of MPI_INFO_NULL");
    expect_class(MPI_Info_free(&null), MPI_ERR_INFO, "freeing MPI_INFO_NULL");
    ZT_OK(MPI_Info_get_nkeys(info, &n));
    ZT_EQ(n, 1, "keys after the failed calls");
    ZT_OK(MPI_Info_free(&info));
    free(key);
    free(val);
}

/* MPI_INFO_ENV and MPI_Info_create_env describe this job. */
static void check_env(int argc, char **argv, int size)
{
    char *v = zt_malloc(MPI_MAX_INFO_VAL + 1), *w = zt_malloc(MPI_MAX_INFO_VAL + 1);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Info env, copy;
    int len;
    ZT_CHECK(get(MPI_INFO_ENV, "maxprocs", v) && atoi(v) == size, "maxprocs %s", v);
    ZT_OK(MPI_Get_processor_name(host, &len));
    ZT_CHECK(get(MPI_INFO_ENV, "host", v) && strcmp(v, host) == 0, "host %s vs %s", v, host);
    ZT_CHECK(get(MPI_INFO_ENV, "arch", v) && v[0], "arch missing");
    ZT_CHECK(getcwd(w, MPI_MAX_INFO_VAL + 1) != NULL, "getcwd failed");
    ZT_CHECK(get(MPI_INFO_ENV, "wdir", v) && strcmp(v, w) == 0, "wdir %s vs %s", v, w);
    /* "command" and "argv" need the launcher's arguments: when present
     * they must be the program's. */
    if (get(MPI_INFO_ENV, "command", v))
        ZT_CHECK(strcmp(v, argv[0]) == 0, "MPI_INFO_ENV command %s vs %s", v, argv[0]);
    expect_class(MPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO, "setting MPI_INFO_ENV");
    ZT_OK(MPI_Info_dup(MPI_INFO_ENV, &copy));
    ZT_OK(MPI_Info_set(copy, "maxprocs", "0"));
    ZT_CHECK(get(MPI_INFO_ENV, "maxprocs", v) && atoi(v) == size, "the copy changed MPI_INFO_ENV");
    ZT_OK(MPI_Info_free(&copy));
    ZT_OK(MPI_Info_create_env(argc, argv, &env));
    ZT_CHECK(get(env, "command", v) && strcmp(v, argv[0]) == 0, "create_env command %s", v);
    ZT_CHECK(argc == 3 && strcmp(argv[1], "alpha") == 0, "run this test with: alpha \"beta gamma\"");
    ZT_CHECK(get(env, "argv", v) && strcmp(v, "alpha beta gamma") == 0, "create_env argv %s", v);
    ZT_CHECK(get(env, "maxprocs", v) && atoi(v) == size, "create_env maxprocs %s", v);
    ZT_OK(MPI_Info_free(&env));
    /* Without arguments, MPI_Info_create_env builds what MPI_INFO_ENV
     * holds, key for key. */
    char key[MPI_MAX_INFO_KEY + 1];
    int n = 0, m = -1;
    ZT_OK(MPI_Info_create_env(0, NULL, &env));
    ZT_OK(MPI_Info_get_nkeys(env, &n));
    ZT_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &m));
    ZT_EQ(m, n, "keys of MPI_INFO_ENV vs MPI_Info_create_env(0, NULL)");
    for (int i = 0; i < n; i++) {
        ZT_OK(MPI_Info_get_nthkey(env, i, key));
        ZT_CHECK(get(env, key, v) && get(MPI_INFO_ENV, key, w) && strcmp(v, w) == 0,
                 "key %s: \"%s\" vs MPI_INFO_ENV's \"%s\"", key, v, w);
    }
    ZT_OK(MPI_Info_free(&env));
    free(v);
    free(w);
}

/* The assertion hints are kept and returned; others are ignored. */
static void check_comm_info(void)
{
    static const char *const hints[] = {
        "mpi_assert_no_any_tag", "mpi_assert_no_any_source", "mpi_assert_exact_length",
        "mpi_assert_allow_overtaking", "mpi_assert_strict_persistent_collective_ordering",
    };
    static const char *const want[] = { "true", "false", "true", "false", "false" };
    char v[MPI_MAX_INFO_VAL + 1];
    MPI_Comm comm;
    MPI_Info in, used;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    ZT_OK(MPI_Comm_get_info(comm, &used));
    expect_keys(used, 5, hints, "hints of a new communicator");
    for (int i = 0; i < 5; i++)
        ZT_CHECK(get(used, hints[i], v) && strcmp(v, "false") == 0, "default %s", hints[i]);
    ZT_OK(MPI_Info_free(&used));
    ZT_OK(MPI_Info_create(&in));
    ZT_OK(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
    ZT_OK(MPI_Info_set(in, "mpi_assert_exact_length", " true "));
    ZT_OK(MPI_Info_set(in, "mpi_assert_allow_overtaking", "maybe"));
    ZT_OK(MPI_Info_set(in, "zt_unknown_hint", "1"));
    ZT_OK(MPI_Comm_set_info(comm, in));
    ZT_OK(MPI_Info_free(&in));
    /* Only the hints given change; setting others later keeps these. */
    ZT_OK(MPI_Info_create(&in));
    ZT_OK(MPI_Info_set(in, "mpi_assert_no_any_source", "false"));
    ZT_OK(MPI_Comm_set_info(comm, in));
    ZT_OK(MPI_Info_free(&in));
    ZT_OK(MPI_Comm_get_info(comm, &used));
    expect_keys(used, 5, hints, "hints after MPI_Comm_set_info");
    for (int i = 0; i < 5; i++)
        ZT_CHECK(get(used, hints[i], v) && strcmp(v, want[i]) == 0, "%s is %s, expected %s",
                 hints[i], v, want[i]);
    ZT_OK(MPI_Info_free(&used));
    /* MPI_INFO_NULL changes nothing. */
    ZT_OK(MPI_Comm_set_info(comm, MPI_INFO_NULL));
    ZT_OK(MPI_Comm_get_info(comm, &used));
    ZT_CHECK(get(used, "mpi_assert_no_any_tag", v) && strcmp(v, "true") == 0,
             "MPI_Comm_set_info(MPI_INFO_NULL) changed a hint");
    ZT_OK(MPI_Info_free(&used));
    ZT_OK(MPI_Comm_free(&comm));
}

static void check_alloc_mem(void)
{
    MPI_Info info;
    char *p = NULL, *q = NULL, local = 0;
    ZT_OK(MPI_Alloc_mem(1000, MPI_INFO_NULL, &p));
    ZT_CHECK(p && (uintptr_t)p % 16 == 0, "default alignment of %p", (void *)p);
    memset(p, 1, 1000);
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096"));
    ZT_OK(MPI_Alloc_mem(100, info, &q));
    ZT_CHECK(q && (uintptr_t)q % 4096 == 0, "block %p is not aligned to 4096", (void *)q);
    memset(q, 2, 100);
    ZT_OK(MPI_Free_mem(q));
    ZT_OK(MPI_Info_set(info, "mpi_minimum_memory_alignment", "+8"));
    ZT_OK(MPI_Alloc_mem(0, info, &q));
    ZT_CHECK(q && (uintptr_t)q % 16 == 0, "a small alignment lowered the default");
    ZT_OK(MPI_Free_mem(q));
    ZT_OK(MPI_Info_set(info, "mpi_minimum_memory_alignment", "24"));
    expect_class(MPI_Alloc_mem(8, info, &q), MPI_ERR_INFO_VALUE, "alignment 24");
    expect_class(MPI_Alloc_mem(-1, MPI_INFO_NULL, &q), MPI_ERR_ARG, "size -1");
    expect_class(MPI_Free_mem(&local), MPI_ERR_BASE, "freeing a stack address");
    expect_class(MPI_Free_mem(p + 8), MPI_ERR_BASE, "freeing the middle of a block");
    ZT_OK(MPI_Free_mem(p));
    expect_class(MPI_Free_mem(p), MPI_ERR_BASE, "freeing a block twice");
    ZT_OK(MPI_Free_mem(NULL));
    ZT_OK(MPI_Info_free(&info));
}

static void check_hw_and_pcontrol(void)
{
    char key[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1];
    MPI_Info hw;
    int n = 0;
    ZT_OK(MPI_Pcontrol(0));
    ZT_OK(MPI_Pcontrol(1));
    ZT_OK(MPI_Pcontrol(2, "extra", 3));
    ZT_OK(MPI_Get_hw_resource_info(&hw));
    ZT_OK(MPI_Info_get_nkeys(hw, &n));
    ZT_CHECK(n >= 1, "no hardware resource types");
    for (int i = 0; i < n; i++) {
        ZT_OK(MPI_Info_get_nthkey(hw, i, key));
        ZT_CHECK(get(hw, key, v) && (!strcmp(v, "true") || !strcmp(v, "false")),
                 "resource %s has value %s", key, v);
    }
    ZT_CHECK(get(hw, "mpi_shared_memory", v) && strcmp(v, "true") == 0,
             "ranks of one process are restricted to one shared-memory domain");
    ZT_OK(MPI_Info_free(&hw));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Info early = before_init();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    check_order_and_dup(early);
    ZT_OK(MPI_Info_free(&early));
    check_truncation();
    check_limits();
    check_env(argc, argv, size);
    check_comm_info();
    check_alloc_mem();
    check_hw_and_pcontrol();
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
