/*
 * priv_libc.c: the libc state a privatized rank keeps to itself, and the
 * state it shares with the other ranks of its process (docs/privatization.md).
 *
 * Usage: priv_libc strtok|rand48|atexit|shared [ranks-only]
 *   strtok  every rank splits its own string with strtok, one call per
 *           step with a barrier between steps, so the ranks' calls
 *           interleave; a shared save pointer hands ranks each other's
 *           tokens.
 *   rand48  every rank draws from the drand48 family unseeded, then
 *           seeded with its own seed, then with its own lcong48
 *           parameters, interleaved the same way, and must get glibc's
 *           sequence for that state (the reentrant *_r functions on a
 *           local state are the reference).  Rank 0 also checks that the
 *           results equal libc's own functions, found with dlsym, before
 *           any rank draws (not with "ranks-only", which the test of
 *           the same program linked without privatization passes, so that
 *           it fails for the ranks' interleaving alone).
 *   atexit  every rank registers two atexit handlers and an on_exit
 *           handler between them; each prints one line per run, saying
 *           whether it ran in the rank (on the rank's stack, after its
 *           main), in order, once.  Odd ranks end with exit(0), even ranks
 *           return from main.  The test counts lines.
 *   shared  the state zmpi documents as shared by every rank of a
 *           process: one rank's setenv/putenv, chdir and setlocale are
 *           seen by every other rank after a barrier.
 */
#define _GNU_SOURCE
#include "zt.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <unistd.h>

#define STEPS 24

static MPI_Comm world;

/* ---- strtok ---- */

/* Splits a string of the rank's own tokens, one strtok call per barrier,
 * and compares each token with strtok_r's on a copy of the string. */
static void check_strtok(int rank)
{
    char mine[512], ref[512], *save = NULL;
    int n = snprintf(mine, sizeof mine, ",;r%da", rank);
    for (int i = 1; i < STEPS; i++)
        n += snprintf(mine + n, sizeof mine - (size_t)n, "%s%d.%d", i % 3 ? "," : ";;", rank, i);
    memcpy(ref, mine, sizeof mine);
    char *want = strtok_r(ref, ",;", &save);
    char *got = strtok(mine, ",;");
    for (int i = 0;; i++) {
        ZT_CHECK((got == NULL) == (want == NULL), "token %d: got %s, want %s", i,
                 got ? got : "(end)", want ? want : "(end)");
        if (!got)
            break;
        ZT_CHECK(strcmp(got, want) == 0 && got - mine == want - ref,
                 "token %d: got '%s', want '%s' (another rank's string?)", i, got, want);
        ZT_OK(MPI_Barrier(world));
        want = strtok_r(NULL, ",;", &save);
        got = strtok(NULL, ",;");
    }
}

/* Rank 0, alone, while the others wait: strtok gives libc's results. */
static void check_strtok_is_libc(void)
{
    char *(*libc_strtok)(char *, const char *) =
        (char *(*)(char *, const char *))dlsym(RTLD_DEFAULT, "strtok");
    ZT_CHECK(libc_strtok != NULL, "dlsym(strtok): %s", dlerror());
    char a[] = "::a:bc::d:", b[] = "::a:bc::d:";
    char *x = strtok(a, ":"), *y = libc_strtok(b, ":");
    for (;;) {
        ZT_CHECK((x ? x - a : -1) == (y ? y - b : -1), "strtok differs from libc's");
        if (!x)
            break;
        x = strtok(NULL, ":");
        y = libc_strtok(NULL, ":");
    }
}

/* ---- the drand48 family ---- */

/* One draw of each kind from the rank's state and from the reference. */
static void draw48(struct drand48_data *ref, unsigned short xs[3], unsigned short xr[3],
                   int step)
{
    double d, e;
    long l, m, n, j;
    drand48_r(ref, &d);
    lrand48_r(ref, &l);
    mrand48_r(ref, &m);
    erand48_r(xr, ref, &e);
    nrand48_r(xr, ref, &n);
    jrand48_r(xr, ref, &j);
    ZT_CHECK(drand48() == d, "step %d: drand48 differs (another rank's state?)", step);
    ZT_EQ(lrand48(), l, "lrand48");
    ZT_EQ(mrand48(), m, "mrand48");
    ZT_CHECK(erand48(xs) == e, "step %d: erand48 differs (lcong48 of another rank?)", step);
    ZT_EQ(nrand48(xs), n, "nrand48");
    ZT_EQ(jrand48(xs), j, "jrand48");
}

static void draws48(struct drand48_data *ref, int rank)
{
    unsigned short xs[3] = {(unsigned short)rank, 7, 9}, xr[3] = {(unsigned short)rank, 7, 9};
    for (int i = 0; i < STEPS; i++) {
        draw48(ref, xs, xr, i);
        ZT_OK(MPI_Barrier(world));
    }
}

/* Unseeded (glibc's zeroed state), then srand48, seed48 and lcong48 with
 * the rank's own values. */
static void check_rand48(int rank)
{
    struct drand48_data ref;
    memset(&ref, 0, sizeof ref);
    draws48(&ref, rank);

    srand48(1000 + rank);
    srand48_r(1000 + rank, &ref);
    draws48(&ref, rank);

    unsigned short seed[3] = {0x1234, (unsigned short)rank, 0x5678};
    unsigned short before[3], old[3];
    memcpy(before, ref.__x, sizeof before);
    unsigned short *prev = seed48(seed);
    memcpy(old, prev, sizeof old);
    ZT_CHECK(memcmp(old, before, sizeof old) == 0, "seed48 returned another state");
    seed48_r(seed, &ref);
    draws48(&ref, rank);

    unsigned short param[7] = {1, 2, (unsigned short)rank, 0x1d, (unsigned short)(rank + 3), 0,
                               (unsigned short)(11 + rank)};
    lcong48(param);
    lcong48_r(param, &ref);
    draws48(&ref, rank);
}

/* Rank 0, alone, before any rank draws: the wrappers give exactly what
 * libc's own functions give, unseeded and seeded. */
static void check_rand48_is_libc(void)
{
    double (*libc_drand48)(void) = (double (*)(void))dlsym(RTLD_DEFAULT, "drand48");
    long (*libc_lrand48)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "lrand48");
    void (*libc_srand48)(long) = (void (*)(long))dlsym(RTLD_DEFAULT, "srand48");
    ZT_CHECK(libc_drand48 && libc_lrand48 && libc_srand48, "dlsym: %s", dlerror());
    double d[4];
    long l[4];
    for (int i = 0; i < 4; i++) {
        d[i] = drand48();
        l[i] = lrand48();
    }
    for (int i = 0; i < 4; i++) {
        ZT_CHECK(libc_drand48() == d[i], "unseeded drand48 %d differs from libc's", i);
        ZT_EQ(libc_lrand48(), l[i], "unseeded lrand48 against libc's");
    }
    srand48(42);
    libc_srand48(42);
    for (int i = 0; i < 4; i++)
        ZT_EQ(lrand48(), libc_lrand48(), "lrand48 after srand48(42) against libc's");
    /* Back to the unseeded state for check_rand48: glibc's seed48 of
     * zeros with the standard multiplier is where it starts. */
    unsigned short zero[3] = {0, 0, 0};
    seed48(zero);
}

/* ---- atexit ---- */

/* Set by main: the rank and where its stack is, to tell whether a handler
 * runs on the rank's stack (the worker threads' and the process's own
 * stacks are elsewhere). */
static int my_rank = -1;
static uintptr_t main_frame;
static int handlers_run;

static void report(const char *which, int want_before)
{
    char here, line[160];
    intptr_t dist = (intptr_t)((uintptr_t)&here - main_frame);
    int on_stack = dist > -65536 && dist < 65536;
    int ok = on_stack && handlers_run == want_before;
    handlers_run++;
    int n = snprintf(line, sizeof line, "atexit %s %s rank %d (stack distance %ld, %d before)\n",
                     which, ok ? "ok" : "bad", my_rank, (long)dist, want_before);
    /* One write per line, straight to the file: nothing buffers it after
     * the rank's end. */
    if (write(1, line, (size_t)n) != n)
        abort();
}

/* Registered first, so it runs last. */
static void handler_first(void)
{
    report("first", 2);
}

/* Registered with on_exit between the two others; every rank ends with
 * status 0 (odd ranks through exit(0)). */
static void handler_on_exit(int status, void *arg)
{
    report(status == 0 && arg == &my_rank ? "on_exit" : "on_exit-args", 1);
}

static void handler_second(void)
{
    report("second", 0);
}

/* ---- state shared by every rank ---- */

/* Rank 0 changes it; after a barrier every other rank sees the change. */
static void check_shared(int rank)
{
    char dir[64] = "/tmp/zt_priv_libc_XXXXXX", old[4096];
    ZT_CHECK(getcwd(old, sizeof old) != NULL, "getcwd");
    static char put[] = "ZT_PRIV_LIBC_PUT=from rank 0";
    if (rank == 0) {
        ZT_CHECK(getenv("ZT_PRIV_LIBC_SET") == NULL, "variable set before the test");
        ZT_CHECK(setenv("ZT_PRIV_LIBC_SET", "from rank 0", 1) == 0, "setenv");
        ZT_CHECK(putenv(put) == 0, "putenv");
        ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
        ZT_CHECK(chdir(dir) == 0, "chdir %s", dir);
        int fd = open("marker", O_CREAT | O_WRONLY, 0600);
        ZT_CHECK(fd >= 0, "create marker");
        close(fd);
        ZT_CHECK(setlocale(LC_NUMERIC, "C.UTF-8") != NULL, "setlocale C.UTF-8");
    }
    ZT_OK(MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, world));
    const char *v = getenv("ZT_PRIV_LIBC_SET"), *p = getenv("ZT_PRIV_LIBC_PUT");
    ZT_CHECK(v && strcmp(v, "from rank 0") == 0, "rank 0's setenv not seen: %s", v ? v : "unset");
    ZT_CHECK(p && strcmp(p, "from rank 0") == 0, "rank 0's putenv not seen: %s", p ? p : "unset");
    int in_environ = 0;
    for (char **e = environ; *e; e++)
        in_environ |= strcmp(*e, "ZT_PRIV_LIBC_SET=from rank 0") == 0;
    ZT_CHECK(in_environ, "rank 0's setenv not in environ");
    char cwd[4096];
    ZT_CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, dir) == 0, "cwd %s, rank 0 went to %s", cwd,
             dir);
    ZT_CHECK(access("marker", F_OK) == 0, "relative path does not follow rank 0's chdir");
    const char *loc = setlocale(LC_NUMERIC, NULL);
    ZT_CHECK(loc && strcmp(loc, "C.UTF-8") == 0, "LC_NUMERIC %s", loc ? loc : "(null)");
    ZT_OK(MPI_Barrier(world));
    if (rank == 0) {
        unlink("marker");
        ZT_CHECK(chdir(old) == 0 && rmdir(dir) == 0, "clean up %s", dir);
        unsetenv("ZT_PRIV_LIBC_SET");
        unsetenv("ZT_PRIV_LIBC_PUT");
        setlocale(LC_NUMERIC, "C");
    }
}

int main(int argc, char **argv)
{
    char here;
    int rank;
    MPI_Init(&argc, &argv);
    world = MPI_COMM_WORLD;
    MPI_Comm_rank(world, &rank);
    ZT_CHECK(argc >= 2, "usage: priv_libc strtok|rand48|atexit|shared [ranks-only]");
    const char *what = argv[1];
    int against_libc = !(argc > 2 && strcmp(argv[2], "ranks-only") == 0);
    if (strcmp(what, "strtok") == 0) {
        if (rank == 0 && against_libc)
            check_strtok_is_libc();
        ZT_OK(MPI_Barrier(world));
        check_strtok(rank);
    } else if (strcmp(what, "rand48") == 0) {
        if (rank == 0 && against_libc)
            check_rand48_is_libc();
        ZT_OK(MPI_Barrier(world));
        check_rand48(rank);
    } else if (strcmp(what, "atexit") == 0) {
        my_rank = rank;
        main_frame = (uintptr_t)&here;
        ZT_CHECK(atexit(handler_first) == 0 && on_exit(handler_on_exit, &my_rank) == 0 &&
                     atexit(handler_second) == 0,
                 "atexit, on_exit");
    } else if (strcmp(what, "shared") == 0) {
        check_shared(rank);
    } else {
        ZT_CHECK(0, "unknown part '%s'", what);
    }
    ZT_OK(MPI_Finalize());
    if (my_rank >= 0 && my_rank % 2)
        exit(0);
    return 0;
}
