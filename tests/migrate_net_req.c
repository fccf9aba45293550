/*
 * migrate_net_req.c: the request modes of tests/migrate_net.c (see its
 * header: MIG_MODE=pending and MIG_MODE=persist), kept apart for the
 * length of the file.  Shared names in migrate_net.h.
 */
#include <mpi.h>
#include "migrate_net.h"

#include <stdint.h>
#include <stdlib.h>

/* ---- MIG_MODE=pending ---- */

#define PEND_BIG 8192
static int64_t pend_big[PEND_BIG], pend_small[32];
static MPI_Request pend_req = MPI_REQUEST_NULL, pend_persist = MPI_REQUEST_NULL;

static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* Whether rank r keeps a request or a message across the migration in
 * MIG_MODE=pending (it must stay). */
int pend_holds(int r)
{
    return r == 1 || r == 2 || r == 4 || (np >= 8 && r >= 3 && r <= 7 && r != 4);
}

/* Before ZMPI_Migrate: rank 1's receive, rank 2's send. */
void pend_before(int iter)
{
    if (me == 1)
        MPI_Irecv(pend_small, 32, MPI_INT64_T, 0, 950 + iter, MPI_COMM_WORLD, &pend_req);
    if (me == 2) {
        for (int i = 0; i < PEND_BIG; i++)
            pend_big[i] = pat(iter + 60, i);
        MPI_Isend(pend_big, PEND_BIG, MPI_INT64_T, 4, 960 + iter, MPI_COMM_WORLD, &pend_req);
    }
    if (me == 3 && np >= 8) {
        if (pend_persist == MPI_REQUEST_NULL)
            MPI_Send_init(pend_small, 32, MPI_INT64_T, 5, 970, MPI_COMM_WORLD, &pend_persist);
        for (int i = 0; i < 32; i++)
            pend_small[i] = pat(iter + 70, i);
        MPI_Start(&pend_persist);
    }
    if (me == 7 && np >= 8)
        MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &pend_req);
}

/* After it: complete both, check the data. */
void pend_after(int iter)
{
    if (me == 0) {
        for (int i = 0; i < 32; i++)
            pend_small[i] = pat(iter + 50, i);
        MPI_Send(pend_small, 32, MPI_INT64_T, 1, 950 + iter, MPI_COMM_WORLD);
    }
    if (me == 7 && np >= 8)
        MPI_Grequest_complete(pend_req);
    if (me == 1 || me == 2 || (me == 7 && np >= 8))
        MPI_Wait(&pend_req, MPI_STATUS_IGNORE);
    if (me == 4)
        MPI_Recv(pend_big, PEND_BIG, MPI_INT64_T, 2, 960 + iter, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (me == 3 && np >= 8) {
        MPI_Wait(&pend_persist, MPI_STATUS_IGNORE);
        if (iter == ITERS - 1)
            MPI_Request_free(&pend_persist);
    }
    if (me == 6 && np >= 8) {
        for (int i = 0; i < 32; i++)
            pend_small[i] = pat(iter + 80, i);
        MPI_Bsend(pend_small, 32, MPI_INT64_T, 7, 980, MPI_COMM_WORLD);
    }
    if (me == 7 && np >= 8) {
        MPI_Recv(pend_small, 32, MPI_INT64_T, 6, 980, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 32; i++)
            if (pend_small[i] != (int64_t)6 * 1000003 + (iter + 80) * 7919 + i)
                fail("the buffered send after the move", i);
    }
    if (me == 5 && np >= 8) {
        MPI_Recv(pend_small, 32, MPI_INT64_T, 3, 970, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 32; i++)
            if (pend_small[i] != (int64_t)3 * 1000003 + (iter + 70) * 7919 + i)
                fail("the persistent send started before the move", i);
    }
    for (int i = 0; me == 1 && i < 32; i++)
        if (pend_small[i] != (int64_t)0 * 1000003 + (iter + 50) * 7919 + i)
            fail("the receive posted before the move", i);
    for (int i = 0; me == 4 && i < PEND_BIG; i++)
        if (pend_big[i] != (int64_t)2 * 1000003 + (iter + 60) * 7919 + i)
            fail("the send started before the move", i);
}

/* ---- MIG_MODE=persist ---- */

#define PN 64
int have_persist;
static MPI_Comm p_dup;
static MPI_Datatype p_every2;
static MPI_Request p_rq[6]; /* receives: standard, strided, ready; then the sends */
static int64_t *p_in[3], *p_out[3];

static void persist_vec_pair(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Recv_init(p_in[1], 1, p_every2, right, 71, p_dup, &p_rq[1]);
    MPI_Ssend_init(p_out[1], 1, p_every2, left, 71, p_dup, &p_rq[4]);
}

void persist_make(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    have_persist = 1;
    MPI_Comm_dup(MPI_COMM_WORLD, &p_dup);
    MPI_Type_vector(PN / 2, 1, 2, MPI_INT64_T, &p_every2);
    MPI_Type_commit(&p_every2);
    for (int k = 0; k < 3; k++)
        if (!(p_in[k] = calloc(PN, sizeof(int64_t))) || !(p_out[k] = calloc(PN, sizeof(int64_t))))
            fail("allocation", k);
    MPI_Recv_init(p_in[0], PN, MPI_INT64_T, left, 70, MPI_COMM_WORLD, &p_rq[0]);
    MPI_Recv_init(p_in[2], PN, MPI_INT64_T, left, 72, MPI_COMM_WORLD, &p_rq[2]);
    MPI_Send_init(p_out[0], PN, MPI_INT64_T, right, 70, MPI_COMM_WORLD, &p_rq[3]);
    MPI_Rsend_init(p_out[2], PN, MPI_INT64_T, right, 72, MPI_COMM_WORLD, &p_rq[5]);
    persist_vec_pair();
}

/* One halo exchange on the persistent requests, checked. */
void persist_round(int iter)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int k = 0; k < 3; k++)
        for (long i = 0; i < PN; i++) {
            p_out[k][i] = pat(iter * 3 + k + 200, i);
            p_in[k][i] = -1;
        }
    MPI_Startall(3, p_rq);
    MPI_Barrier(MPI_COMM_WORLD); /* every ready send finds its receive */
    MPI_Startall(3, &p_rq[3]);
    MPI_Waitall(6, p_rq, MPI_STATUSES_IGNORE);
    for (long i = 0; i < PN; i++) {
        int64_t l0 = (int64_t)left * 1000003 + (iter * 3 + 200) * 7919 + i;
        int64_t r1 = (int64_t)right * 1000003 + (iter * 3 + 201) * 7919 + i;
        if (p_in[0][i] != l0)
            fail("persistent standard message", i);
        if (p_in[1][i] != (i % 2 ? -1 : r1))
            fail("persistent strided synchronous message", i);
        if (p_in[2][i] != l0 + 2 * 7919)
            fail("persistent ready message", i);
    }
    if (iter == 2) {
        MPI_Request_free(&p_rq[1]);
        MPI_Request_free(&p_rq[4]);
        persist_vec_pair();
    }
}

void persist_free(void)
{
    for (int k = 0; k < 6; k++)
        MPI_Request_free(&p_rq[k]);
    MPI_Type_free(&p_every2);
    MPI_Comm_free(&p_dup);
}

/* MIG_MODE=pending: rank 6 attaches (on) or detaches (off) the buffer
 * its MPI_Bsend after each move uses. */
void pend_attach(int on)
{
    static char area[4096];
    void *b;
    int size;
    if (me != 6)
        return;
    if (on)
        MPI_Buffer_attach(area, sizeof area);
    else
        MPI_Buffer_detach(&b, &size);
}
