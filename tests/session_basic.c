/*
 * session_basic.c: the sessions model alone (MPI 4.1 section 11.3).  No
 * rank calls MPI_Init: every rank opens two sessions, checks their process
 * sets, info and groups, makes communicators from the groups and runs
 * point-to-point messages and collectives on them, checks session error
 * handlers and bad arguments (through MPI_ERRORS_RETURN), then finalizes
 * both sessions.  Results are checked against values computed by hand
 * from the rank and the job size.
 */
#include "zt.h"

#define MAX_RANKS 4096

/* What the session error handler saw, one slot per world rank: the
 * handler is called with the session only, so it finds its rank through
 * the session's world group. */
static int eh_calls[MAX_RANKS], eh_code[MAX_RANKS];
static MPI_Session eh_seen[MAX_RANKS];

static void session_recorder(MPI_Session *s, int *code, ...)
{
    MPI_Group g;
    int r;
    MPI_Group_from_session_pset(*s, "mpi://WORLD", &g);
    MPI_Group_rank(g, &r);
    MPI_Group_free(&g);
    eh_calls[r]++;
    eh_code[r] = *code;
    eh_seen[r] = *s;
}

static void comm_recorder(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

/* The value of `key` in info (which the call frees); "" if absent. */
static void info_value(MPI_Info info, const char *key, char *out, int len)
{
    int flag = 0;
    ZT_OK(MPI_Info_get(info, key, len - 1, out, &flag));
    if (!flag)
        out[0] = '\0';
    ZT_OK(MPI_Info_free(&info));
}

static void check_psets(MPI_Session s, int size)
{
    int n = -1, len = 0;
    char name[MPI_MAX_PSET_NAME_LEN], val[64];
    MPI_Info info;
    ZT_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    ZT_EQ(n, 2, "number of process sets");
    ZT_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL));
    ZT_EQ(len, 12, "length of \"mpi://WORLD\" with its terminator");
    len = (int)sizeof(name);
    ZT_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    ZT_CHECK(strcmp(name, "mpi://WORLD") == 0, "pset 0 is \"%s\"", name);
    len = (int)sizeof(name);
    ZT_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name));
    ZT_CHECK(strcmp(name, "mpi://SELF") == 0 && len == 11, "pset 1 is \"%s\" (%d)", name, len);
    /* A short buffer gets the name cut and terminated. */
    len = 5;
    ZT_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    ZT_CHECK(strcmp(name, "mpi:") == 0 && len == 12, "truncated name \"%s\" (%d)", name, len);
    ZT_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
    info_value(info, "mpi_size", val, sizeof(val));
    ZT_EQ(atoi(val), size, "mpi_size of mpi://WORLD");
    ZT_OK(MPI_Session_get_pset_info(s, "mpi://self", &info));
    info_value(info, "mpi_size", val, sizeof(val));
    ZT_CHECK(strcmp(val, "1") == 0, "mpi_size of mpi://SELF is \"%s\"", val);
}

/* A ring exchange, a reduction, a broadcast and a gather on comm, whose
 * ranks are world ranks `world[i]`. */
static void exercise(MPI_Comm comm, const int *world, int n, int tag)
{
    int r, size, got = -1, sum = 0, exp = 0;
    ZT_OK(MPI_Comm_rank(comm, &r));
    ZT_OK(MPI_Comm_size(comm, &size));
    ZT_EQ(size, n, "communicator size");
    int me = world[r], right = (r + 1) % n, left = (r + n - 1) % n;
    ZT_OK(MPI_Sendrecv(&me, 1, MPI_INT, right, tag, &got, 1, MPI_INT, left, tag, comm,
                       MPI_STATUS_IGNORE));
    ZT_EQ(got, world[left], "value from the left neighbour");
    ZT_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    for (int i = 0; i < n; i++)
        exp += world[i];
    ZT_EQ(sum, exp, "sum of the members' world ranks");
    int b = r == n - 1 ? 1000 + tag : -1;
    ZT_OK(MPI_Bcast(&b, 1, MPI_INT, n - 1, comm));
    ZT_EQ(b, 1000 + tag, "broadcast value");
    int *all = zt_malloc(sizeof(int) * (size_t)n);
    ZT_OK(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, comm));
    for (int i = 0; i < n; i++)
        ZT_EQ(all[i], world[i], "gathered world rank");
    free(all);
    ZT_OK(MPI_Barrier(comm));
}

/* Communicators from the world group of s: the whole world (twice, with
 * the same tag, which pairs the k-th calls), then the even ranks only. */
static void world_comms(MPI_Session s, int rank, int size)
{
    MPI_Group g, evens;
    MPI_Comm c1, c2, ce;
    int result, *world = zt_malloc(sizeof(int) * (size_t)size);
    ZT_OK(MPI_Group_from_session_pset(s, "MPI://World", &g));
    for (int i = 0; i < size; i++)
        world[i] = i;
    ZT_OK(MPI_Comm_create_from_group(g, "zmpi.session_basic.world", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &c1));
    ZT_OK(MPI_Comm_create_from_group(g, "zmpi.session_basic.world", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &c2));
    exercise(c1, world, size, 1);
    exercise(c2, world, size, 2);
    ZT_OK(MPI_Comm_compare(c1, c2, &result));
    ZT_EQ(result, MPI_CONGRUENT, "two communicators from one group");
    /* The even world ranks, in order: world[i] = 2 i. */
    int ne = (size + 1) / 2;
    for (int i = 0; i < ne; i++)
        world[i] = 2 * i;
    ZT_OK(MPI_Group_incl(g, ne, world, &evens));
    if (rank % 2 == 0) {
        ZT_OK(MPI_Comm_create_from_group(evens, "zmpi.session_basic.evens", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &ce));
        exercise(ce, world, ne, 3);
        ZT_OK(MPI_Comm_free(&ce));
    } else {
        /* A rank outside the group may not call it: MPI_ERR_GROUP. */
        ZT_EQ(MPI_Comm_create_from_group(evens, "zmpi.session_basic.evens", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &ce), MPI_ERR_GROUP,
              "Comm_create_from_group by a non-member");
    }
    ZT_OK(MPI_Group_free(&evens));
    ZT_OK(MPI_Group_free(&g));
    ZT_OK(MPI_Comm_free(&c1));
    ZT_OK(MPI_Comm_free(&c2));
    free(world);
}

static void self_comm(MPI_Session s, int rank)
{
    MPI_Group g;
    MPI_Comm c;
    int n, w0 = 0, wr = -1, got = -1;
    ZT_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
    ZT_OK(MPI_Group_size(g, &n));
    ZT_EQ(n, 1, "size of the mpi://SELF group");
    ZT_OK(MPI_Comm_create_from_group(g, "zmpi.session_basic.self", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &c));
    ZT_OK(MPI_Comm_size(c, &n));
    ZT_EQ(n, 1, "size of the communicator from mpi://SELF");
    ZT_OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, c, MPI_STATUS_IGNORE));
    ZT_EQ(got, rank, "message to oneself");
    /* The one member of SELF is this rank of WORLD. */
    MPI_Group wg;
    ZT_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    ZT_OK(MPI_Group_translate_ranks(g, 1, &w0, wg, &wr));
    ZT_EQ(wr, rank, "world rank of the SELF member");
    ZT_OK(MPI_Group_free(&wg));
    ZT_OK(MPI_Group_free(&g));
    ZT_OK(MPI_Comm_free(&c));
}

/* Session error handlers: set, get, called by MPI_Session_call_errhandler
 * and by an error of a session call. */
static void handlers(MPI_Session s1, MPI_Session s2, MPI_Errhandler seh, int rank)
{
    MPI_Errhandler got, ceh;
    MPI_Group g;
    ZT_OK(MPI_Session_get_errhandler(s2, &got));
    ZT_CHECK(got == seh, "MPI_Session_get_errhandler returned another handler");
    ZT_OK(MPI_Errhandler_free(&got));
    ZT_OK(MPI_Session_call_errhandler(s2, MPI_ERR_OTHER));
    ZT_CHECK(eh_calls[rank] == 1 && eh_code[rank] == MPI_ERR_OTHER && eh_seen[rank] == s2,
             "call_errhandler: %d calls, code %d", eh_calls[rank], eh_code[rank]);
    int rc = MPI_Group_from_session_pset(s2, "mpi://NOWHERE", &g);
    ZT_EQ(rc, MPI_ERR_ARG, "unknown process set");
    ZT_CHECK(eh_calls[rank] == 2 && eh_code[rank] == MPI_ERR_ARG,
             "error of a session call: %d calls, code %d", eh_calls[rank], eh_code[rank]);
    /* The handler of s1 is MPI_ERRORS_RETURN: the recorder stays quiet. */
    ZT_EQ(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, 2, &rc, NULL), MPI_ERR_ARG, "pset n=2");
    ZT_EQ(eh_calls[rank], 2, "handler calls after an error on another session");
    /* A communicator's handler does not fit a session (the other way round
     * is in session_wrong.c: an unusable handler leaves only the fatal
     * initial one). */
    ZT_OK(MPI_Comm_create_errhandler(comm_recorder, &ceh));
    ZT_EQ(MPI_Session_set_errhandler(s1, ceh), MPI_ERR_ARG, "comm handler on a session");
    ZT_OK(MPI_Group_from_session_pset(s1, "mpi://SELF", &g));
    MPI_Comm c = MPI_COMM_NULL;
    ZT_EQ(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
          MPI_ERR_ARG, "NULL stringtag");
    ZT_OK(MPI_Group_free(&g));
    ZT_OK(MPI_Errhandler_free(&ceh));
    ZT_OK(MPI_Session_set_errhandler(s1, seh));
    ZT_OK(MPI_Session_call_errhandler(s1, MPI_ERR_SESSION));
    ZT_CHECK(eh_calls[rank] == 3 && eh_seen[rank] == s1 && eh_code[rank] == MPI_ERR_SESSION,
             "handler set on s1: %d calls", eh_calls[rank]);
    ZT_OK(MPI_Session_set_errhandler(s1, MPI_ERRORS_RETURN));
}

/* Arguments MPI_Session_init and the queries refuse. */
static void bad_arguments(MPI_Session s)
{
    MPI_Info info, out;
    MPI_Session bad = MPI_SESSION_NULL;
    int n;
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_SOMETIMES"));
    ZT_EQ(MPI_Session_init(info, MPI_ERRORS_RETURN, &bad), MPI_ERR_INFO_VALUE,
          "thread_level naming no level");
    ZT_CHECK(bad == MPI_SESSION_NULL, "a failed MPI_Session_init made a session");
    ZT_OK(MPI_Info_free(&info));
    ZT_EQ(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG,
          "MPI_Session_init(session=NULL)");
    ZT_EQ(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "npset_names=NULL");
    ZT_EQ(MPI_Session_get_pset_info(s, NULL, &out), MPI_ERR_ARG, "pset_name=NULL");
    ZT_EQ(MPI_Session_get_pset_info(s, "mpi://WORLD/", &out), MPI_ERR_ARG, "unknown pset");
    n = -3;
    ZT_EQ(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &n, NULL), MPI_ERR_ARG, "pset_len<0");
    ZT_EQ(MPI_Session_get_info(s, NULL), MPI_ERR_ARG, "info_used=NULL");
    ZT_EQ(MPI_Session_call_errhandler(s, -7), MPI_ERR_ARG, "errorcode=-7");
}

int main(void)
{
    int flag = 1, rank, size;
    MPI_Info info, used;
    MPI_Session s1, s2;
    MPI_Errhandler seh;
    MPI_Group g;
    char val[64];

    /* Calls the standard allows before MPI_Init, with no session yet. */
    ZT_OK(MPI_Initialized(&flag));
    ZT_EQ(flag, 0, "MPI_Initialized before any initialization");
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE"));
    ZT_OK(MPI_Session_create_errhandler(session_recorder, &seh));
    ZT_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s1));
    ZT_OK(MPI_Info_free(&info));
    ZT_OK(MPI_Session_init(MPI_INFO_NULL, seh, &s2));
    ZT_CHECK(s1 != s2 && s1 != MPI_SESSION_NULL, "two sessions share a handle");
    ZT_OK(MPI_Session_get_info(s1, &used));
    info_value(used, "thread_level", val, sizeof(val));
    ZT_CHECK(strcmp(val, "MPI_THREAD_MULTIPLE") == 0, "s1 thread_level \"%s\"", val);
    ZT_OK(MPI_Session_get_info(s2, &used));
    info_value(used, "thread_level", val, sizeof(val));
    ZT_CHECK(strcmp(val, "MPI_THREAD_SINGLE") == 0, "s2 thread_level \"%s\"", val);
    ZT_CHECK(MPI_Session_f2c(MPI_Session_c2f(s1)) == s1, "MPI_Session_c2f/f2c round trip");

    ZT_OK(MPI_Group_from_session_pset(s1, "mpi://WORLD", &g));
    ZT_OK(MPI_Group_rank(g, &rank));
    ZT_OK(MPI_Group_size(g, &size));
    ZT_OK(MPI_Group_free(&g));
    ZT_CHECK(size <= MAX_RANKS, "at most %d ranks", MAX_RANKS);

    check_psets(s1, size);
    check_psets(s2, size);
    world_comms(s1, rank, size);
    world_comms(s2, rank, size);
    self_comm(s2, rank);
    handlers(s1, s2, seh, rank);
    bad_arguments(s1);

    ZT_OK(MPI_Errhandler_free(&seh));
    ZT_OK(MPI_Session_finalize(&s1));
    ZT_CHECK(s1 == MPI_SESSION_NULL, "MPI_Session_finalize did not reset the handle");
    /* s2 still lives, so MPI stays usable. */
    ZT_OK(MPI_Session_get_num_psets(s2, MPI_INFO_NULL, &flag));
    ZT_OK(MPI_Session_finalize(&s2));
    ZT_OK(MPI_Initialized(&flag));
    ZT_EQ(flag, 0, "MPI_Initialized after the sessions model only");
    ZT_OK(MPI_Finalized(&flag));
    ZT_EQ(flag, 0, "MPI_Finalized after the sessions model only");
    if (rank == 0)
        printf("session_basic: %d ranks OK\n", size);
    return 0;
}
