/*
 * info.c: info objects (MPI 4.1 chapter 10), the predefined MPI_INFO_ENV
 * and MPI_Info_create_env (section 11.2), hardware resource information
 * (MPI_Get_hw_resource_info, section 11.4) and communicator hints
 * (MPI_Comm_set_info, MPI_Comm_get_info; section 7.4.4).
 *
 * An info object keeps its entries in a list in the order in which their
 * keys were first set: MPI_Info_get_nthkey numbers keys in that order and
 * MPI_Info_dup keeps it.  Setting a key again changes its value in place.
 *
 * The info calls may be made at any time, before MPI_Init and after
 * MPI_Finalize (MPI 4.1 section 11.2.1 lists them among the procedures that
 * are always available), so they do not require an initialised rank.
 *
 * MPI_INFO_ENV describes how the job was started.  All ranks of a zmpi job
 * are threads of one process and were started by one command, so its
 * content is the same for every rank, and it is one object for the job:
 * built on first use, read-only afterwards.  Setting or deleting its keys
 * or freeing it raises MPI_ERR_INFO (MPI_Info_dup gives a copy to change),
 * since a change by one rank would otherwise show in every rank.
 */
#include "mpi_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct zmpi_info zmpi_info_env = { .magic = ZM_INFO_MAGIC };

/* What MPI_INFO_ENV is built from besides the state of the process. */
static struct {
    zm_spinlock_t lock;   /* held while MPI_INFO_ENV is built */
    _Atomic int ready;    /* MPI_INFO_ENV holds its keys */
    int argc;             /* the program's arguments (zm_mpi_info_env_args) */
    char **argv;
} env;

/* ---- Entries ------------------------------------------------------------ */

/* An info object's blocks come from the heap of the rank that makes it, in
 * a job whose ranks have regions, so that it moves with the rank
 * (zm_core_obj_alloc); MPI_INFO_ENV's are the process's, whoever builds
 * it. */
static void *info_mem(MPI_Info info, size_t n)
{
    return info == &zmpi_info_env ? malloc(n) : zm_core_obj_alloc(n);
}

static char *info_strdup(MPI_Info info, const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = info_mem(info, n);
    if (p)
        memcpy(p, str, n);
    return p;
}

static int info_valid(MPI_Info info)
{
    return info && info->magic == ZM_INFO_MAGIC;
}

static struct zmpi_info_entry *info_find(MPI_Info info, const char *key)
{
    for (struct zmpi_info_entry *e = info->head; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

/* Give `key` the value `value`.  A new key goes to the end of the list so
 * that keys keep the order of their first setting.  Returns 0, or -1 if
 * out of memory (then `info` is unchanged). */
static int info_put(MPI_Info info, const char *key, const char *value)
{
    struct zmpi_info_entry **pp = &info->head;
    char *v = info_strdup(info, value);
    if (!v)
        return -1;
    for (; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, key) == 0) {
            zm_core_obj_free((*pp)->value);
            (*pp)->value = v;
            return 0;
        }
    }
    struct zmpi_info_entry *e = info_mem(info, sizeof(*e));
    if (!e || !(e->key = info_strdup(info, key))) {
        zm_core_obj_free(e);
        zm_core_obj_free(v);
        return -1;
    }
    e->value = v;
    e->next = NULL;
    *pp = e;
    return 0;
}

static void info_clear(MPI_Info info)
{
    struct zmpi_info_entry *e = info->head;
    while (e) {
        struct zmpi_info_entry *next = e->next;
        zm_core_obj_free(e->key);
        zm_core_obj_free(e->value);
        zm_core_obj_free(e);
        e = next;
    }
    info->head = NULL;
}

/* A new empty info object, or NULL if out of memory. */
static MPI_Info info_alloc(void)
{
    MPI_Info info = zm_core_obj_calloc(1, sizeof(*info));
    if (info)
        info->magic = ZM_INFO_MAGIC;
    return info;
}

static void info_destroy(MPI_Info info)
{
    info_clear(info);
    zm_mpi_handle_forget(info);
    zm_mpi_magic_clear(&info->magic);
    zm_core_obj_free(info);
}

/* Hand the new info object n out through *out; if n is NULL or filling it
 * `failed` (both: out of memory), free what there is and raise
 * MPI_ERR_NO_MEM on c (NULL: no object) as call fn instead. */
static int info_hand_out(const char *fn, struct zmpi_comm *c, MPI_Info n, int failed,
                         MPI_Info *out)
{
    if (n && failed) {
        info_destroy(n);
        n = NULL;
    }
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *out = n;
    return MPI_SUCCESS;
}

/* ---- MPI_INFO_ENV ------------------------------------------------------- */


void zm_mpi_info_env_args(int argc, char **argv)
{
    env.argc = argc;
    env.argv = argv;
    /* A singleton may have looked at MPI_INFO_ENV before MPI_Init: build it
     * again with the arguments. */
    if (atomic_load(&env.ready)) {
        info_clear(&zmpi_info_env);
        atomic_store(&env.ready, 0);
    }
}

/* Put the keys of MPI_INFO_ENV (MPI 4.1 section 11.2.2) into `info`, for a
 * program started with arguments argc/argv (none if argc is 0): the keys
 * zmpirun can answer, in the standard's order.  "soft", "file" and
 * "thread_level" are left out because zmpirun has no such options.
 * Returns 0, or -1 if out of memory. */
static int env_fill(MPI_Info info, int argc, char **argv)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    struct utsname u;
    int rc = 0, np = zm_ult_count();
    if (argc > 0 && argv && argv[0]) {
        snprintf(buf, sizeof(buf), "%s", argv[0]);
        rc |= info_put(info, "command", buf);
        /* Space-separated arguments, cut at MPI_MAX_INFO_VAL characters. */
        size_t n = 0;
        buf[0] = '\0';
        for (int i = 1; i < argc && argv[i] && n < sizeof(buf) - 1; i++)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i > 1 ? " " : "", argv[i]);
        if (argc > 1)
            rc |= info_put(info, "argv", buf);
    }
    snprintf(buf, sizeof(buf), "%d", np > 0 ? np : 1);
    rc |= info_put(info, "maxprocs", buf);
    rc |= info_put(info, "mpi_initial_errhandler", "mpi_errors_are_fatal");
    zm_arch_hostname(buf, sizeof(buf));
    rc |= info_put(info, "host", buf);
    if (uname(&u) == 0)
        rc |= info_put(info, "arch", u.machine);
    if (getcwd(buf, sizeof(buf)))
        rc |= info_put(info, "wdir", buf);
    return rc ? -1 : 0;
}

/* Build MPI_INFO_ENV if no rank has yet.  Returns 0, or -1 if out of
 * memory.  Any rank; after the first build the object only is read. */
static int env_ready(void)
{
    if (atomic_load_explicit(&env.ready, memory_order_acquire))
        return 0;
    int rc = 0;
    zm_spin_lock(&env.lock);
    if (!atomic_load_explicit(&env.ready, memory_order_relaxed)) {
        rc = env_fill(&zmpi_info_env, env.argc, env.argv);
        if (rc == 0)
            atomic_store_explicit(&env.ready, 1, memory_order_release);
        else
            info_clear(&zmpi_info_env);
    }
    zm_spin_unlock(&env.lock);
    return rc;
}

/* ---- Argument checks ---------------------------------------------------- */

int zm_mpi_info_check(const char *fn, MPI_Info info)
{
    if (info_valid(info))
        return info == MPI_INFO_ENV && env_ready() != 0
                   ? zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for MPI_INFO_ENV")
                   : MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_INFO, fn, "(info=%s): invalid info object",
                        info == MPI_INFO_NULL ? "MPI_INFO_NULL" : "freed or not an info object");
}

/* Check an info object that the call changes: any valid one but
 * MPI_INFO_ENV. */
static int info_check_writable(const char *fn, MPI_Info info)
{
    if (info == MPI_INFO_ENV)
        return zm_mpi_error(NULL, MPI_ERR_INFO, fn, "(info=MPI_INFO_ENV): read-only under "
                            "zmpi, since all ranks share it; change a copy from MPI_Info_dup");
    return zm_mpi_info_check(fn, info);
}

static int key_check(const char *fn, const char *key)
{
    if (!key)
        return zm_mpi_error(NULL, MPI_ERR_INFO_KEY, fn, "(key=NULL): invalid key");
    size_t n = strlen(key);
    if (n == 0)
        return zm_mpi_error(NULL, MPI_ERR_INFO_KEY, fn, "(key=\"\"): empty key");
    if (n > MPI_MAX_INFO_KEY)
        return zm_mpi_error(NULL, MPI_ERR_INFO_KEY, fn, "(key=\"%.32s...\"): %zu characters, "
                            "more than MPI_MAX_INFO_KEY = %d", key, n, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

/* The checks of the calls that look a key up in an info object. */
static int lookup_check(const char *fn, MPI_Info info, const char *key, const void *flag)
{
    int rc = zm_mpi_info_check(fn, info);
    if (rc == MPI_SUCCESS)
        rc = key_check(fn, key);
    if (rc == MPI_SUCCESS && !flag)
        rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(flag=NULL): invalid argument");
    return rc;
}

/* ---- Info objects ------------------------------------------------------- */

int PMPI_Info_create(MPI_Info *info)
{
    const char *fn = "MPI_Info_create";
    if (!info)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(info=NULL): invalid argument");
    return info_hand_out(fn, NULL, info_alloc(), 0, info);
}
ZM_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *fn = "MPI_Info_set";
    int rc = info_check_writable(fn, info);
    if (rc == MPI_SUCCESS)
        rc = key_check(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!value)
        return zm_mpi_error(NULL, MPI_ERR_INFO_VALUE, fn, "(value=NULL): invalid value");
    size_t n = strlen(value);
    if (n > MPI_MAX_INFO_VAL)
        return zm_mpi_error(NULL, MPI_ERR_INFO_VALUE, fn, "(value): %zu characters, more than "
                            "MPI_MAX_INFO_VAL = %d (key \"%s\")", n, MPI_MAX_INFO_VAL, key);
    if (info_put(info, key, value) != 0)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}
ZM_WEAK(Info_set)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    const char *fn = "MPI_Info_delete";
    int rc = info_check_writable(fn, info);
    if (rc == MPI_SUCCESS)
        rc = key_check(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct zmpi_info_entry **pp = &info->head; *pp; pp = &(*pp)->next) {
        struct zmpi_info_entry *e = *pp;
        if (strcmp(e->key, key) == 0) {
            *pp = e->next;
            zm_core_obj_free(e->key);
            zm_core_obj_free(e->value);
            zm_core_obj_free(e);
            return MPI_SUCCESS;
        }
    }
    return zm_mpi_error(NULL, MPI_ERR_INFO_NOKEY, fn, "(key=\"%s\"): no such key in the info "
                        "object", key);
}
ZM_WEAK(Info_delete)

/* Deprecated since MPI 4.0 (MPI_Info_get_string replaces it) but still in
 * MPI 4.1.  In C, valuelen counts the characters the value may have: the
 * buffer holds valuelen + 1 bytes with the terminator. */
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get";
    int rc = lookup_check(fn, info, key, flag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (valuelen < 0 || !value)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, valuelen < 0 ? "(valuelen=%d): must be >= 0"
                            : "(value=NULL): invalid argument (valuelen=%d)", valuelen);
    struct zmpi_info_entry *e = info_find(info, key);
    *flag = e != NULL;
    if (e) {
        size_t n = strlen(e->value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, e->value, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
ZM_WEAK(Info_get)

/* Deprecated since MPI 4.0, still in MPI 4.1.  The length excludes the
 * terminator. */
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    const char *fn = "MPI_Info_get_valuelen";
    int rc = lookup_check(fn, info, key, flag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valuelen)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(valuelen=NULL): invalid argument");
    struct zmpi_info_entry *e = info_find(info, key);
    *flag = e != NULL;
    if (e)
        *valuelen = (int)strlen(e->value);
    return MPI_SUCCESS;
}
ZM_WEAK(Info_get_valuelen)

/* MPI 4.0.  *buflen is the buffer's size with the terminator; on return it
 * is the size the whole value needs.  A buflen of 0 only asks for that
 * size and leaves value alone. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get_string";
    int rc = lookup_check(fn, info, key, flag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buflen)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(buflen=NULL): invalid argument");
    if (*buflen < 0 || (*buflen > 0 && !value))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, *buflen < 0 ? "(buflen=%d): must be >= 0"
                            : "(value=NULL): invalid argument (buflen=%d)", *buflen);
    struct zmpi_info_entry *e = info_find(info, key);
    *flag = e != NULL;
    if (!e)
        return MPI_SUCCESS;
    size_t n = strlen(e->value);
    if (*buflen > 0) {
        size_t m = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
        memcpy(value, e->value, m);
        value[m] = '\0';
    }
    *buflen = (int)n + 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Info_get_string)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    const char *fn = "MPI_Info_get_nkeys";
    int rc = zm_mpi_info_check(fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!nkeys)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(nkeys=NULL): invalid argument");
    int n = 0;
    for (struct zmpi_info_entry *e = info->head; e; e = e->next)
        n++;
    *nkeys = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Info_get_nkeys)

/* Keys are numbered in the order in which they were first set.  In C, key
 * must hold MPI_MAX_INFO_KEY + 1 bytes for the longest key. */
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *fn = "MPI_Info_get_nthkey";
    int rc = zm_mpi_info_check(fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!key)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(key=NULL): invalid argument");
    int nkeys = 0;
    struct zmpi_info_entry *nth = NULL;
    for (struct zmpi_info_entry *e = info->head; e; e = e->next, nkeys++)
        if (nkeys == n)
            nth = e;
    if (!nth)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(n=%d): invalid key number, the info "
                            "object has %d keys", n, nkeys);
    strcpy(key, nth->key);
    return MPI_SUCCESS;
}
ZM_WEAK(Info_get_nthkey)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    const char *fn = "MPI_Info_dup";
    int rc = zm_mpi_info_check(fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newinfo)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(newinfo=NULL): invalid argument");
    MPI_Info n = info_alloc();
    int fail = 0;
    for (struct zmpi_info_entry *e = info->head; n && !fail && e; e = e->next)
        fail = info_put(n, e->key, e->value) != 0;
    return info_hand_out(fn, NULL, n, fail, newinfo);
}
ZM_WEAK(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    const char *fn = "MPI_Info_free";
    if (!info)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(info=NULL): invalid argument");
    int rc = info_check_writable(fn, *info);
    if (rc != MPI_SUCCESS)
        return rc;
    info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Info_free)

/* Like MPI_INFO_ENV, but with the given arguments; with argc 0 or argv
 * NULL, those the job was started with.  May be called at any time. */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    const char *fn = "MPI_Info_create_env";
    if (argc < 0 || (argc > 0 && !argv))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, argc < 0 ? "(argc=%d): must be >= 0"
                            : "(argv=NULL): invalid argument with argc=%d", argc);
    if (!info)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(info=NULL): invalid argument");
    if (argc == 0 || !argv) {
        argc = env.argc;
        argv = env.argv;
    }
    MPI_Info n = info_alloc();
    return info_hand_out(fn, NULL, n, n && env_fill(n, argc, argv) != 0, info);
}
ZM_WEAK(Info_create_env)

/* MPI 4.1 section 11.4: each key is a hardware resource type, and its
 * value says whether the calling MPI process is restricted to a single
 * resource of that type ("true") or not ("false").  zmpi knows three:
 *   mpi_shared_memory  "true": a process lives on one node, whose
 *                      processes share memory (the type that
 *                      MPI_COMM_TYPE_SHARED splits by);
 *   zmpi://Machine     "true": one host;
 *   zmpi://PU          "true" only if the process may run on one CPU: a
 *                      rank is a user-level thread on one of the job's
 *                      worker threads, which the OS runs on any CPU of the
 *                      process's affinity mask. */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    const char *fn = "MPI_Get_hw_resource_info";
    zm_mpi_enter(fn);
    if (!hw_info)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(hw_info=NULL): invalid argument");
    MPI_Info n = info_alloc();
    int fail = n && (info_put(n, "mpi_shared_memory", "true") != 0 ||
                     info_put(n, "zmpi://Machine", "true") != 0 ||
                     info_put(n, "zmpi://PU", zm_arch_ncpus() == 1 ? "true" : "false") != 0);
    return info_hand_out(fn, NULL, n, fail, hw_info);
}
ZM_WEAK(Get_hw_resource_info)

/* ---- Communicator hints ------------------------------------------------- */

/* The communicator hints zmpi recognises: the boolean assertions of MPI
 * 4.1 section 7.4.4, all "false" by default.  zmpi's matching keeps its
 * order and wildcards whatever they say, so it only keeps them, to return
 * them from MPI_Comm_get_info; other keys are ignored and not returned, as
 * the standard allows. */
static const char *const comm_hints[] = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
    "mpi_assert_strict_persistent_collective_ordering",
};
#define NHINTS ((int)(sizeof(comm_hints) / sizeof(*comm_hints)))

/* The boolean an info value stands for: 1 for "true", 0 for "false", -1
 * for anything else.  Leading and trailing spaces do not count (MPI 4.1
 * chapter 10). */
static int parse_bool(const char *v)
{
    while (*v == ' ')
        v++;
    size_t n = strlen(v);
    while (n > 0 && v[n - 1] == ' ')
        n--;
    if (n == 4 && strncmp(v, "true", 4) == 0)
        return 1;
    if (n == 5 && strncmp(v, "false", 5) == 0)
        return 0;
    return -1;
}


/* zmpi's own communicator key: the largest point-to-point message sent
 * eagerly to a rank of another process on this communicator, in bytes
 * (docs/net.md); 0 restores the job's default (ZMPI_NET_EAGER_MAX).  A
 * value that is not a non-negative integer is ignored, as values of hints
 * zmpi does not understand are.  Returns 0, or -1 if out of memory. */
#define NET_EAGER_KEY "zmpi_net_eager_max"

static int net_eager_apply(struct zmpi_comm *c, MPI_Info info)
{
    struct zmpi_info_entry *e = info_find(info, NET_EAGER_KEY);
    char *end;
    if (!e || e->value[0] < '0' || e->value[0] > '9')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(e->value, &end, 10);
    while (*end == ' ')
        end++;
    if (errno || *end)
        return 0;
    char buf[32];
    snprintf(buf, sizeof(buf), "%llu", v);
    c->p.net_eager = (size_t)v;
    if (!c->info && !(c->info = info_alloc()))
        return -1;
    return info_put(c->info, NET_EAGER_KEY, buf) != 0 ? -1 : 0;
}

int zm_mpi_comm_info_apply(struct zmpi_comm *c, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (!info_valid(info))
        return MPI_ERR_INFO;
    if (info == MPI_INFO_ENV && env_ready() != 0)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < NHINTS; i++) {
        struct zmpi_info_entry *e = info_find(info, comm_hints[i]);
        int b = e ? parse_bool(e->value) : -1;
        if (b < 0)
            continue;
        if (!c->info && !(c->info = info_alloc()))
            return MPI_ERR_NO_MEM;
        if (info_put(c->info, comm_hints[i], b ? "true" : "false") != 0)
            return MPI_ERR_NO_MEM;
    }
    return net_eager_apply(c, info) != 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    const char *fn = "MPI_Comm_set_info";
    ENTER_COMM(fn, comm, c);
    rc = zm_mpi_comm_info_apply(c, info);
    if (rc == MPI_ERR_INFO)
        return zm_mpi_error(c, rc, fn, "(info): freed or not an info object");
    if (rc != MPI_SUCCESS)
        return zm_mpi_error(c, rc, fn, "out of memory");
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    const char *fn = "MPI_Comm_get_info";
    ENTER_COMM(fn, comm, c);
    if (!info_used)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(info_used=NULL): invalid argument");
    /* Every recognised hint, with its default unless it was set (MPI 4.1
     * section 7.4.4 asks for the supported hints that have defaults), then
     * the keys zmpi set itself. */
    MPI_Info n = info_alloc();
    int fail = !n;
    for (int i = 0; !fail && i < NHINTS; i++) {
        struct zmpi_info_entry *e = c->info ? info_find(c->info, comm_hints[i]) : NULL;
        fail = info_put(n, comm_hints[i], e ? e->value : "false") != 0;
    }
    for (struct zmpi_info_entry *e = c->info ? c->info->head : NULL; !fail && e; e = e->next)
        fail = info_put(n, e->key, e->value) != 0;
    return info_hand_out(fn, c, n, fail, info_used);
}
ZM_WEAK(Comm_get_info)
