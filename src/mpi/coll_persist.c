/*
 * coll_persist.c: persistent collectives (MPI 4.1 section 6.13),
 * MPI_Barrier_init ... MPI_Exscan_init.
 *
 * Init checks every argument once, with the blocking call's checks
 * (zm_mpi_coll_cbuild, coll_build.c), and hands the argument block to the coll layer
 * (zm_coll_pinit), which keeps every rank's arguments in one shared
 * instance for the life of the request.  A start then only counts
 * arrivals (and copies the caller's data again only where the operation
 * needs a temporary copy: in place, derived types in reductions); the last
 * rank to start a round runs all parts and completes every rank's request
 * (zm_coll_pstart), so a round needs no allocation, no lock and no
 * argument copy.
 *
 * The request is a composite request (sched.c) with one child: the
 * coll layer completes the child, and the request's wait, test, start,
 * and free paths are the schedule's.  The buffers stay the user's; the
 * count, displacement and type arrays are copied at init (bindings such as
 * mpi4py pass temporary arrays), and the datatypes are held, so the user
 * may free them.
 *
 * On an intercommunicator the non-blocking code (inter_coll.c) builds the
 * schedule of messages once, under zm_mpi_sched_capture, and MPI_Start
 * runs it again each time, its finishing step (a reduction's) included.
 */
#include "large.h"
#include "inter_impl.h"

#include <stdlib.h>
#include <string.h>

/* One rank's side of a persistent collective (the schedule's scratch). */
struct pcoll {
    zm_coll_pers_t *x;          /* the shared instance */
    int me;                     /* the caller's rank in the communicator */
    int n;                      /* ranks */
    zm_req_t *kid;              /* completed by the rank that runs a round */
    zm_coll_args_t a;           /* the arguments, for the types to release */
    void *arrays;               /* copies of the call's arrays (pc_copy_arrays) */
};

static int pc_start(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct pcoll *p = arg;
    zm_coll_pstart(p->x, p->me);
    return MPI_SUCCESS;
}

/* Hold (hold = 1) or release the derived datatypes of the arguments. */
static void pc_type(const zm_dt_t *t, int hold)
{
    if (t && t->d)
        hold ? zm_dt_retain(t) : zm_dt_release(t);
}

static void pc_types(const zm_coll_args_t *a, int n, int hold)
{
    pc_type(a->sdt, hold);
    pc_type(a->rdt, hold);
    for (int i = 0; a->sdts && i < n; i++)
        pc_type(a->sdts[i], hold);
    for (int i = 0; a->rdts && i < n; i++)
        pc_type(a->rdts[i], hold);
}

static void pc_release(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct pcoll *p = arg;
    if (p->x)
        zm_coll_pfree(p->x, p->me);
    pc_types(&p->a, p->n, 0);
    free(p->arrays);
}

/* Point k's count, displacement and type arrays (n entries each) at copies
 * in one block, returned in *block (NULL when k has none).  Returns 0, or
 * -1 if out of memory. */
static int pc_copy_arrays(zm_mpi_ccall_t *k, int n, void **block)
{
    const void **ints[] = { &k->scounts, &k->sdispls, &k->rcounts, &k->rdispls };
    size_t w = k->wide ? sizeof(int64_t) : sizeof(int); /* the arrays' width */
    const MPI_Datatype **types[] = { &k->sdts, &k->rdts };
    size_t nint = 0, ntype = 0;
    for (int i = 0; i < 4; i++)
        nint += *ints[i] != NULL;
    for (int i = 0; i < 2; i++)
        ntype += *types[i] != NULL;
    *block = NULL;
    if (nint + ntype == 0)
        return 0;
    MPI_Datatype *t = malloc((ntype * sizeof(MPI_Datatype) + nint * w) * (size_t)n);
    if (!t)
        return -1;
    *block = t;
    for (int i = 0; i < 2; i++) {
        if (!*types[i])
            continue;
        memcpy(t, *types[i], sizeof(MPI_Datatype) * (size_t)n);
        *types[i] = t;
        t += n;
    }
    char *v = (char *)t;
    for (int i = 0; i < 4; i++) {
        if (!*ints[i])
            continue;
        memcpy(v, *ints[i], w * (size_t)n);
        *ints[i] = v;
        v += w * (size_t)n;
    }
    return 0;
}

static const zm_mpi_sched_hooks_t pc_hooks = { pc_start, NULL, NULL, pc_release, NULL };

/* Build call k on intercommunicator c through its non-blocking form,
 * captured unstarted as a persistent request. */
static int pinit_inter(struct zmpi_comm *c, const char *fn, MPI_Comm h, const zm_mpi_ccall_t *k,
                       MPI_Request *request)
{
    zm_mpi_sched_capture(1);
    int rc = zm_mpi_coll_inter(c, fn, h, k, request);
    /* A call that failed before starting its schedule left the mode on. */
    zm_mpi_sched_capture(0);
    return rc;
}

/* Check the common arguments and the call's own, then make the request. */
int zm_mpi_coll_pinit(const char *fn, MPI_Comm comm, MPI_Info info, const zm_mpi_ccall_t *k,
                      MPI_Request *request)
{
    ENTER_COMM(fn, comm, c);
    /* No hint changes anything yet; a given info object must be valid. */
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    if (!request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    if (c->inter)
        return pinit_inter(c, fn, comm, k, request);
    zm_coll_args_t a;
    zm_mpi_ccall_t kc = *k;
    void *arrays;
    if (pc_copy_arrays(&kc, c->p.size, &arrays) != 0)
        goto err_nomem;
    if ((rc = zm_mpi_coll_cbuild(c, fn, &kc, &a)) != MPI_SUCCESS) {
        free(arrays);
        return rc;
    }
    zm_coll_shm_t *shm = zm_mpi_coll_shm(c);
    zm_mpi_sched_t *s = shm ? zm_mpi_sched_new(c, comm, 1, sizeof(struct pcoll)) : NULL;
    struct pcoll *p = s ? zm_mpi_sched_scratch(s) : NULL;
    if (!p) {
        free(arrays);
        goto err_nomem;
    }
    *p = (struct pcoll){ NULL, c->p.rank, c->p.size, NULL, a, arrays };
    zm_mpi_sched_set_hooks(s, &pc_hooks, p);
    pc_types(&a, p->n, 1);
    if (zm_mpi_sched_child(s, &p->kid) != MPI_SUCCESS)
        goto err_free;
    p->kid->pcomm = &c->p;
    zm_status_t st = zm_coll_pinit(shm, c->p.rank, &a, p->kid, &p->x);
    if (st == ZM_COLL_ERR_KIND) {
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, MPI_ERR_NOT_SAME, fn, "another rank of communicator %s started "
                            "a non-blocking collective where this rank made a persistent one",
                            c->name);
    }
    if (st != ZM_OK)
        goto err_free;
    *request = zm_mpi_sched_request(s, 1);
    return MPI_SUCCESS;
err_free:
    zm_mpi_sched_free(s);
err_nomem:
    return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the request");
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_BARRIER };
    return zm_mpi_coll_pinit("MPI_Barrier_init", comm, info, &k, request);
}
ZM_WEAK(Barrier_init)

int PMPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_BCAST, .root = root, .rbuf = buf,
                             .rcount = count, .rdt = dt };
    return zm_mpi_coll_pinit("MPI_Bcast_init", comm, info, &k, request);
}
ZM_WEAK(Bcast_init)

int PMPI_Gather_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                     MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_GATHER, .root = root, .sbuf = sbuf,
                             .scount = scount, .sdt = sdt, .rbuf = rbuf, .rcount = rcount,
                             .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Gather_init", comm, info, &k, request);
}
ZM_WEAK(Gather_init)

int PMPI_Gatherv_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_GATHERV, .root = root, .sbuf = sbuf,
                             .scount = scount, .sdt = sdt, .rbuf = rbuf, .rcounts = rcounts,
                             .rdispls = displs, .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Gatherv_init", comm, info, &k, request);
}
ZM_WEAK(Gatherv_init)

int PMPI_Scatter_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                      MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_SCATTER, .root = root, .sbuf = sbuf,
                             .scount = scount, .sdt = sdt, .rbuf = rbuf, .rcount = rcount,
                             .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Scatter_init", comm, info, &k, request);
}
ZM_WEAK(Scatter_init)

int PMPI_Scatterv_init(const void *sbuf, const int scounts[], const int displs[],
                       MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_SCATTERV, .root = root, .sbuf = sbuf,
                             .scounts = scounts, .sdispls = displs, .sdt = sdt, .rbuf = rbuf,
                             .rcount = rcount, .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Scatterv_init", comm, info, &k, request);
}
ZM_WEAK(Scatterv_init)

int PMPI_Allgather_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_ALLGATHER, .sbuf = sbuf, .scount = scount,
                             .sdt = sdt, .rbuf = rbuf, .rcount = rcount, .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Allgather_init", comm, info, &k, request);
}
ZM_WEAK(Allgather_init)

int PMPI_Allgatherv_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                         const int rcounts[], const int displs[], MPI_Datatype rdt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_ALLGATHERV, .sbuf = sbuf, .scount = scount,
                             .sdt = sdt, .rbuf = rbuf, .rcounts = rcounts, .rdispls = displs,
                             .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Allgatherv_init", comm, info, &k, request);
}
ZM_WEAK(Allgatherv_init)

int PMPI_Alltoall_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_ALLTOALL, .sbuf = sbuf, .scount = scount,
                             .sdt = sdt, .rbuf = rbuf, .rcount = rcount, .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Alltoall_init", comm, info, &k, request);
}
ZM_WEAK(Alltoall_init)

int PMPI_Alltoallv_init(const void *sbuf, const int scounts[], const int sdispls[],
                        MPI_Datatype sdt, void *rbuf, const int rcounts[], const int rdispls[],
                        MPI_Datatype rdt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_ALLTOALLV, .sbuf = sbuf, .scounts = scounts,
                             .sdispls = sdispls, .sdt = sdt, .rbuf = rbuf, .rcounts = rcounts,
                             .rdispls = rdispls, .rdt = rdt };
    return zm_mpi_coll_pinit("MPI_Alltoallv_init", comm, info, &k, request);
}
ZM_WEAK(Alltoallv_init)

int PMPI_Alltoallw_init(const void *sbuf, const int scounts[], const int sdispls[],
                        const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                        const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = ZM_COLL_ALLTOALLW, .sbuf = sbuf, .scounts = scounts,
                             .sdispls = sdispls, .sdts = sdts, .rbuf = rbuf,
                             .rcounts = rcounts, .rdispls = rdispls, .rdts = rdts };
    return zm_mpi_coll_pinit("MPI_Alltoallw_init", comm, info, &k, request);
}
ZM_WEAK(Alltoallw_init)

/* The reductions share one shape: (sbuf, rbuf, count or counts, dt, op). */
static int red_init(const char *fn, int kind, const void *sbuf, void *rbuf, MPI_Count count,
                    const int *rcounts, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    zm_mpi_ccall_t k = { .kind = kind, .root = root, .sbuf = sbuf, .rbuf = rbuf,
                             .rcount = count, .rcounts = rcounts, .rdt = dt, .op = op };
    return zm_mpi_coll_pinit(fn, comm, info, &k, request);
}

int PMPI_Reduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return red_init("MPI_Reduce_init", ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op, root,
                    comm, info, request);
}
ZM_WEAK(Reduce_init)

int PMPI_Allreduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return red_init("MPI_Allreduce_init", ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op, 0,
                    comm, info, request);
}
ZM_WEAK(Allreduce_init)

int PMPI_Reduce_scatter_init(const void *sbuf, void *rbuf, const int rcounts[],
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    return red_init("MPI_Reduce_scatter_init", ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts,
                    dt, op, 0, comm, info, request);
}
ZM_WEAK(Reduce_scatter_init)

int PMPI_Reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    return red_init("MPI_Reduce_scatter_block_init", ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf,
                    rcount, NULL, dt, op, 0, comm, info, request);
}
ZM_WEAK(Reduce_scatter_block_init)

int PMPI_Scan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return red_init("MPI_Scan_init", ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0, comm,
                    info, request);
}
ZM_WEAK(Scan_init)

int PMPI_Exscan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return red_init("MPI_Exscan_init", ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0, comm,
                    info, request);
}
ZM_WEAK(Exscan_init)
