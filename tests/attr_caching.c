/*
 * attr_caching.c: attribute caching (MPI 4.1 section 7.7) on
 * communicators, datatypes and windows.
 *   - set, get, delete; setting a key again runs the delete callback once
 *     on the old value; deleting an absent attribute does nothing;
 *   - MPI_Comm_dup: copy callbacks run in the order the attributes were set,
 *     with the old handle and extra_state; flag decides whether the
 *     duplicate gets the value; MPI_COMM_DUP_FN and MPI_COMM_NULL_COPY_FN;
 *   - MPI_Comm_free: delete callbacks run once each, newest first;
 *   - a failing copy or delete callback fails the call with its code, and
 *     the attribute stays (a failed dup deletes what it had copied);
 *   - a key freed while attributes use it lives on until the last one goes,
 *     and MPI_Comm_free_keyval sets the handle to MPI_KEYVAL_INVALID;
 *   - datatype attributes, per rank even on the shared MPI_INT;
 *     MPI_Type_dup and MPI_Type_free run the callbacks;
 *   - window attributes on MPI_Win_allocate_shared, predefined window
 *     attributes, MPI_Win_free runs the delete callback;
 *   - predefined communicator attributes and their values;
 *   - the deprecated MPI_Keyval_create, MPI_Attr_put/get/delete,
 *     MPI_Keyval_free, MPI_NULL_COPY_FN, MPI_DUP_FN;
 *   - errors (bad keys, wrong object kind, NULL pointers, bad handles)
 *     through MPI_ERRORS_RETURN with their classes.
 */
#include "zt.h"

#include <stdint.h>

#define MAX_EVENTS 64

/* What the callbacks saw.  Each rank has its own log, reached through the
 * keys' extra_state (ranks share this program's globals under zmpi). */
struct log {
    int n;
    char what[MAX_EVENTS];      /* 'c' copy, 'd' delete */
    int key[MAX_EVENTS];        /* the key's tag (struct key.tag) */
    intptr_t value[MAX_EVENTS]; /* the attribute value */
    void *handle[MAX_EVENTS];   /* the object handle passed */
};

/* extra_state of a key: where to log and how to behave. */
struct key {
    struct log *log;
    int tag;                    /* names the key in the log */
    int keep;                   /* copy: set flag to this, value + 1 */
    int fail;                   /* copy and delete return this (0: success) */
    int other;                  /* delete: also delete this key's attribute (0: none) */
};

static intptr_t comm_value(MPI_Comm comm, int keyval);

static void log_event(struct key *k, char what, void *value, void *handle)
{
    struct log *l = k->log;
    ZT_CHECK(l->n < MAX_EVENTS, "too many callback events");
    l->what[l->n] = what;
    l->key[l->n] = k->tag;
    l->value[l->n] = (intptr_t)value;
    l->handle[l->n] = handle;
    l->n++;
}

/* Checks event i of the log. */
static void expect_event(const struct log *l, int i, char what, int tag, intptr_t value,
                         void *handle)
{
    ZT_CHECK(i < l->n, "event %d missing (%d events)", i, l->n);
    ZT_CHECK(l->what[i] == what && l->key[i] == tag,
             "event %d: got %c of key %d, expected %c of key %d", i, l->what[i], l->key[i],
             what, tag);
    ZT_EQ(l->value[i], value, "value passed to the callback");
    ZT_CHECK(l->handle[i] == handle, "event %d: wrong object handle", i);
}

static int comm_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct key *k = extra;
    (void)keyval;
    log_event(k, 'c', in, (void *)old);
    if (k->fail)
        return k->fail;
    *flag = k->keep;
    if (k->keep)
        *(void **)out = (void *)((intptr_t)in + 1);
    return MPI_SUCCESS;
}

static int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    struct key *k = extra;
    (void)keyval;
    log_event(k, 'd', value, (void *)comm);
    if (k->other) {
        /* Callbacks may call MPI on the object being freed. */
        ZT_OK(MPI_Comm_delete_attr(comm, k->other));
        ZT_CHECK(comm_value(comm, k->other) == -1, "deleted from a callback");
    }
    return k->fail;
}

static int type_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct key *k = extra;
    (void)keyval;
    log_event(k, 'c', in, (void *)old);
    *flag = k->keep;
    if (k->keep)
        *(void **)out = (void *)((intptr_t)in + 1);
    return k->fail;
}

static int type_delete(MPI_Datatype dt, int keyval, void *value, void *extra)
{
    struct key *k = extra;
    (void)keyval;
    log_event(k, 'd', value, (void *)dt);
    return k->fail;
}

static int win_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    struct key *k = extra;
    (void)keyval;
    log_event(k, 'd', value, (void *)win);
    return k->fail;
}

#define V(x) ((void *)(intptr_t)(x))

/* The attribute of `keyval` on comm: its value, or -1 if absent. */
static intptr_t comm_value(MPI_Comm comm, int keyval)
{
    void *v = NULL;
    int flag = -1;
    ZT_OK(MPI_Comm_get_attr(comm, keyval, &v, &flag));
    ZT_CHECK(flag == 0 || flag == 1, "flag is %d", flag);
    return flag ? (intptr_t)v : -1;
}

/* rc must be an error of class cls (under zmpi, codes are classes). */
static void expect_err(int rc, int cls, const char *what)
{
    int got = -1;
    ZT_CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    ZT_OK(MPI_Error_class(rc, &got));
    ZT_CHECK(got == cls, "%s: class %d, expected %d", what, got, cls);
}

/* Set, get, set again, delete, delete again, on MPI_COMM_WORLD. */
static void test_set_get_delete(int rank)
{
    struct log log = { 0 };
    struct key k = { &log, 1, 1, 0, 0 };
    intptr_t a = 1000 * (rank + 1), b = a + 7;
    int kv = MPI_KEYVAL_INVALID;
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv, &k));
    ZT_CHECK(kv != MPI_KEYVAL_INVALID, "a key was made");
    ZT_EQ(comm_value(MPI_COMM_WORLD, kv), -1, "no attribute before set");
    ZT_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, V(a)));
    ZT_EQ(comm_value(MPI_COMM_WORLD, kv), a, "value after set");
    ZT_EQ(comm_value(MPI_COMM_SELF, kv), -1, "MPI_COMM_SELF has no attribute");
    ZT_EQ(log.n, 0, "no callback on the first set");
    ZT_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, V(b)));
    ZT_EQ(log.n, 1, "setting again runs the delete callback once");
    expect_event(&log, 0, 'd', 1, a, MPI_COMM_WORLD);
    ZT_EQ(comm_value(MPI_COMM_WORLD, kv), b, "value after the second set");
    ZT_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    ZT_EQ(log.n, 2, "delete_attr runs the delete callback");
    expect_event(&log, 1, 'd', 1, b, MPI_COMM_WORLD);
    ZT_EQ(comm_value(MPI_COMM_WORLD, kv), -1, "no attribute after delete");
    ZT_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    ZT_EQ(log.n, 2, "deleting an absent attribute calls nothing");
    ZT_OK(MPI_Comm_free_keyval(&kv));
    ZT_EQ(kv, MPI_KEYVAL_INVALID, "free_keyval sets the handle to MPI_KEYVAL_INVALID");
}

/* Keys 1..4 set on a communicator: 1 copies (value + 1), 2 uses
 * MPI_COMM_DUP_FN, 3 MPI_COMM_NULL_COPY_FN, 4 a copy callback keeping
 * nothing.  Checks dup and free. */
static void test_dup_free(int rank)
{
    struct log log = { 0 };
    struct key k[5] = { { 0 }, { &log, 1, 1, 0, 0 }, { &log, 2, 1, 0, 0 }, { &log, 3, 1, 0, 0 },
                        { &log, 4, 0, 0, 0 } };
    int kv[5];
    intptr_t v0 = 100 * (rank + 1);
    MPI_Comm base, dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv[1], &k[1]));
    ZT_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, comm_delete, &kv[2], &k[2]));
    ZT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &kv[3], &k[3]));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv[4], &k[4]));
    for (int i = 1; i <= 4; i++)
        ZT_OK(MPI_Comm_set_attr(base, kv[i], V(v0 + i)));
    ZT_OK(MPI_Comm_dup(base, &dup));
    ZT_EQ(log.n, 2, "copy callbacks of keys 1 and 4 ran");
    expect_event(&log, 0, 'c', 1, v0 + 1, base);
    expect_event(&log, 1, 'c', 4, v0 + 4, base);
    ZT_EQ(comm_value(dup, kv[1]), v0 + 2, "key 1: the copy callback's value");
    ZT_EQ(comm_value(dup, kv[2]), v0 + 2, "key 2: MPI_COMM_DUP_FN copies the value");
    ZT_EQ(comm_value(dup, kv[3]), -1, "key 3: MPI_COMM_NULL_COPY_FN copies nothing");
    ZT_EQ(comm_value(dup, kv[4]), -1, "key 4: flag 0 copies nothing");
    for (int i = 1; i <= 4; i++)
        ZT_EQ(comm_value(base, kv[i]), v0 + i, "the old communicator keeps its values");
    MPI_Comm dup_handle = dup;
    ZT_OK(MPI_Comm_free(&dup));
    ZT_EQ(log.n, 4, "the duplicate's two attributes deleted");
    expect_event(&log, 2, 'd', 2, v0 + 2, dup_handle);
    expect_event(&log, 3, 'd', 1, v0 + 2, dup_handle);
    MPI_Comm base_handle = base;
    ZT_OK(MPI_Comm_free(&base));
    ZT_EQ(log.n, 8, "the four attributes deleted");
    for (int i = 0; i < 4; i++)
        expect_event(&log, 4 + i, 'd', 4 - i, v0 + 4 - i, base_handle);
    for (int i = 1; i <= 4; i++)
        ZT_OK(MPI_Comm_free_keyval(&kv[i]));
}

/* Copy callbacks on MPI_COMM_WORLD get the handle MPI_COMM_WORLD. */
static void test_dup_world(int rank)
{
    struct log log = { 0 };
    struct key k = { &log, 9, 1, 0, 0 };
    int kv;
    MPI_Comm dup;
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv, &k));
    ZT_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, V(rank)));
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    expect_event(&log, 0, 'c', 9, rank, MPI_COMM_WORLD);
    ZT_EQ(comm_value(dup, kv), rank + 1, "value copied from MPI_COMM_WORLD");
    ZT_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    expect_event(&log, 1, 'd', 9, rank, MPI_COMM_WORLD);
    ZT_OK(MPI_Comm_free(&dup));
    ZT_EQ(log.n, 3, "the duplicate's attribute deleted with it");
    ZT_OK(MPI_Comm_free_keyval(&kv));
}

/* A failing copy callback fails MPI_Comm_dup, and what was copied before
 * it is deleted again. */
static void test_copy_error(void)
{
    struct log log = { 0 };
    struct key ok = { &log, 1, 1, 0, 0 }, bad = { &log, 2, 1, MPI_ERR_OTHER, 0 };
    int kv_ok, kv_bad;
    MPI_Comm c, d = MPI_COMM_WORLD; /* anything but the expected result */
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    ZT_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv_ok, &ok));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv_bad, &bad));
    ZT_OK(MPI_Comm_set_attr(c, kv_ok, V(10)));
    ZT_OK(MPI_Comm_set_attr(c, kv_bad, V(20)));
    int rc = MPI_Comm_dup(c, &d);
    ZT_CHECK(rc != MPI_SUCCESS, "MPI_Comm_dup with a failing copy callback succeeded");
#ifdef ZMPI
    ZT_EQ(rc, MPI_ERR_OTHER, "MPI_Comm_dup returns the callback's code");
#endif
    ZT_EQ(log.n, 3, "copy, failed copy, delete of the copied value");
    expect_event(&log, 0, 'c', 1, 10, c);
    expect_event(&log, 1, 'c', 2, 20, c);
    ZT_CHECK(log.what[2] == 'd' && log.key[2] == 1 && log.value[2] == 11,
             "the value copied before the failure is deleted");
    ZT_CHECK(d == MPI_COMM_NULL, "a failed MPI_Comm_dup returns MPI_COMM_NULL");
    bad.fail = 0;
    log.n = 0;
    ZT_OK(MPI_Comm_free(&c));
    ZT_EQ(log.n, 2, "both attributes deleted with the communicator");
    ZT_OK(MPI_Comm_free_keyval(&kv_ok));
    ZT_OK(MPI_Comm_free_keyval(&kv_bad));
}

/* A failing delete callback fails set (over a value), delete_attr and
 * MPI_Comm_free, and the attribute stays. */
static void test_delete_error(void)
{
    struct log log = { 0 };
    struct key bad = { &log, 3, 1, MPI_ERR_OTHER, 0 };
    int kv;
    MPI_Comm c;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    ZT_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv, &bad));
    ZT_OK(MPI_Comm_set_attr(c, kv, V(1)));
    int rc = MPI_Comm_set_attr(c, kv, V(2));
    ZT_CHECK(rc != MPI_SUCCESS, "set over a value whose delete fails succeeded");
    ZT_EQ(comm_value(c, kv), 1, "the old value stays");
    rc = MPI_Comm_delete_attr(c, kv);
    ZT_CHECK(rc != MPI_SUCCESS, "delete_attr with a failing callback succeeded");
#ifdef ZMPI
    ZT_EQ(rc, MPI_ERR_OTHER, "delete_attr returns the callback's code");
#endif
    ZT_EQ(comm_value(c, kv), 1, "the attribute stays");
    rc = MPI_Comm_free(&c);
    ZT_CHECK(rc != MPI_SUCCESS, "MPI_Comm_free with a failing delete callback succeeded");
    ZT_CHECK(c != MPI_COMM_NULL, "the communicator was not freed");
    ZT_EQ(log.n, 3, "three delete calls");
    bad.fail = 0;
    ZT_OK(MPI_Comm_free(&c));
    ZT_EQ(log.n, 4, "the delete callback ran once more");
    expect_event(&log, 3, 'd', 3, 1, log.handle[0]);
    ZT_OK(MPI_Comm_free_keyval(&kv));
}

/* Callbacks calling MPI on the object being freed: the newest attribute's
 * delete callback deletes an older one, which is then not deleted twice. */
static void test_reentrant(void)
{
    struct log log = { 0 };
    struct key old = { &log, 1, 1, 0, 0 }, young = { &log, 2, 1, 0, 0 };
    int kv_old, kv_young;
    MPI_Comm c;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv_old, &old));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv_young, &young));
    young.other = kv_old;
    ZT_OK(MPI_Comm_set_attr(c, kv_old, V(1)));
    ZT_OK(MPI_Comm_set_attr(c, kv_young, V(2)));
    MPI_Comm h = c;
    ZT_OK(MPI_Comm_free(&c));
    ZT_EQ(log.n, 2, "each attribute deleted once");
    expect_event(&log, 0, 'd', 2, 2, h);
    expect_event(&log, 1, 'd', 1, 1, h);
    ZT_OK(MPI_Comm_free_keyval(&kv_old));
    ZT_OK(MPI_Comm_free_keyval(&kv_young));
}

/* A key freed while attributes use it stays alive until the last one is
 * deleted; then the stale handle is an invalid key. */
static void test_free_keyval_in_use(void)
{
    struct log log = { 0 };
    struct key k = { &log, 5, 1, 0, 0 };
    int kv, saved;
    MPI_Comm c, d;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    ZT_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &kv, &k));
    ZT_OK(MPI_Comm_set_attr(c, kv, V(50)));
    saved = kv;
    ZT_OK(MPI_Comm_free_keyval(&kv));
    ZT_EQ(kv, MPI_KEYVAL_INVALID, "free_keyval sets the handle to MPI_KEYVAL_INVALID");
#ifdef ZMPI
    /* The attribute keeps the key: it can still be read, not set anew. */
    ZT_EQ(comm_value(c, saved), 50, "attribute of a freed key in use");
    expect_err(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, V(1)), MPI_ERR_KEYVAL,
               "set with a freed key");
    int again = saved;
    expect_err(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL, "freeing a key twice");
#endif
    ZT_OK(MPI_Comm_dup(c, &d));
    ZT_EQ(log.n, 1, "the copy callback of a freed key runs");
    ZT_OK(MPI_Comm_free(&c));
    ZT_OK(MPI_Comm_free(&d));
    ZT_EQ(log.n, 3, "both attributes deleted through the freed key's callback");
    ZT_CHECK(log.what[1] == 'd' && log.what[2] == 'd', "delete events");
    ZT_EQ(log.value[1] + log.value[2], 50 + 51, "deleted values");
#ifdef ZMPI
    void *v;
    int flag;
    expect_err(MPI_Comm_get_attr(MPI_COMM_WORLD, saved, &v, &flag), MPI_ERR_KEYVAL,
               "get with a key whose last attribute is gone");
#endif
}

/* Datatype attributes: per rank on MPI_INT, copied by Type_dup, deleted by
 * Type_free. */
static void test_types(int rank)
{
    struct log log = { 0 };
    struct key k = { &log, 6, 1, 0, 0 };
    int kv, flag;
    void *v;
    MPI_Datatype t;
    ZT_OK(MPI_Type_create_keyval(type_copy, type_delete, &kv, &k));
    ZT_OK(MPI_Type_set_attr(MPI_INT, kv, V(300 + rank)));
    if (rank == 0)
        ZT_OK(MPI_Type_set_attr(MPI_DOUBLE, kv, V(7)));
    /* Every rank has set its value before any reads. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Type_get_attr(MPI_INT, kv, &v, &flag));
    ZT_CHECK(flag && (intptr_t)v == 300 + rank, "each rank sees its own value on MPI_INT");
    ZT_OK(MPI_Type_get_attr(MPI_DOUBLE, kv, &v, &flag));
    ZT_CHECK(flag == (rank == 0), "only rank 0 has an attribute on MPI_DOUBLE");
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        ZT_OK(MPI_Type_delete_attr(MPI_DOUBLE, kv));
    ZT_OK(MPI_Type_dup(MPI_INT, &t));
    ZT_EQ(log.n, 1 + (rank == 0), "one copy callback");
    expect_event(&log, log.n - 1, 'c', 6, 300 + rank, MPI_INT);
    ZT_OK(MPI_Type_get_attr(t, kv, &v, &flag));
    ZT_CHECK(flag && (intptr_t)v == 301 + rank, "the duplicate has the copied value");
    MPI_Datatype t_handle = t;
    log.n = 0;
    ZT_OK(MPI_Type_free(&t));
    expect_event(&log, 0, 'd', 6, 301 + rank, t_handle);
    ZT_OK(MPI_Type_delete_attr(MPI_INT, kv));
    expect_event(&log, 1, 'd', 6, 300 + rank, MPI_INT);
    ZT_OK(MPI_Type_get_attr(MPI_INT, kv, &v, &flag));
    ZT_EQ(flag, 0, "no attribute after delete");
    ZT_OK(MPI_Type_free_keyval(&kv));
    ZT_EQ(kv, MPI_KEYVAL_INVALID, "Type_free_keyval resets the handle");
    /* The predefined callbacks for datatypes. */
    int kd, kn;
    ZT_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kd, NULL));
    ZT_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kn, NULL));
    ZT_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    ZT_OK(MPI_Type_set_attr(t, kd, V(11)));
    ZT_OK(MPI_Type_set_attr(t, kn, V(12)));
    MPI_Datatype t2;
    ZT_OK(MPI_Type_dup(t, &t2));
    ZT_OK(MPI_Type_get_attr(t2, kd, &v, &flag));
    ZT_CHECK(flag && (intptr_t)v == 11, "MPI_TYPE_DUP_FN copies the value");
    ZT_OK(MPI_Type_get_attr(t2, kn, &v, &flag));
    ZT_EQ(flag, 0, "MPI_TYPE_NULL_COPY_FN copies nothing");
    ZT_OK(MPI_Type_free(&t2));
    /* A failing copy callback fails MPI_Type_dup. */
    struct key bad = { &log, 10, 1, MPI_ERR_OTHER, 0 };
    int kb;
    ZT_OK(MPI_Type_create_keyval(type_copy, type_delete, &kb, &bad));
    ZT_OK(MPI_Type_set_attr(t, kb, V(5)));
    t2 = MPI_DATATYPE_NULL;
    ZT_CHECK(MPI_Type_dup(t, &t2) != MPI_SUCCESS, "Type_dup with a failing copy succeeded");
#ifdef ZMPI
    ZT_CHECK(t2 == MPI_DATATYPE_NULL, "a failed Type_dup gives MPI_DATATYPE_NULL");
#endif
    if (t2 != MPI_DATATYPE_NULL)
        ZT_OK(MPI_Type_free(&t2));
    bad.fail = 0;
    ZT_OK(MPI_Type_free(&t));
    ZT_OK(MPI_Type_free_keyval(&kb));
    ZT_OK(MPI_Type_free_keyval(&kd));
    ZT_OK(MPI_Type_free_keyval(&kn));
}

#ifdef ZT_HAVE_WIN_SET_ERRHANDLER
/* Calls of the window error handler, by world rank (a handler has no
 * extra state, and ranks share globals under zmpi). */
#define MAX_RANKS 4096
static int win_handler_calls[MAX_RANKS];

static void win_handler(MPI_Win *win, int *code, ...)
{
    int rank = 0;
    (void)win;
    (void)code;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    win_handler_calls[rank]++;
}

/* Attribute errors on a window go to the window's handler. */
static void check_win_handler(MPI_Win win, int rank)
{
    MPI_Errhandler eh;
    ZT_OK(MPI_Win_create_errhandler(win_handler, &eh));
    ZT_OK(MPI_Win_set_errhandler(win, eh));
    int before = win_handler_calls[rank];
    expect_err(MPI_Win_set_attr(win, MPI_WIN_BASE, V(1)), MPI_ERR_KEYVAL, "setting MPI_WIN_BASE");
    ZT_EQ(win_handler_calls[rank], before + 1, "window handler calls");
    ZT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Errhandler_free(&eh));
}
#endif

/* Window attributes: user keys and the predefined ones. */
static void test_windows(int rank)
{
    struct log log = { 0 };
    struct key k = { &log, 7, 1, 0, 0 };
    int kv, flag, kn;
    void *v;
    char *base;
    MPI_Win win;
    MPI_Aint size = 64 * (rank + 1);
    ZT_OK(MPI_Win_allocate_shared(size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
#ifdef ZT_HAVE_WIN_SET_ERRHANDLER
    check_win_handler(win, rank);
#endif
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    ZT_CHECK(flag && v == (void *)base, "MPI_WIN_BASE is the base");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    ZT_CHECK(flag && *(MPI_Aint *)v == size, "MPI_WIN_SIZE");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    ZT_CHECK(flag && *(int *)v == 4, "MPI_WIN_DISP_UNIT");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    ZT_CHECK(flag && *(int *)v == MPI_WIN_FLAVOR_SHARED, "MPI_WIN_CREATE_FLAVOR");
    ZT_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    ZT_CHECK(flag && (*(int *)v == MPI_WIN_UNIFIED || *(int *)v == MPI_WIN_SEPARATE),
             "MPI_WIN_MODEL");
    ZT_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &kv, &k));
    ZT_OK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kn, NULL));
    ZT_OK(MPI_Win_set_attr(win, kv, V(40 + rank)));
    ZT_OK(MPI_Win_set_attr(win, kn, V(1)));
    ZT_OK(MPI_Win_set_attr(win, kv, V(41 + rank)));
    expect_event(&log, 0, 'd', 7, 40 + rank, win);
    ZT_OK(MPI_Win_get_attr(win, kv, &v, &flag));
    ZT_CHECK(flag && (intptr_t)v == 41 + rank, "window attribute value");
    ZT_OK(MPI_Win_delete_attr(win, kn));
    ZT_OK(MPI_Win_get_attr(win, kn, &v, &flag));
    ZT_EQ(flag, 0, "deleted window attribute");
#ifdef ZT_HAVE_WIN_SET_ERRHANDLER
    /* Errors on a window go to its handler, which only
     * MPI_Win_set_errhandler can make MPI_ERRORS_RETURN. */
    expect_err(MPI_Win_set_attr(win, MPI_WIN_BASE, V(1)), MPI_ERR_KEYVAL,
               "setting MPI_WIN_BASE");
    expect_err(MPI_Win_delete_attr(win, MPI_WIN_SIZE), MPI_ERR_KEYVAL, "deleting MPI_WIN_SIZE");
    int ck;
    ZT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    expect_err(MPI_Win_set_attr(win, ck, V(1)), MPI_ERR_KEYVAL, "a communicator key on a window");
    expect_err(MPI_Win_get_attr(win, kv, NULL, &flag), MPI_ERR_ARG, "Win_get_attr(value=NULL)");
    ZT_OK(MPI_Comm_free_keyval(&ck));
#endif
    MPI_Win win_handle = win;
    ZT_OK(MPI_Win_free(&win));
    ZT_EQ(log.n, 2, "MPI_Win_free deletes the attribute");
    expect_event(&log, 1, 'd', 7, 41 + rank, win_handle);
    ZT_OK(MPI_Win_free_keyval(&kv));
    ZT_OK(MPI_Win_free_keyval(&kn));
    ZT_EQ(kn, MPI_KEYVAL_INVALID, "Win_free_keyval resets the handle");
}

/* The predefined attribute `keyval` of comm: its int value, or -1 when the
 * communicator has none. */
static int predefined(MPI_Comm comm, int keyval)
{
    int *v = NULL, flag = -1;
    ZT_OK(MPI_Comm_get_attr(comm, keyval, &v, &flag));
    ZT_CHECK(flag == 0 || flag == 1, "flag is %d", flag);
    return flag ? *v : -1;
}

static void test_predefined(int rank, int size)
{
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_CHECK(predefined(MPI_COMM_WORLD, MPI_TAG_UB) >= 32767, "MPI_TAG_UB >= 32767");
    ZT_CHECK(predefined(dup, MPI_TAG_UB) == predefined(MPI_COMM_WORLD, MPI_TAG_UB),
             "MPI_TAG_UB on a duplicate");
    int host = predefined(MPI_COMM_WORLD, MPI_HOST);
    ZT_CHECK(host == MPI_PROC_NULL || (host >= 0 && host < size), "MPI_HOST is %d", host);
    int io = predefined(MPI_COMM_WORLD, MPI_IO);
    ZT_CHECK(io == MPI_ANY_SOURCE || io == MPI_PROC_NULL || (io >= 0 && io < size),
             "MPI_IO is %d", io);
    int wg = predefined(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL);
    ZT_CHECK(wg == -1 || wg == 0 || wg == 1, "MPI_WTIME_IS_GLOBAL is %d", wg);
    ZT_CHECK(predefined(MPI_COMM_WORLD, MPI_LASTUSEDCODE) >= MPI_ERR_LASTCODE,
             "MPI_LASTUSEDCODE >= MPI_ERR_LASTCODE");
#ifdef ZMPI
    /* One process, one clock, one application; every rank can do I/O. */
    ZT_EQ(host, MPI_PROC_NULL, "MPI_HOST");
    ZT_EQ(io, MPI_ANY_SOURCE, "MPI_IO");
    ZT_EQ(wg, 1, "MPI_WTIME_IS_GLOBAL");
    ZT_EQ(predefined(MPI_COMM_WORLD, MPI_APPNUM), 0, "MPI_APPNUM");
    ZT_EQ(predefined(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE), size, "MPI_UNIVERSE_SIZE");
    ZT_EQ(predefined(MPI_COMM_SELF, MPI_TAG_UB), 2147483647, "MPI_TAG_UB on MPI_COMM_SELF");
#endif
    int k = MPI_TAG_UB;
    expect_err(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1)), MPI_ERR_KEYVAL,
               "setting MPI_TAG_UB");
    expect_err(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST), MPI_ERR_KEYVAL,
               "deleting MPI_HOST");
    expect_err(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL, "freeing the key MPI_TAG_UB");
    ZT_EQ(k, MPI_TAG_UB, "a failed free leaves the handle");
    (void)rank;
    ZT_OK(MPI_Comm_free(&dup));
}

/* The deprecated MPI-1 names. */
static void test_deprecated(int rank)
{
    struct log log = { 0 };
    struct key k = { &log, 8, 1, 0, 0 };
    int kv, kd, kn, flag;
    void *v;
    MPI_Comm dup;
    ZT_OK(MPI_Keyval_create(comm_copy, comm_delete, &kv, &k));
    ZT_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kd, NULL));
    ZT_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kn, NULL));
    ZT_OK(MPI_Attr_put(MPI_COMM_WORLD, kv, V(rank + 60)));
    ZT_OK(MPI_Attr_put(MPI_COMM_WORLD, kd, V(rank + 70)));
    ZT_OK(MPI_Attr_put(MPI_COMM_WORLD, kn, V(rank + 80)));
    ZT_OK(MPI_Attr_get(MPI_COMM_WORLD, kv, &v, &flag));
    ZT_CHECK(flag && (intptr_t)v == rank + 60, "MPI_Attr_get");
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_EQ(comm_value(dup, kv), rank + 61, "MPI_Keyval_create's copy callback");
    ZT_EQ(comm_value(dup, kd), rank + 70, "MPI_DUP_FN");
    ZT_EQ(comm_value(dup, kn), -1, "MPI_NULL_COPY_FN");
    int *tag_ub;
    ZT_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    ZT_CHECK(flag && *tag_ub >= 32767, "MPI_Attr_get of MPI_TAG_UB");
    ZT_OK(MPI_Comm_free(&dup));
    ZT_OK(MPI_Attr_delete(MPI_COMM_WORLD, kv));
    ZT_OK(MPI_Attr_delete(MPI_COMM_WORLD, kd));
    ZT_OK(MPI_Attr_delete(MPI_COMM_WORLD, kn));
    ZT_EQ(log.n, 3, "copy, delete on the duplicate, delete");
    expect_event(&log, 2, 'd', 8, rank + 60, MPI_COMM_WORLD);
    ZT_OK(MPI_Keyval_free(&kv));
    ZT_OK(MPI_Keyval_free(&kd));
    ZT_OK(MPI_Keyval_free(&kn));
    ZT_EQ(kv, MPI_KEYVAL_INVALID, "MPI_Keyval_free resets the handle");
}

/* Bad arguments under MPI_ERRORS_RETURN. */
static void test_errors(void)
{
    int kc, kt, flag, k;
    void *v;
    ZT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    ZT_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
    expect_err(MPI_Comm_set_attr(MPI_COMM_WORLD, 123456789, V(1)), MPI_ERR_KEYVAL,
               "a key never made");
    expect_err(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL,
               "MPI_KEYVAL_INVALID");
    expect_err(MPI_Comm_delete_attr(MPI_COMM_WORLD, kt), MPI_ERR_KEYVAL,
               "a datatype key on a communicator");
    expect_err(MPI_Type_set_attr(MPI_INT, kc, V(1)), MPI_ERR_KEYVAL,
               "a communicator key on a datatype");
    expect_err(MPI_Comm_get_attr(MPI_COMM_WORLD, kc, NULL, &flag), MPI_ERR_ARG,
               "Comm_get_attr(attribute_val=NULL)");
    expect_err(MPI_Comm_get_attr(MPI_COMM_WORLD, kc, &v, NULL), MPI_ERR_ARG,
               "Comm_get_attr(flag=NULL)");
    expect_err(MPI_Type_get_attr(MPI_INT, kt, &v, NULL), MPI_ERR_ARG,
               "Type_get_attr(flag=NULL)");
    expect_err(MPI_Comm_create_keyval(NULL, MPI_COMM_NULL_DELETE_FN, &k, NULL), MPI_ERR_ARG,
               "Comm_create_keyval(copy_fn=NULL)");
    expect_err(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, NULL, &k, NULL), MPI_ERR_ARG,
               "Type_create_keyval(delete_fn=NULL)");
    expect_err(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, NULL, NULL),
               MPI_ERR_ARG, "Win_create_keyval(keyval=NULL)");
    expect_err(MPI_Comm_free_keyval(NULL), MPI_ERR_ARG, "Comm_free_keyval(NULL)");
    k = kc;
    expect_err(MPI_Type_free_keyval(&k), MPI_ERR_KEYVAL, "Type_free_keyval of a comm key");
    expect_err(MPI_Comm_set_attr(MPI_COMM_NULL, kc, V(1)), MPI_ERR_COMM,
               "Comm_set_attr(MPI_COMM_NULL)");
    expect_err(MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &v, &flag), MPI_ERR_COMM,
               "Comm_get_attr(MPI_COMM_NULL)");
    expect_err(MPI_Type_get_attr(MPI_DATATYPE_NULL, kt, &v, &flag), MPI_ERR_TYPE,
               "Type_get_attr(MPI_DATATYPE_NULL)");
    expect_err(MPI_Type_delete_attr(MPI_DATATYPE_NULL, kt), MPI_ERR_TYPE,
               "Type_delete_attr(MPI_DATATYPE_NULL)");
    expect_err(MPI_Win_get_attr(MPI_WIN_NULL, MPI_WIN_BASE, &v, &flag), MPI_ERR_WIN,
               "Win_get_attr(MPI_WIN_NULL)");
    expect_err(MPI_Win_set_attr(MPI_WIN_NULL, kc, V(1)), MPI_ERR_WIN,
               "Win_set_attr(MPI_WIN_NULL)");
    ZT_OK(MPI_Comm_free_keyval(&kc));
    ZT_OK(MPI_Type_free_keyval(&kt));
}

/* Many keys and many objects (the tables grow), checked value by value. */
static void test_many(int rank)
{
    enum { NKEYS = 40, NCOMMS = 8, NTYPES = 150 };
    int kv[NKEYS];
    MPI_Comm c[NCOMMS];
    MPI_Datatype t[NTYPES];
    for (int i = 0; i < NKEYS; i++)
        ZT_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv[i], NULL));
    for (int j = 0; j < NCOMMS; j++) {
        ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[j]));
        for (int i = 0; i < NKEYS; i++)
            ZT_OK(MPI_Comm_set_attr(c[j], kv[i], V(rank * 100000 + j * 100 + i)));
    }
    for (int j = 0; j < NCOMMS; j++)
        for (int i = NKEYS - 1; i >= 0; i--)
            ZT_EQ(comm_value(c[j], kv[i]), rank * 100000 + j * 100 + i, "value");
    int kt;
    ZT_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
    for (int j = 0; j < NTYPES; j++) {
        ZT_OK(MPI_Type_contiguous(j + 1, MPI_BYTE, &t[j]));
        ZT_OK(MPI_Type_set_attr(t[j], kt, V(j)));
    }
    for (int j = 0; j < NTYPES; j++) {
        void *v;
        int flag;
        ZT_OK(MPI_Type_get_attr(t[j], kt, &v, &flag));
        ZT_CHECK(flag && (intptr_t)v == j, "type %d's value", j);
        ZT_OK(MPI_Type_free(&t[j]));
    }
    ZT_OK(MPI_Type_free_keyval(&kt));
    for (int i = 0; i < NKEYS; i += 2)
        ZT_OK(MPI_Comm_free_keyval(&kv[i]));
    for (int j = 0; j < NCOMMS; j++)
        ZT_OK(MPI_Comm_free(&c[j]));
    for (int i = 1; i < NKEYS; i += 2)
        ZT_OK(MPI_Comm_free_keyval(&kv[i]));
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    test_set_get_delete(rank);
    test_dup_free(rank);
    test_dup_world(rank);
    test_copy_error();
    test_delete_error();
    test_reentrant();
    test_free_keyval_in_use();
    test_types(rank);
    test_windows(rank);
    test_predefined(rank, size);
    test_deprecated(rank);
    test_errors();
    test_many(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("attr_caching: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
