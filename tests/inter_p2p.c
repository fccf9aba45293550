/*
 * inter_p2p.c: intercommunicators made with MPI_Intercomm_create, their
 * queries, point-to-point on them (remote ranks, MPI_ANY_SOURCE, statuses,
 * rank checks against the remote size), and Comm_dup / Comm_split /
 * Comm_create / Comm_compare / Comm_free on them, with MPI_Probe; errors of
 * Intercomm_create through MPI_ERRORS_RETURN.
 *
 * The world is split into two interleaved groups of different sizes:
 * group A holds the world ranks r with r % 3 == 0, group B the others.
 */
#include "zt.h"

/* The sides of the test's intercommunicator. */
typedef struct side {
    int g;          /* 0: group A, 1: group B */
    int lr, nl;     /* local rank and size */
    int nr;         /* remote size */
    int wsize;      /* world size */
} side;

/* World rank of local rank i of group g. */
static int world_of(int g, int i)
{
    return g == 0 ? 3 * i : (i / 2) * 3 + 1 + i % 2;
}

static int group_size(int g, int wsize)
{
    int n = 0;
    for (int r = 0; r < wsize; r++)
        n += (r % 3 == 0) == (g == 0);
    return n;
}

static MPI_Comm make_inter(side *s, MPI_Comm *local)
{
    int wr;
    MPI_Comm inter;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &s->wsize);
    s->g = wr % 3 == 0 ? 0 : 1;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, s->g, wr, local));
    /* Leaders: world rank 0 for A, world rank 1 for B. */
    ZT_OK(MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, s->g == 0 ? 1 : 0, 77, &inter));
    MPI_Comm_rank(inter, &s->lr);
    MPI_Comm_size(inter, &s->nl);
    MPI_Comm_remote_size(inter, &s->nr);
    return inter;
}

static void check_queries(const side *s, MPI_Comm inter, MPI_Comm local)
{
    int flag = -1, n, wr;
    MPI_Group rg, lg, wg;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    ZT_OK(MPI_Comm_test_inter(inter, &flag));
    ZT_EQ(flag, 1, "Comm_test_inter(inter)");
    ZT_OK(MPI_Comm_test_inter(local, &flag));
    ZT_EQ(flag, 0, "Comm_test_inter(local)");
    ZT_EQ(s->nl, group_size(s->g, s->wsize), "local size");
    ZT_EQ(s->nr, group_size(1 - s->g, s->wsize), "remote size");
    ZT_EQ(world_of(s->g, s->lr), wr, "local rank maps to my world rank");
    ZT_OK(MPI_Comm_remote_group(inter, &rg));
    ZT_OK(MPI_Comm_group(inter, &lg));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_size(rg, &n);
    ZT_EQ(n, s->nr, "remote group size");
    MPI_Group_size(lg, &n);
    ZT_EQ(n, s->nl, "local group size");
    for (int i = 0; i < s->nr; i++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &i, wg, &w);
        ZT_EQ(w, world_of(1 - s->g, i), "remote group member");
    }
    MPI_Group_rank(rg, &n);
    ZT_EQ(n, MPI_UNDEFINED, "caller is not in the remote group");
    MPI_Group_free(&rg);
    MPI_Group_free(&lg);
    MPI_Group_free(&wg);
}

/* Every local rank i sends to remote rank i % nr; receivers take their
 * messages with MPI_ANY_SOURCE and check source and payload; then the
 * same with specific sources.  Done in both directions at once. */
static void check_traffic(const side *s, MPI_Comm inter, int tag)
{
    int out[2] = { s->g, s->lr }, in[2];
    MPI_Request req;
    MPI_Status st;
    ZT_OK(MPI_Isend(out, 2, MPI_INT, s->lr % s->nr, tag, inter, &req));
    int expect = 0;
    for (int i = s->lr; i < s->nr; i += s->nl)
        expect++;
    char *seen = calloc((size_t)s->nr, 1);
    for (int k = 0; k < expect; k++) {
        MPI_Status pst;
        int n = -1;
        ZT_OK(MPI_Probe(MPI_ANY_SOURCE, tag, inter, &pst));
        MPI_Get_count(&pst, MPI_INT, &n);
        ZT_EQ(n, 2, "probed count");
        ZT_OK(MPI_Recv(in, 2, MPI_INT, pst.MPI_SOURCE, tag, inter, &st));
        ZT_EQ(st.MPI_SOURCE, pst.MPI_SOURCE, "probed source");
        ZT_EQ(in[0], 1 - s->g, "sender's group");
        ZT_EQ(st.MPI_SOURCE, in[1], "status source is the sender's remote rank");
        ZT_EQ(in[1] % s->nl, s->lr, "message came to the right rank");
        ZT_CHECK(!seen[in[1]], "duplicate message from %d", in[1]);
        seen[in[1]] = 1;
    }
    free(seen);
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* Pairs (i, i) for i < min(nl, nr) with Sendrecv and explicit sources. */
    if (s->lr < s->nr) {
        int got = -1, mine = 1000 * s->g + s->lr;
        ZT_OK(MPI_Sendrecv(&mine, 1, MPI_INT, s->lr, tag + 1, &got, 1, MPI_INT, s->lr, tag + 1,
                           inter, &st));
        ZT_EQ(got, 1000 * (1 - s->g) + s->lr, "Sendrecv partner's value");
        ZT_EQ(st.MPI_SOURCE, s->lr, "Sendrecv status source");
    }
}

static void check_rank_errors(const side *s, MPI_Comm inter)
{
    int x = 0;
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    /* Ranks are checked against the remote size, not the local one. */
    ZT_EQ(MPI_Send(&x, 1, MPI_INT, s->nr, 0, inter), MPI_ERR_RANK, "Send to remote size");
    ZT_EQ(MPI_Recv(&x, 1, MPI_INT, s->nr + 5, 0, inter, MPI_STATUS_IGNORE), MPI_ERR_RANK,
          "Recv from beyond the remote group");
    ZT_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
}

/* Messages on a duplicate never match receives on the original. */
static void check_dup(const side *s, MPI_Comm inter)
{
    MPI_Comm dup;
    int r, a = 1, b = 2, x = 0, y = 0;
    ZT_OK(MPI_Comm_dup(inter, &dup));
    ZT_OK(MPI_Comm_test_inter(dup, &r));
    ZT_EQ(r, 1, "dup of an intercomm is an intercomm");
    ZT_OK(MPI_Comm_compare(inter, dup, &r));
    ZT_EQ(r, MPI_CONGRUENT, "compare(inter, dup)");
    ZT_OK(MPI_Comm_compare(inter, inter, &r));
    ZT_EQ(r, MPI_IDENT, "compare(inter, inter)");
    ZT_OK(MPI_Comm_compare(inter, MPI_COMM_WORLD, &r));
    ZT_EQ(r, MPI_UNEQUAL, "compare(inter, world)");
    MPI_Comm_size(dup, &r);
    ZT_EQ(r, s->nl, "dup's local size");
    if (s->lr == 0) {
        if (s->g == 0) {
            MPI_Send(&a, 1, MPI_INT, 0, 5, inter);
            MPI_Send(&b, 1, MPI_INT, 0, 5, dup);
        } else {
            MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
            ZT_EQ(x, 1, "message on the original");
            ZT_EQ(y, 2, "message on the duplicate");
        }
    }
    ZT_OK(MPI_Comm_set_name(dup, "zt-dup"));
    char name[MPI_MAX_OBJECT_NAME];
    ZT_OK(MPI_Comm_get_name(dup, name, &r));
    ZT_CHECK(strcmp(name, "zt-dup") == 0, "name '%s'", name);
    ZT_OK(MPI_Comm_free(&dup));
    ZT_CHECK(dup == MPI_COMM_NULL, "freed handle is MPI_COMM_NULL");
}

/* Split by local rank parity: the new remote group is the remote ranks of
 * the same parity; a side with no partner of its parity gets NULL. */
static void check_split(const side *s, MPI_Comm inter)
{
    MPI_Comm sub;
    int color = s->lr % 2, nl = 0, nr = 0;
    for (int i = 0; i < s->nl; i++)
        nl += i % 2 == color;
    for (int i = 0; i < s->nr; i++)
        nr += i % 2 == color;
    /* Key: reverse order. */
    ZT_OK(MPI_Comm_split(inter, color, -s->lr, &sub));
    if (nr == 0) {
        ZT_CHECK(sub == MPI_COMM_NULL, "no remote member of colour %d: expected MPI_COMM_NULL",
                 color);
        return;
    }
    ZT_CHECK(sub != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
    int r, n, m;
    MPI_Comm_rank(sub, &r);
    MPI_Comm_size(sub, &n);
    MPI_Comm_remote_size(sub, &m);
    ZT_EQ(n, nl, "split local size");
    ZT_EQ(m, nr, "split remote size");
    ZT_EQ(r, (nl - 1) - s->lr / 2, "split rank ordered by key");
    /* Remote rank 0 of sub is the remote member of my colour with the
     * highest old rank; it reports its old rank to all its remotes. */
    if (r == 0) {
        for (int i = 0; i < m; i++)
            MPI_Send(&s->lr, 1, MPI_INT, i, 9, sub);
    }
    int got = -1, last = -1;
    MPI_Recv(&got, 1, MPI_INT, 0, 9, sub, MPI_STATUS_IGNORE);
    for (int i = 0; i < s->nr; i++)
        if (i % 2 == color)
            last = i;
    ZT_EQ(got, last, "remote rank 0 of the split is the last remote of my colour");
    ZT_OK(MPI_Comm_free(&sub));
    /* MPI_UNDEFINED everywhere gives MPI_COMM_NULL. */
    ZT_OK(MPI_Comm_split(inter, MPI_UNDEFINED, 0, &sub));
    ZT_CHECK(sub == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
}

/* Comm_create with the local group minus local rank 0 (when it has more
 * than one rank). */
static void check_create(const side *s, MPI_Comm inter)
{
    MPI_Group lg, sub;
    MPI_Comm nc;
    int zero = 0;
    MPI_Comm_group(inter, &lg);
    if (s->nl > 1)
        MPI_Group_excl(lg, 1, &zero, &sub);
    else
        MPI_Group_incl(lg, 1, &zero, &sub);
    ZT_OK(MPI_Comm_create(inter, sub, &nc));
    if (s->nl > 1 && s->lr == 0) {
        ZT_CHECK(nc == MPI_COMM_NULL, "excluded rank got a communicator");
    } else {
        ZT_CHECK(nc != MPI_COMM_NULL, "member got MPI_COMM_NULL");
        int n, m, r;
        MPI_Comm_size(nc, &n);
        MPI_Comm_remote_size(nc, &m);
        MPI_Comm_rank(nc, &r);
        ZT_EQ(n, s->nl > 1 ? s->nl - 1 : 1, "created local size");
        ZT_EQ(m, s->nr > 1 ? s->nr - 1 : 1, "created remote size");
        ZT_EQ(r, s->nl > 1 ? s->lr - 1 : 0, "created rank");
        MPI_Comm_free(&nc);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);
}

/* Argument errors of Intercomm_create, raised on every rank so none
 * hangs. */
static void check_create_errors(const side *s, MPI_Comm local)
{
    MPI_Comm nc = MPI_COMM_NULL;
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    ZT_EQ(MPI_Intercomm_create(local, s->nl, MPI_COMM_WORLD, 0, 3, &nc), MPI_ERR_RANK,
          "local_leader out of range");
    /* Both leaders name a remote leader outside the peer communicator:
     * each leader fails and tells its group. */
    ZT_EQ(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wsize, 3, &nc), MPI_ERR_RANK,
          "remote_leader out of range");
    /* Both leaders name a member of their own group. */
    ZT_EQ(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, world_of(s->g, s->nl - 1), 3, &nc),
          MPI_ERR_RANK, "remote_leader in the local group");
    int x;
    /* An invalid communicator has no handler of its own: the error goes
     * to MPI_COMM_SELF's (MPI 4.1 section 9.3; older MPIs used WORLD's). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    ZT_EQ(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 3, &nc), MPI_ERR_COMM,
          "null local_comm");
    ZT_CHECK(nc == MPI_COMM_NULL, "no communicator made by failed calls");
    ZT_EQ(MPI_Comm_remote_size(MPI_COMM_WORLD, &x), MPI_ERR_COMM, "remote size of an intracomm");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    side s;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        MPI_Finalize();
        return 0;
    }
    inter = make_inter(&s, &local);
    check_queries(&s, inter, local);
    for (int round = 0; round < 3; round++)
        check_traffic(&s, inter, 10 + 2 * round);
    check_rank_errors(&s, inter);
    check_dup(&s, inter);
    check_split(&s, inter);
    check_create(&s, inter);
    check_create_errors(&s, local);
    ZT_OK(MPI_Comm_free(&inter));
    ZT_OK(MPI_Comm_free(&local));
    MPI_Finalize();
    return 0;
}
