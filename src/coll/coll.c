/*
 * coll.c: simple, correct collectives over point-to-point: dissemination
 * barrier, binomial-tree broadcast and reduction.  Deterministic: for a
 * given communicator size the reduction order never changes, and Allreduce
 * broadcasts one result, so every rank gets the same bits.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_GATHER };

extern zm_dt_t zmpi_dt_MPI_BYTE, zmpi_dt_MPI_INT;

static zm_status_t wait_one(zm_req_t *r)
{
    zm_p2p_wait(&r, 1, 1);
    return r->st_error;
}

static zm_status_t csend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                         const zm_dt_t *dt, int dest, int tag)
{
    zm_req_t r;
    memset(&r, 0, sizeof(r));
    zm_status_t rc = zm_p2p_isend(c, buf, count, dt, dest, tag, ZM_SEND_STD, &r);
    return rc != ZM_OK ? rc : wait_one(&r);
}

static zm_status_t crecv(const zm_p2p_comm_t *c, void *buf, size_t count,
                         const zm_dt_t *dt, int src, int tag)
{
    zm_req_t r;
    memset(&r, 0, sizeof(r));
    zm_p2p_irecv(c, buf, count, dt, src, tag, &r);
    return wait_one(&r);
}

zm_status_t zm_coll_barrier(const zm_p2p_comm_t *comm)
{
    zm_p2p_comm_t c = zm_coll_comm(comm);
    for (int k = 1; k < c.size; k <<= 1) {
        zm_req_t s;
        memset(&s, 0, sizeof(s));
        zm_status_t rc = zm_p2p_isend(&c, NULL, 0, &zmpi_dt_MPI_BYTE,
                                      (c.rank + k) % c.size, TAG_BARRIER, ZM_SEND_STD, &s);
        if (rc != ZM_OK)
            return rc;
        crecv(&c, NULL, 0, &zmpi_dt_MPI_BYTE, (c.rank - k + c.size) % c.size, TAG_BARRIER);
        wait_one(&s);
    }
    return ZM_OK;
}

zm_status_t zm_coll_bcast(const zm_p2p_comm_t *comm, void *buf, size_t count,
                          const zm_dt_t *dt, int root)
{
    zm_p2p_comm_t c = zm_coll_comm(comm);
    int size = c.size, vr = (c.rank - root + size) % size, mask = 1;
    zm_req_t reqs[32];
    zm_req_t *rp[32];
    int n = 0;
    while (mask < size) {
        if (vr & mask) {
            crecv(&c, buf, count, dt, (vr - mask + root) % size, TAG_BCAST);
            break;
        }
        mask <<= 1;
    }
    /* Start every child's send before waiting, so children copy from this
     * rank's buffer in parallel when their workers differ. */
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < size) {
            memset(&reqs[n], 0, sizeof(reqs[n]));
            zm_status_t rc = zm_p2p_isend(&c, buf, count, dt, (vr + mask + root) % size,
                                          TAG_BCAST, ZM_SEND_STD, &reqs[n]);
            if (rc != ZM_OK)
                return rc;
            rp[n] = &reqs[n];
            n++;
        }
    }
    zm_p2p_wait(rp, n, 1);
    return ZM_OK;
}

zm_status_t zm_coll_reduce(const zm_p2p_comm_t *comm, const void *sbuf, void *rbuf,
                           size_t count, const zm_dt_t *dt, const zm_op_t *op, int root)
{
    zm_p2p_comm_t c = zm_coll_comm(comm);
    int size = c.size, vr = (c.rank - root + size) % size;
    size_t bytes = count * (size_t)dt->extent;
    zm_status_t rc = ZM_OK;
    char *acc = malloc(bytes ? 2 * bytes : 1), *tmp = acc + bytes;
    if (!acc)
        return ZM_ERR_NOMEM;
    memcpy(acc, sbuf, bytes);
    for (int mask = 1; mask < size; mask <<= 1) {
        if (vr & mask) {
            rc = csend(&c, acc, count, dt, (vr - mask + root) % size, TAG_REDUCE);
            break;
        }
        if ((vr | mask) < size) {
            rc = crecv(&c, tmp, count, dt, ((vr | mask) + root) % size, TAG_REDUCE);
            if (rc != ZM_OK)
                break;
            /* All predefined operations are commutative, so the operand
             * order of zm_op_apply (child's partial result first) is
             * harmless; user operations will need it swapped. */
            zm_op_apply(op, tmp, acc, count, dt);
        }
    }
    if (vr == 0 && rc == ZM_OK)
        memcpy(rbuf, acc, bytes);
    free(acc);
    return rc;
}

zm_status_t zm_coll_allreduce(const zm_p2p_comm_t *c, const void *sbuf, void *rbuf,
                              size_t count, const zm_dt_t *dt, const zm_op_t *op)
{
    zm_status_t rc = zm_coll_reduce(c, sbuf, rbuf, count, dt, op, 0);
    if (rc != ZM_OK)
        return rc;
    return zm_coll_bcast(c, rbuf, count, dt, 0);
}

zm_status_t zm_coll_allgather_int(const zm_p2p_comm_t *comm, const int *in, int n, int *out)
{
    zm_p2p_comm_t c = zm_coll_comm(comm);
    zm_status_t rc = ZM_OK;
    if (c.rank == 0) {
        memcpy(out, in, sizeof(int) * (size_t)n);
        for (int r = 1; r < c.size && rc == ZM_OK; r++)
            rc = crecv(&c, out + (size_t)r * n, (size_t)n, &zmpi_dt_MPI_INT, r, TAG_GATHER);
    } else {
        rc = csend(&c, in, (size_t)n, &zmpi_dt_MPI_INT, 0, TAG_GATHER);
    }
    if (rc != ZM_OK)
        return rc;
    return zm_coll_bcast(comm, out, (size_t)n * (size_t)c.size, &zmpi_dt_MPI_INT, 0);
}
