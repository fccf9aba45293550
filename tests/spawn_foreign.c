/* spawn_foreign.c: spawning what cannot become virtual ranks fails at once.
 *
 * Like a Python interpreter running mpi4py, this program is not linked
 * with zmpi: it loads libzmpi with dlopen (argv[1]) and is then a
 * singleton, a one-rank job that zmpi's launcher did not start.  Spawning
 * itself (mpi4py's futures spawn sys.executable, the running program),
 * a shell, or both through MPI_Comm_spawn_multiple, must fail with
 * MPI_ERR_SPAWN, a message naming the call and the command, an error code
 * per asked rank, MPI_COMM_NULL, and within a second (the test's time-out
 * catches a hang).
 *
 *   spawn_foreign LIBZMPI return   under MPI_ERRORS_RETURN; prints "OK"
 *   spawn_foreign LIBZMPI fatal    under MPI_ERRORS_ARE_FATAL: the job
 *                                  ends with zmpi's message (expect_fail.sh)
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) \
    do { \
        if (!(c)) { \
            fprintf(stderr, "spawn_foreign: line %d: check failed: %s\n", __LINE__, #c); \
            exit(1); \
        } \
    } while (0)

/* The calls used, found in the loaded library. */
static struct {
    __typeof__(MPI_Init) *init;
    __typeof__(MPI_Finalize) *finalize;
    __typeof__(MPI_Comm_set_errhandler) *set_eh;
    __typeof__(MPI_Comm_spawn) *spawn;
    __typeof__(MPI_Comm_spawn_multiple) *spawn_multiple;
    __typeof__(MPI_Error_class) *error_class;
    __typeof__(MPI_Error_string) *error_string;
    __typeof__(MPI_Info_create) *info_create;
    __typeof__(MPI_Info_set) *info_set;
    __typeof__(MPI_Info_free) *info_free;
    __typeof__(MPI_Wtime) *wtime;
    MPI_Errhandler errors_return;
} Z;

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "spawn_foreign: %s not found: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

static void load(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "spawn_foreign: %s\n", dlerror());
        exit(2);
    }
    Z.init = sym(h, "MPI_Init");
    Z.finalize = sym(h, "MPI_Finalize");
    Z.set_eh = sym(h, "MPI_Comm_set_errhandler");
    Z.spawn = sym(h, "MPI_Comm_spawn");
    Z.spawn_multiple = sym(h, "MPI_Comm_spawn_multiple");
    Z.error_class = sym(h, "MPI_Error_class");
    Z.error_string = sym(h, "MPI_Error_string");
    Z.info_create = sym(h, "MPI_Info_create");
    Z.info_set = sym(h, "MPI_Info_set");
    Z.info_free = sym(h, "MPI_Info_free");
    Z.wtime = sym(h, "MPI_Wtime");
    Z.errors_return = sym(h, "zmpi_errhandler_return");
}

/* rc must be MPI_ERR_SPAWN with a message naming fn and every string of
 * want (NULL-terminated); n error codes set, none MPI_SUCCESS. */
static void expect_spawn_error(int rc, const char *fn, const char *const want[],
                               const int codes[], int n, MPI_Comm ic, double secs)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = -1, len = 0;
    Z.error_class(rc, &cls);
    Z.error_string(rc, msg, &len);
    printf("spawn_foreign: %s refused in %.3f s: %s\n", fn, secs, msg);
    CHECK(cls == MPI_ERR_SPAWN);
    CHECK(ic == MPI_COMM_NULL);
    CHECK(secs < 1.0);
    CHECK(strstr(msg, fn) != NULL);
    for (int i = 0; want[i]; i++)
        CHECK(strstr(msg, want[i]) != NULL);
    for (int i = 0; i < n; i++)
        CHECK(codes[i] != MPI_SUCCESS && codes[i] != -7);
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    load(argv[1]);
    CHECK(Z.init(&argc, &argv) == MPI_SUCCESS);
    int fatal = strcmp(argv[2], "fatal") == 0;
    if (!fatal)
        Z.set_eh(MPI_COMM_SELF, Z.errors_return);
    /* As mpi4py's futures do: the running program, up to 4 ranks with
     * soft=1:4, through MPI_COMM_SELF. */
    MPI_Info info;
    Z.info_create(&info);
    Z.info_set(info, "soft", "1:4");
    char *args[] = { "-m", "worker", NULL };
    int codes[5] = { -7, -7, -7, -7, -7 };
    MPI_Comm ic = MPI_COMM_SELF;
    double t = Z.wtime();
    int rc = Z.spawn(argv[0], args, 4, info, 0, MPI_COMM_SELF, &ic, codes);
    const char *self_why[] = { argv[0], "running program", "not built by zmpicc", NULL };
    expect_spawn_error(rc, "MPI_Comm_spawn", self_why, codes, 4, ic, Z.wtime() - t);
    CHECK(codes[4] == -7);
    /* A shell and the running program together. */
    char *cmds[2] = { "/bin/sh", argv[0] };
    char **argvs[2] = { MPI_ARGV_NULL, args };
    int maxprocs[2] = { 2, 1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, info };
    ic = MPI_COMM_SELF;
    t = Z.wtime();
    rc = Z.spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_SELF, &ic, codes);
    const char *sh_why[] = { "/bin/sh", NULL };
    expect_spawn_error(rc, "MPI_Comm_spawn_multiple", sh_why, codes, 3, ic, Z.wtime() - t);
    Z.info_free(&info);
    CHECK(Z.finalize() == MPI_SUCCESS);
    printf("spawn_foreign: OK\n");
    return 0;
}
