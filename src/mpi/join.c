/*
 * join.c: MPI_Comm_join (MPI 4.1 section 11.10.4): two ranks holding the
 * two ends of a connected socket make an intercommunicator of the two.
 *
 * Each side writes a record (which job shape, world rank and process it
 * is, a context it drew, a random nonce) to the socket and reads the
 * other's.  The socket is read and written without blocking: between
 * tries the rank sleeps on its worker (zm_ult_sleep_until), so the other
 * ranks of the worker, its peer among them when both are threads of this
 * process, keep running.  A record from anything but a rank of this job
 * is refused: the peer's nonce must be registered by the rank it claims to
 * be, in its process (asked through the network when that is another
 * one: port_net.c).  A last byte each way says both checks passed, so
 * neither side drops its nonce while the other may still ask for it.
 * The side with the lower world rank gives the contexts.
 */
#include "inter_impl.h"
#include "spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOIN_MAGIC 0x6e696f6a69706d7aull /* "zmpijoin" */
#define JOIN_VERSION 1

/* What each side writes. */
struct join_rec {
    uint64_t magic, nonce;
    int32_t version, nranks, nprocs, rank, proc, pad;
    uint32_t ctx;                 /* the first of 6 contexts it drew */
};

/* Nonces of the joins in progress in this process. */
struct pending {
    struct pending *next;
    uint64_t nonce;
    int rank;
};

static zm_spinlock_t lock;
static struct pending *pending;

int zm_mpi_join_known(uint64_t nonce, int rank)
{
    int found = 0;
    zm_spin_lock(&lock);
    for (struct pending *p = pending; p && !found; p = p->next)
        found = p->nonce == nonce && p->rank == rank;
    zm_spin_unlock(&lock);
    return found;
}

static void pending_drop(struct pending *me)
{
    zm_spin_lock(&lock);
    for (struct pending **pp = &pending; *pp; pp = &(*pp)->next)
        if (*pp == me) {
            *pp = me->next;
            break;
        }
    zm_spin_unlock(&lock);
}

/* Move len bytes through fd (out: send).  Returns 0, or -errno. */
static long xfer(int fd, void *buf, size_t len, int out)
{
    char *p = buf;
    uint64_t nap = 20000; /* ns; doubled up to 1 ms while nothing moves */
    while (len > 0) {
        long n = zm_arch_sock_try(fd, p, len, out);
        if (n < 0)
            return n;
        p += n;
        len -= (size_t)n;
        if (n > 0) {
            nap = 20000;
            continue;
        }
        /* The peer's process may be asking this one whether this rank
         * joins (peer_genuine): keep the network going.  A thread that
         * runs no ULT (an adopted rank) cannot sleep on a worker: it
         * waits on the socket, briefly, and polls again. */
        zm_net_poll();
        if (zm_ult_sleep_until(zm_arch_time_ns() + nap) != 0)
            zm_arch_sock_wait(fd, out, 1);
        nap = nap < 1000000 ? nap * 2 : nap;
    }
    return 0;
}

/* Whether rec comes from a rank of this job that is joining now. */
static int peer_genuine(const struct join_rec *r, char *why, size_t len)
{
    if (r->magic != JOIN_MAGIC || r->version != JOIN_VERSION) {
        snprintf(why, len, "the other end of the socket is not a zmpi rank in MPI_Comm_join");
        return 0;
    }
    if (r->nranks != zm_net_job.nranks || r->nprocs != zm_net_job.nprocs || r->rank < 0 ||
        r->rank >= zm_ult_capacity() || r->proc != zm_net_proc_of(r->rank)) {
        snprintf(why, len, "the other end of the socket is a rank of another job");
        return 0;
    }
    int known = r->proc == zm_net_job.proc ? zm_mpi_join_known(r->nonce, r->rank)
                                           : zm_mpi_port_net_join(r->proc, r->nonce, r->rank);
    if (known < 0)
        snprintf(why, len, "out of memory");
    else if (!known)
        snprintf(why, len, "the other end of the socket is a rank of another job (rank %d of "
                 "this job is not joining)", r->rank);
    return known > 0;
}

/* The exchange; on success *peer holds the other side's record.  Returns
 * MPI_SUCCESS or an error class with the reason in why. */
static int exchange(zm_mpi_rank_t *me, int fd, struct join_rec *mine, struct join_rec *peer,
                    char *why, size_t len)
{
    struct pending reg = { NULL, mine->nonce, me->world_rank };
    zm_spin_lock(&lock);
    reg.next = pending;
    pending = &reg;
    zm_spin_unlock(&lock);
    char ok = 0, peer_ok = 0;
    long e = xfer(fd, mine, sizeof(*mine), 1);
    if (e == 0)
        e = xfer(fd, peer, sizeof(*peer), 0);
    if (e == 0) {
        ok = (char)peer_genuine(peer, why, len);
        e = xfer(fd, &ok, 1, 1);
    }
    if (e == 0)
        e = xfer(fd, &peer_ok, 1, 0);
    pending_drop(&reg);
    if (e != 0) {
        snprintf(why, len, "(fd): the socket failed: %s", strerror((int)-e));
        return MPI_ERR_ARG;
    }
    if (!ok)
        return MPI_ERR_ARG;
    if (!peer_ok) {
        snprintf(why, len, "the other side refused this rank (see its message)");
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    const char *fn = "MPI_Comm_join";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!intercomm)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(intercomm=NULL): invalid pointer");
    *intercomm = MPI_COMM_NULL;
    if (fd < 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(fd=%d): not a socket", fd);
    struct join_rec mine = { JOIN_MAGIC, zm_arch_random64(), JOIN_VERSION, zm_net_job.nranks,
                             zm_net_job.nprocs, me->world_rank, zm_net_job.proc, 0,
                             zm_mpi_ctx_draw(6) };
    struct join_rec peer;
    char why[256] = "";
    zm_p2p_self()->wait_call = fn;
    int rc = exchange(me, fd, &mine, &peer, why, sizeof why);
    if (rc != MPI_SUCCESS)
        return zm_mpi_error(NULL, rc, fn, "(fd=%d): %s", fd, why);
    int low = me->world_rank < peer.rank;
    uint32_t base = low ? mine.ctx : peer.ctx;
    struct zmpi_group *lg = zm_mpi_group_new(1), *rg = zm_mpi_group_new(1);
    struct zmpi_comm *n = NULL;
    if (lg && rg) {
        lg->world[0] = me->world_rank;
        rg->world[0] = peer.rank;
        n = zm_mpi_intercomm_new(me->world.eh, lg, rg, base, base + (low ? 2 : 4),
                                 me->world_rank);
    } else {
        zm_mpi_group_unref(lg);
        zm_mpi_group_unref(rg);
    }
    if (!n)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *intercomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_join)
