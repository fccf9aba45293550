/*
 * coll_api.c: the collective calls of the foundation (Barrier, Bcast,
 * Reduce, Allreduce) with their argument checks.
 */
#include "mpi_impl.h"

static int check_root(struct zmpi_comm *c, const char *fn, int root)
{
    if (root >= 0 && root < c->p.size)
        return MPI_SUCCESS;
    return zm_mpi_error(c, MPI_ERR_ROOT, fn, "(root=%d): invalid root, communicator %s has %d ranks",
                        root, c->name, c->p.size);
}

static int check_op(struct zmpi_comm *c, const char *fn, MPI_Op op, MPI_Datatype dt)
{
    if (!zm_op_valid(op))
        return zm_mpi_error(c, MPI_ERR_OP, fn, "(op=%s): invalid operation",
                            op == MPI_OP_NULL ? "MPI_OP_NULL" : "not an operation");
    if (!zm_op_defined(op, dt))
        return zm_mpi_error(c, MPI_ERR_OP, fn, "(op=%s): not defined for datatype %s", op->name,
                            dt->name);
    return MPI_SUCCESS;
}

static int coll_result(struct zmpi_comm *c, const char *fn, zm_status_t st)
{
    return st == ZM_OK ? MPI_SUCCESS : zm_mpi_error(c, zm_mpi_class_of(st), fn, "failed");
}

int PMPI_Barrier(MPI_Comm comm)
{
    const char *fn = "MPI_Barrier";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_p2p_self()->wait_call = fn;
    return coll_result(c, fn, zm_coll_barrier(&c->p));
}
ZM_WEAK(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Bcast";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_buf(c, fn, buffer, count, dt);
    if (rc == MPI_SUCCESS)
        rc = check_root(c, fn, root);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_p2p_self()->wait_call = fn;
    return coll_result(c, fn, zm_coll_bcast(&c->p, buffer, (size_t)count, dt, root));
}
ZM_WEAK(Bcast)

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                int root, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS)
        rc = check_root(c, fn, root);
    int at_root = rc == MPI_SUCCESS && c->p.rank == root;
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && !at_root)
        rc = zm_mpi_error(c, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only allowed at the root");
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_buf(c, fn, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, dt);
    if (rc == MPI_SUCCESS && at_root)
        rc = zm_mpi_check_buf(c, fn, recvbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = check_op(c, fn, op, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_p2p_self()->wait_call = fn;
    return coll_result(c, fn, zm_coll_reduce(&c->p, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                                             recvbuf, (size_t)count, dt, op, root));
}
ZM_WEAK(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    const char *fn = "MPI_Allreduce";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = zm_mpi_check_buf(c, fn, sendbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_buf(c, fn, recvbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = check_op(c, fn, op, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_p2p_self()->wait_call = fn;
    return coll_result(c, fn, zm_coll_allreduce(&c->p, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                                                recvbuf, (size_t)count, dt, op));
}
ZM_WEAK(Allreduce)
