/*
 * env_errors.c: added error classes, codes and strings (MPI_Error_class
 * maps a code to its class, MPI_Error_string gives the string, the removals
 * of MPI 4.1 check their order), codes that travel between ranks, errors
 * without an object going to MPI_COMM_SELF's handler, window error
 * handlers called with the right window and code, and the MPI-1 names of
 * the communicator error handler calls.
 */
#include "zt.h"

#define MAX_RANKS 4096

/* Under zmpi all ranks share globals: each handler call is recorded in the
 * calling rank's own slot. */
static int comm_calls[MAX_RANKS], comm_code[MAX_RANKS];
static MPI_Comm comm_seen[MAX_RANKS];
static int win_calls[MAX_RANKS], win_code[MAX_RANKS];
static MPI_Win win_seen[MAX_RANKS];

static int world_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static void comm_recorder(MPI_Comm *comm, int *code, ...)
{
    int r = world_rank();
    comm_calls[r]++;
    comm_code[r] = *code;
    comm_seen[r] = *comm;
}

static void win_recorder(MPI_Win *win, int *code, ...)
{
    int r = world_rank();
    win_calls[r]++;
    win_code[r] = *code;
    win_seen[r] = *win;
}

static void expect_class(int rc, int cls, const char *what)
{
    int got = -1;
    ZT_CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    ZT_OK(MPI_Error_class(rc, &got));
    ZT_CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

static void expect_string(int code, const char *want)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    ZT_OK(MPI_Error_string(code, s, &len));
    ZT_CHECK(strcmp(s, want) == 0 && len == (int)strlen(want),
             "error string of %d is \"%s\" (len %d), expected \"%s\"", code, s, len, want);
}

#ifdef MPI_LASTUSEDCODE
static int last_used_code(void)
{
    int *v = NULL, flag = 0;
    ZT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    ZT_CHECK(flag && v, "MPI_LASTUSEDCODE is not set");
    return *v;
}
#endif

/* The values one rank added. */
typedef struct added {
    int cls;       /* an added class */
    int code;      /* a code of that class, with a string */
    int argcode;   /* a code of MPI_ERR_ARG */
} added_t;

/* Each rank adds a class, a code of it and a code of MPI_ERR_ARG. */
static added_t check_adding(int rank)
{
    char want[64];
    added_t a;
    int got = -1;
    ZT_OK(MPI_Add_error_class(&a.cls));
    ZT_CHECK(a.cls > MPI_ERR_LASTCODE, "added class %d <= MPI_ERR_LASTCODE", a.cls);
    ZT_OK(MPI_Add_error_code(a.cls, &a.code));
    ZT_OK(MPI_Add_error_code(MPI_ERR_ARG, &a.argcode));
    ZT_CHECK(a.code > MPI_ERR_LASTCODE && a.code != a.cls && a.argcode != a.code,
             "codes %d %d %d", a.cls, a.code, a.argcode);
    ZT_OK(MPI_Error_class(a.code, &got));
    ZT_EQ(got, a.cls, "class of the added code");
    ZT_OK(MPI_Error_class(a.cls, &got));
    ZT_EQ(got, a.cls, "an added class is its own class");
    ZT_OK(MPI_Error_class(a.argcode, &got));
    ZT_EQ(got, MPI_ERR_ARG, "class of a code added to MPI_ERR_ARG");
#ifdef MPI_LASTUSEDCODE
    ZT_CHECK(last_used_code() >= a.argcode, "MPI_LASTUSEDCODE below a code in use");
#endif
    expect_string(a.code, "");
    snprintf(want, sizeof(want), "zt code of rank %d", rank);
    ZT_OK(MPI_Add_error_string(a.code, "first"));
    ZT_OK(MPI_Add_error_string(a.code, want));
    expect_string(a.code, want);
    ZT_OK(MPI_Add_error_string(a.cls, "zt class"));
    expect_string(a.cls, "zt class");
    expect_class(MPI_Add_error_string(MPI_ERR_ARG, "x"), MPI_ERR_ARG, "a string for MPI_ERR_ARG");
    expect_class(MPI_Add_error_code(MPI_SUCCESS, &got), MPI_ERR_ARG, "a code of MPI_SUCCESS");
    expect_class(MPI_Add_error_code(a.code, &got), MPI_ERR_ARG, "a code of a code");
    return a;
}

/* Codes are ints that travel: every rank can read every rank's, and only
 * the rank that added a code may change it. */
static void check_travel(int rank, int size, added_t a)
{
    char want[64];
    int got = -1, mine[2] = { a.code, a.cls }, *all = zt_malloc(sizeof(int) * 2 * (size_t)size);
    ZT_OK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        ZT_OK(MPI_Error_class(all[2 * r], &got));
        ZT_EQ(got, all[2 * r + 1], "class of another rank's code");
        snprintf(want, sizeof(want), "zt code of rank %d", r);
        expect_string(all[2 * r], want);
        for (int q = 0; q < r; q++)
            ZT_CHECK(all[2 * q] != all[2 * r], "ranks %d and %d got code %d", q, r, all[2 * r]);
        if (r != rank)
            expect_class(MPI_Remove_error_string(all[2 * r]), MPI_ERR_ARG,
                         "removing another rank's string");
#ifdef MPI_LASTUSEDCODE
        /* The table of added codes is the job's: the attribute covers all. */
        ZT_CHECK(last_used_code() >= all[2 * r], "MPI_LASTUSEDCODE below rank %d's code", r);
#endif
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(all);
}

/* A handler gets an added code itself; removals go string, codes, class. */
static void check_removal(int rank, added_t a)
{
    char s[MPI_MAX_ERROR_STRING];
    int got = -1;
    ZT_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, a.code));
    ZT_CHECK(comm_calls[rank] == 1 && comm_code[rank] == a.code &&
             comm_seen[rank] == MPI_COMM_WORLD, "handler calls %d, code %d", comm_calls[rank],
             comm_code[rank]);
    expect_class(MPI_Remove_error_class(a.cls), MPI_ERR_ARG, "removing a class with codes");
    expect_class(MPI_Remove_error_code(a.code), MPI_ERR_ARG, "removing a code with a string");
    expect_class(MPI_Remove_error_code(a.cls), MPI_ERR_ARG, "removing a class as a code");
    expect_class(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG, "removing MPI_ERR_ARG");
    ZT_OK(MPI_Remove_error_string(a.code));
    expect_string(a.code, "");
    expect_class(MPI_Remove_error_string(a.code), MPI_ERR_ARG, "removing a string twice");
    ZT_OK(MPI_Remove_error_code(a.code));
    ZT_OK(MPI_Remove_error_code(a.argcode));
    /* A class, too, must lose its string before it goes. */
    expect_class(MPI_Remove_error_class(a.cls), MPI_ERR_ARG, "removing a class with a string");
    ZT_OK(MPI_Remove_error_string(a.cls));
    ZT_OK(MPI_Remove_error_class(a.cls));
    expect_class(MPI_Error_class(a.code, &got), MPI_ERR_ARG, "class of a removed code");
#ifdef MPI_LASTUSEDCODE
    /* With every rank's codes removed, none is in use above the predefined. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_EQ(last_used_code(), MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE after the removals");
#endif
    expect_class(MPI_Error_string(-5, s, &got), MPI_ERR_ARG, "string of code -5");
    comm_calls[rank] = 0;
}

/* Errors with no object go to MPI_COMM_SELF's handler (MPI 4.x). */
static void check_self_handler(int rank)
{
    MPI_Errhandler eh;
    MPI_Info info;
    void *p;
    ZT_OK(MPI_Comm_create_errhandler(comm_recorder, &eh));
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    ZT_OK(MPI_Info_create(&info));
    int rc = MPI_Info_delete(info, "missing");
    ZT_CHECK(comm_calls[rank] == 1 && comm_seen[rank] == MPI_COMM_SELF &&
             comm_code[rank] == rc, "MPI_Info_delete's error went to %d calls on %s",
             comm_calls[rank], comm_seen[rank] == MPI_COMM_SELF ? "SELF" : "another comm");
    expect_class(rc, MPI_ERR_INFO_NOKEY, "MPI_Info_delete of a missing key");
    expect_class(MPI_Alloc_mem(-3, MPI_INFO_NULL, &p), MPI_ERR_ARG, "MPI_Alloc_mem(-3)");
    ZT_EQ(comm_calls[rank], 2, "handler calls after MPI_Alloc_mem's error");
    ZT_OK(MPI_Info_free(&info));
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Errhandler_free(&eh));
    comm_calls[rank] = 0;
}

/* Window handlers: called with the window and the code; the handler kinds
 * do not mix. */
static void check_win_handlers(int rank, int size)
{
    MPI_Errhandler weh, ceh, got;
    MPI_Win win;
    MPI_Aint sz;
    int *base, du, cls;
    ZT_OK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &base, &win));
    ZT_OK(MPI_Win_get_errhandler(win, &got));
    ZT_CHECK(got == MPI_ERRORS_ARE_FATAL, "a new window's handler is not MPI_ERRORS_ARE_FATAL");
    ZT_OK(MPI_Errhandler_free(&got));
    ZT_OK(MPI_Win_create_errhandler(win_recorder, &weh));
    ZT_OK(MPI_Comm_create_errhandler(comm_recorder, &ceh));
    ZT_OK(MPI_Win_set_errhandler(win, weh));
    ZT_OK(MPI_Win_get_errhandler(win, &got));
    ZT_CHECK(got == weh, "MPI_Win_get_errhandler returned another handler");
    ZT_OK(MPI_Errhandler_free(&got));
    ZT_OK(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC));
    ZT_CHECK(win_calls[rank] == 1 && win_seen[rank] == win && win_code[rank] == MPI_ERR_RMA_SYNC,
             "MPI_Win_call_errhandler: %d calls, code %d", win_calls[rank], win_code[rank]);
    /* An error of a window call goes to the window's handler. */
    int rc = MPI_Win_shared_query(win, size + 5, &sz, &du, &base);
    ZT_CHECK(win_calls[rank] == 2 && win_seen[rank] == win && win_code[rank] == rc,
             "MPI_Win_shared_query(rank=%d): window handler calls %d", size + 5, win_calls[rank]);
    ZT_OK(MPI_Error_class(rc, &cls));
    ZT_EQ(cls, MPI_ERR_RANK, "class of MPI_Win_shared_query's error");
    /* A communicator's handler does not fit a window, nor the other way. */
    ZT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    expect_class(MPI_Win_set_errhandler(win, ceh), MPI_ERR_ARG, "a comm handler on a window");
    expect_class(MPI_Comm_set_errhandler(MPI_COMM_SELF, weh), MPI_ERR_ARG,
                 "a window handler on a communicator");
    expect_class(MPI_Win_shared_query(win, -7, &sz, &du, &base), MPI_ERR_RANK,
                 "MPI_Win_shared_query(rank=-7) under MPI_ERRORS_RETURN");
    ZT_EQ(win_calls[rank], 2, "window handler calls after MPI_ERRORS_RETURN was set");
    ZT_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    expect_class(MPI_Win_call_errhandler(win, -1), MPI_ERR_ARG, "calling with code -1");
    expect_class(MPI_Win_set_errhandler(MPI_WIN_NULL, weh), MPI_ERR_WIN, "MPI_WIN_NULL");
    ZT_OK(MPI_Errhandler_free(&weh));
    ZT_OK(MPI_Errhandler_free(&ceh));
    ZT_OK(MPI_Win_free(&win));
    win_calls[rank] = 0;
}

/* MPI_Errhandler_create/set/get are the communicator calls' old names. */
static void check_mpi1_names(int rank)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_OK(MPI_Errhandler_create(comm_recorder, &eh));
    ZT_OK(MPI_Errhandler_set(dup, eh));
    ZT_OK(MPI_Errhandler_get(dup, &got));
    ZT_CHECK(got == eh, "MPI_Errhandler_get returned another handler");
    ZT_OK(MPI_Errhandler_free(&got));
    ZT_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_COUNT));
    ZT_CHECK(comm_calls[rank] == 1 && comm_seen[rank] == dup && comm_code[rank] == MPI_ERR_COUNT,
             "handler set by MPI_Errhandler_set: %d calls", comm_calls[rank]);
    ZT_OK(MPI_Errhandler_free(&eh));
    /* The communicator still holds the handler after the free. */
    ZT_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG));
    ZT_EQ(comm_calls[rank], 2, "calls after MPI_Errhandler_free");
    ZT_OK(MPI_Comm_free(&dup));
    comm_calls[rank] = 0;
}

int main(int argc, char **argv)
{
    int rank, size, cls = -1;
    MPI_Errhandler eh;
    /* MPI_Error_class is always available (MPI 4.1 section 11.2.1). */
    ZT_OK(MPI_Error_class(MPI_ERR_TAG, &cls));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size <= MAX_RANKS, "at most %d ranks", MAX_RANKS);
    ZT_EQ(cls, MPI_ERR_TAG, "MPI_Error_class before MPI_Init");
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Comm_create_errhandler(comm_recorder, &eh));
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    added_t a = check_adding(rank);
    check_travel(rank, size, a);
    check_removal(rank, a);
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Errhandler_free(&eh));
    check_self_handler(rank);
    check_win_handlers(rank, size);
    check_mpi1_names(rank);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
