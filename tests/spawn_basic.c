/*
 * spawn_basic.c: MPI_Comm_spawn and MPI_Comm_spawn_multiple of the
 * running program (linked for privatization, so every child has its own
 * globals), checked against what the parents asked for.
 *
 *   spawn_basic spawn N1,N2,...   for each Ni: spawn Ni children (root
 *                                 rotating over the parents); children
 *                                 check their world, parent, argv,
 *                                 MPI_APPNUM and globals; both sides swap
 *                                 data over the intercommunicator (every
 *                                 pair, an eager and a rendezvous size)
 *                                 and over the merged intracommunicator;
 *                                 the last round also connects children
 *                                 and parents through a port.
 *   spawn_basic multi [OTHER]     Comm_spawn_multiple: two argv sets of
 *                                 this program (2 and 3 ranks), and with
 *                                 OTHER, 2 ranks of that program too.
 *   spawn_basic selfspawn N1,...  the same, each parent alone (MPI_COMM_SELF),
 *                                 all at once.
 *   spawn_basic nest              children spawn a grandchild.
 *   spawn_basic soft              "soft" (run with ZMPI_SPAWN_MAX=4).
 *   spawn_basic errors            refused commands under MPI_ERRORS_RETURN.
 *   spawn_basic hang              children wait forever (a deadlock).
 *   spawn_basic abort             a child calls MPI_Abort.
 *   spawn_basic latename          rank 0 publishes a name; the last rank spawns a
 *                                 child and finalizes; the child looks the name up
 *                                 many times, also after every parent finalized
 *                                 (across processes: at process 0, which must
 *                                 still serve it).
 * Children are started with argv "child" MODE ... (see child_main).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                      \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "spawn_basic: %s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #c);                                                    \
            MPI_Abort(MPI_COMM_WORLD, 2);                                             \
        }                                                                             \
    } while (0)

/* Private per rank (privatization): every child starts with 0. */
static int g_counter;

static const int sizes[2] = { 100, 40000 }; /* eager and rendezvous */

static unsigned char pattern(int from, int to, int round, int k, int i)
{
    return (unsigned char)(from * 131 + to * 17 + round * 29 + k * 7 + i * 3 + (i >> 8));
}

/* Over intercommunicator ic: every local rank sends to every remote rank
 * one message per size, then receives and checks the remote ones.  `up`
 * says whether the local side is the parents (for the pattern). */
static void swap_all(MPI_Comm ic, int round, int up)
{
    int me, nr;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_remote_size(ic, &nr);
    int n = nr * 2;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n * 2);
    unsigned char **sb = malloc(sizeof(void *) * (size_t)n), **rb = malloc(sizeof(void *) * (size_t)n);
    CHECK(req && sb && rb);
    for (int r = 0; r < nr; r++)
        for (int k = 0; k < 2; k++) {
            int q = r * 2 + k, len = sizes[k];
            sb[q] = malloc((size_t)len);
            rb[q] = malloc((size_t)len);
            CHECK(sb[q] && rb[q]);
            int from = up ? me : 1000 + me, to = up ? 1000 + r : r;
            for (int i = 0; i < len; i++)
                sb[q][i] = pattern(from, to, round, k, i);
            memset(rb[q], 0, (size_t)len);
            MPI_Irecv(rb[q], len, MPI_BYTE, r, k, ic, &req[n + q]);
            MPI_Isend(sb[q], len, MPI_BYTE, r, k, ic, &req[q]);
        }
    MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
    for (int r = 0; r < nr; r++)
        for (int k = 0; k < 2; k++) {
            int q = r * 2 + k, from = up ? 1000 + r : r, to = up ? me : 1000 + me;
            for (int i = 0; i < sizes[k]; i++)
                if (rb[q][i] != pattern(from, to, round, k, i)) {
                    fprintf(stderr, "spawn_basic: round %d: byte %d from remote %d size %d wrong\n",
                            round, i, r, sizes[k]);
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
            free(sb[q]);
            free(rb[q]);
        }
    free(req);
    free(sb);
    free(rb);
}

/* The merged intracommunicator: parents first (high = 0), children after. */
static void check_merged(MPI_Comm ic, int parents, int round)
{
    int nl, nr, me, high;
    MPI_Comm m;
    MPI_Comm_size(ic, &nl);
    MPI_Comm_remote_size(ic, &nr);
    MPI_Comm_rank(ic, &me);
    high = !parents;
    CHECK(MPI_Intercomm_merge(ic, high, &m) == MPI_SUCCESS);
    int msize, mrank, np = parents ? nl : nr;
    MPI_Comm_size(m, &msize);
    MPI_Comm_rank(m, &mrank);
    CHECK(msize == nl + nr);
    CHECK(mrank == (parents ? me : np + me));
    long v = mrank + 1, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, m);
    CHECK(sum == (long)msize * (msize + 1) / 2);
    /* A broadcast from the first child, every byte checked. */
    unsigned char buf[3000];
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = mrank == np ? pattern(np, 0, round, 9, i) : 0;
    MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, np, m);
    for (int i = 0; i < (int)sizeof buf; i++)
        CHECK(buf[i] == pattern(np, 0, round, 9, i));
    int *all = malloc(sizeof(int) * (size_t)msize);
    CHECK(all);
    MPI_Allgather(&mrank, 1, MPI_INT, all, 1, MPI_INT, m);
    for (int i = 0; i < msize; i++)
        CHECK(all[i] == i);
    free(all);
    MPI_Comm_free(&m);
}

/* Parents and children meet again through a port: the parents' root opens
 * it and sends its name to the children over the intercommunicator. */
static void port_round(MPI_Comm ic, int parents, MPI_Comm group)
{
    char port[MPI_MAX_PORT_NAME];
    int me, nl, nr;
    MPI_Comm c;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &nl);
    MPI_Comm_remote_size(ic, &nr);
    if (parents) {
        if (me == 0) {
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
            MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 77, ic);
        }
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, group, &c) == MPI_SUCCESS);
    } else {
        if (me == 0)
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 77, ic, MPI_STATUS_IGNORE);
        CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, group, &c) == MPI_SUCCESS);
    }
    int cl, cr, flag;
    MPI_Comm_test_inter(c, &flag);
    MPI_Comm_size(c, &cl);
    MPI_Comm_remote_size(c, &cr);
    CHECK(flag && cl == nl && cr == nr);
    swap_all(c, 99, parents);
    MPI_Comm_disconnect(&c);
    if (parents && me == 0)
        CHECK(MPI_Close_port(port) == MPI_SUCCESS);
}

/* argv: child spawn N NPARENTS ROUND | child multi SET | child abort */
static int child_main(int argc, char **argv)
{
    MPI_Comm parent;
    int size, rank, *appnum, flag, psize;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_remote_size(parent, &psize);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag) == MPI_SUCCESS && flag);
    CHECK(g_counter == 0);
    g_counter++;
    if (strcmp(argv[2], "abort") == 0) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(parent); /* never completes: the parents wait in MPI_Finalize */
        return 0;
    }
    if (strcmp(argv[2], "latename") == 0) {
        char port[MPI_MAX_PORT_NAME];
        MPI_Comm_disconnect(&parent);
        for (int i = 0; i < 3000; i++) {
            CHECK(MPI_Lookup_name("zmpi-test-late", MPI_INFO_NULL, port) == MPI_SUCCESS);
            CHECK(strcmp(port, "zmpi-late-port") == 0);
        }
        return 0;
    }
    if (strcmp(argv[2], "nest") == 0 || strcmp(argv[2], "grand") == 0) {
        /* Children (2) spawn a grandchild (root: their rank 1), which
         * reports its view up; the children pass it to the parents. */
        int x = 0;
        MPI_Comm ic, gp;
        if (argv[2][0] == 'g') {
            CHECK(size == 1 && psize == 2 && *appnum == 0);
            x = 1000 + psize * 10 + size;
            MPI_Send(&x, 1, MPI_INT, 1, 2, parent);
            MPI_Comm_disconnect(&parent);
            return 0;
        }
        char *args[] = { "child", "grand", NULL };
        CHECK(size == 2);
        CHECK(MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 1, MPI_COMM_WORLD, &ic,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        if (rank == 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 2, ic, MPI_STATUS_IGNORE);
        MPI_Bcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD);
        CHECK(x == 1021);
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, 0, 1, parent);
        CHECK(MPI_Comm_get_parent(&gp) == MPI_SUCCESS && gp == parent);
        MPI_Comm_disconnect(&ic);
        MPI_Comm_disconnect(&parent);
        return 0;
    }
    if (strcmp(argv[2], "hang") == 0) {
        /* Waits for a message the parents never send: the deadlock
         * detector must name the spawned ranks. */
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE);
        return 0;
    }
    if (strcmp(argv[2], "multi") == 0) {
        /* Set A: 2 ranks "child multi A"; set B: 3 ranks "child multi B extra". */
        CHECK(size == 5 || size == 7);
        int a = rank < 2;
        CHECK(*appnum == (a ? 0 : 1));
        CHECK(argc == (a ? 4 : 5) && strcmp(argv[3], a ? "A" : "B") == 0);
        CHECK(a || strcmp(argv[4], "extra") == 0);
        int sum = 0, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == size);
        swap_all(parent, 50, 0);
        MPI_Comm_disconnect(&parent);
        return 0;
    }
    CHECK(argc == 6 && strcmp(argv[2], "spawn") == 0);
    int n = atoi(argv[3]), np = atoi(argv[4]), round = atoi(argv[5]);
    CHECK(size == n && rank >= 0 && rank < n && psize == np && *appnum == 0);
    /* The world is the children alone. */
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == n);
    MPI_Group wg, pg;
    int inter_cmp;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_remote_group(parent, &pg);
    MPI_Group_compare(wg, pg, &inter_cmp);
    CHECK(inter_cmp == MPI_UNEQUAL);
    MPI_Group_free(&wg);
    MPI_Group_free(&pg);
    swap_all(parent, round, 0);
    check_merged(parent, 0, round);
    if (argv[5][0] && round == 2)
        port_round(parent, 0, MPI_COMM_WORLD);
    MPI_Comm_disconnect(&parent);
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent == MPI_COMM_NULL);
    return 0;
}

/* Spawn from `comm` (MPI_COMM_WORLD, or MPI_COMM_SELF: every parent
 * spawns its own children at the same time). */
static void parent_spawn(const char *prog, const char *list, MPI_Comm comm)
{
    int size, rank, round = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (const char *p = list; *p; round++) {
        int n = atoi(p);
        char ns[16], nps[16], rs[16];
        snprintf(ns, sizeof ns, "%d", n);
        snprintf(nps, sizeof nps, "%d", size);
        snprintf(rs, sizeof rs, "%d", round);
        char *args[] = { "child", "spawn", ns, nps, rs, NULL };
        int *codes = malloc(sizeof(int) * (size_t)n);
        MPI_Comm ic;
        CHECK(codes);
        for (int i = 0; i < n; i++)
            codes[i] = -1;
        int root = round % size;
        CHECK(MPI_Comm_spawn(prog, args, n, MPI_INFO_NULL, root, comm, &ic, codes) ==
              MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            CHECK(codes[i] == MPI_SUCCESS);
        free(codes);
        int nl, nr, flag;
        MPI_Comm_test_inter(ic, &flag);
        MPI_Comm_size(ic, &nl);
        MPI_Comm_remote_size(ic, &nr);
        CHECK(flag && nl == size && nr == n);
        swap_all(ic, round, 1);
        check_merged(ic, 1, round);
        if (round == 2)
            port_round(ic, 1, comm);
        MPI_Comm_disconnect(&ic);
        p += strcspn(p, ",");
        p += *p == ',';
    }
    MPI_Comm parent;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent == MPI_COMM_NULL);
}

static void parent_multi(const char *prog, const char *other)
{
    char *a[] = { "child", "multi", "A", NULL }, *b[] = { "child", "multi", "B", "extra", NULL };
    char *o[] = { "from-spawn-basic", NULL };
    char *cmds[3] = { (char *)prog, (char *)prog, (char *)other };
    char **argvs[3] = { a, b, o };
    int maxprocs[3] = { 2, 3, 2 }, codes[7], count = other ? 3 : 2;
    MPI_Info infos[3] = { MPI_INFO_NULL, MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Comm ic;
    CHECK(MPI_Comm_spawn_multiple(count, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &ic,
                                  codes) == MPI_SUCCESS);
    int nr;
    MPI_Comm_remote_size(ic, &nr);
    CHECK(nr == (other ? 7 : 5));
    for (int i = 0; i < nr; i++)
        CHECK(codes[i] == MPI_SUCCESS);
    swap_all(ic, 50, 1);
    MPI_Comm_disconnect(&ic);
}

/* Spawn `ask` children of this program in "spawn" mode (round `round`)
 * with info; `want` must start (the others get MPI_ERR_SPAWN), then the
 * usual exchanges. */
static void spawn_checked(const char *prog, int ask, MPI_Info info, int want, int round)
{
    int size, codes[8];
    char ns[16], nps[16], rs[16];
    MPI_Comm ic;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(ns, sizeof ns, "%d", want);
    snprintf(nps, sizeof nps, "%d", size);
    snprintf(rs, sizeof rs, "%d", round);
    char *args[] = { "child", "spawn", ns, nps, rs, NULL };
    CHECK(MPI_Comm_spawn(prog, args, ask, info, 0, MPI_COMM_WORLD, &ic, codes) == MPI_SUCCESS);
    for (int i = 0; i < ask; i++)
        CHECK(i < want ? codes[i] == MPI_SUCCESS : codes[i] == MPI_ERR_SPAWN);
    int nr;
    MPI_Comm_remote_size(ic, &nr);
    CHECK(nr == want);
    swap_all(ic, round, 1);
    check_merged(ic, 1, round);
    MPI_Comm_disconnect(&ic);
}

/* Run with ZMPI_SPAWN_MAX=4: 3 children, then soft 1:3 gets the 1 record
 * left, then nothing is left. */
static void parent_soft(const char *prog)
{
    MPI_Info info;
    MPI_Comm ic;
    int cls;
    spawn_checked(prog, 3, MPI_INFO_NULL, 3, 5);
    MPI_Info_create(&info);
    MPI_Info_set(info, "soft", "1:3");
    spawn_checked(prog, 3, info, 1, 6);
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                                   MPI_ERRCODES_IGNORE), &cls);
    CHECK(cls == MPI_ERR_SPAWN && ic == MPI_COMM_NULL);
}

/* Each refused command must give MPI_ERR_SPAWN with its name in the
 * message, an error code per asked rank and no intercommunicator. */
static void expect_refused(const char *prog, const char *cmd, const char *why)
{
    int codes[2] = { 12345, 12345 }, cls, len, rank;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Comm ic = (MPI_Comm)(void *)&ic;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (cls != MPI_ERR_SPAWN || ic != MPI_COMM_NULL || codes[0] == MPI_SUCCESS ||
        codes[0] == 12345 || codes[1] == MPI_SUCCESS || codes[1] == 12345 ||
        !strstr(msg, cmd) || !strstr(msg, why)) {
        fprintf(stderr, "spawn_basic: %s: rank %d: class %d, message \"%s\" (want \"%s\")\n",
                cmd, rank, cls, msg, why);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    (void)prog;
}

static void parent_errors(const char *prog, const char *unpriv)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_refused(prog, "/nonexistent/zmpi-spawn-test", "cannot open");
    expect_refused(prog, "zmpi-no-such-command-anywhere", "not found");
    expect_refused(prog, "/bin/true", "not built by zmpicc");
    expect_refused(prog, "/bin/sh", "not built by zmpicc");
    if (unpriv)
        expect_refused(prog, unpriv, "not built by zmpicc");
    /* Bad arguments: a negative count; wdir elsewhere. */
    int rc, cls;
    MPI_Comm ic;
    rc = MPI_Comm_spawn(prog, MPI_ARGV_NULL, -1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                        MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && ic == MPI_COMM_NULL);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wdir", "/");
    rc = MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &ic,
                        MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN && ic == MPI_COMM_NULL);
    /* soft 1:3 with spare records for all 3 starts 3; wdir "." and an
     * unknown host are accepted. */
    MPI_Info_set(info, "wdir", ".");
    MPI_Info_set(info, "soft", "1:3");
    MPI_Info_set(info, "host", "anywhere");
    spawn_checked(prog, 3, info, 3, 7);
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* Descriptor -1 is no socket (spawn_join.c checks the joins). */
    rc = MPI_Comm_join(-1, &ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && ic == MPI_COMM_NULL);
}

#ifndef SPAWN_OTHER
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 3 && strcmp(argv[1], "child") == 0) {
        int rc = child_main(argc, argv);
        MPI_Finalize();
        return rc;
    }
    CHECK(argc >= 2);
    if (strcmp(argv[1], "spawn") == 0 && argc == 3) {
        parent_spawn(argv[0], argv[2], MPI_COMM_WORLD);
    } else if (strcmp(argv[1], "selfspawn") == 0 && argc == 3) {
        parent_spawn(argv[0], argv[2], MPI_COMM_SELF);
    } else if (strcmp(argv[1], "multi") == 0) {
        parent_multi(argv[0], argc > 2 ? argv[2] : NULL);
    } else if (strcmp(argv[1], "nest") == 0) {
        char *args[] = { "child", "nest", NULL };
        MPI_Comm ic;
        int x = 0, rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        CHECK(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        if (rank == 0) {
            MPI_Recv(&x, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE);
            CHECK(x == 1021);
        }
        MPI_Comm_disconnect(&ic);
    } else if (strcmp(argv[1], "latename") == 0) {
        int rank, size;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (rank == 0)
            CHECK(MPI_Publish_name("zmpi-test-late", MPI_INFO_NULL, "zmpi-late-port") ==
                  MPI_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1) {
            char *args[] = { "child", "latename", NULL };
            MPI_Comm ic;
            CHECK(MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic,
                                 MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
            MPI_Comm_disconnect(&ic);
        }
    } else if (strcmp(argv[1], "soft") == 0) {
        parent_soft(argv[0]);
    } else if (strcmp(argv[1], "errors") == 0) {
        parent_errors(argv[0], argc > 2 ? argv[2] : NULL);
    } else if (strcmp(argv[1], "abort") == 0 || strcmp(argv[1], "hang") == 0) {
        char *args[] = { "child", argv[1], NULL };
        MPI_Comm ic;
        MPI_Comm_spawn(argv[0], args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                       MPI_ERRCODES_IGNORE);
    } else {
        CHECK(0);
    }
    MPI_Finalize();
    return 0;
}
#endif
