/*
 * net_eager_info.c: the info key zmpi_net_eager_max (docs/net.md) sets
 * the network eager threshold of one communicator: a message to a rank of
 * another process goes eagerly up to it and by rendezvous above it, as the
 * MPI_T counters of the sending rank show; MPI_Comm_get_info returns it,
 * MPI_Comm_dup keeps it, MPI_Comm_dup_with_info without it drops it, and
 * a value that is not a byte count is ignored.  tests/net.cmake runs it as
 * 2 processes of one rank each, so that rank r + 1 is in the other
 * process and each process's counters are its one rank's.
 */
#include "zt.h"

static MPI_T_pvar_session sess;
static MPI_T_pvar_handle h_eager, h_rndv;

static MPI_T_pvar_handle counter(const char *name)
{
    int idx = -1, count = 0;
    MPI_T_pvar_handle h;
    ZT_OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
    ZT_OK(MPI_T_pvar_handle_alloc(sess, idx, NULL, &h, &count));
    ZT_OK(MPI_T_pvar_start(sess, h));
    return h;
}

static unsigned long long value(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    ZT_OK(MPI_T_pvar_read(sess, h, &v));
    return v;
}

/* Rank r sends `bytes` to r + 1 (another process) on c and receives from
 * r - 1; returns 1 if its send went by rendezvous, 0 if eagerly. */
static int went_rndv(MPI_Comm c, int r, int n, int bytes)
{
    char out[4096], in[4096];
    memset(out, r, sizeof(out));
    unsigned long long e0 = value(h_eager), r0 = value(h_rndv);
    MPI_Request req;
    ZT_OK(MPI_Irecv(in, bytes, MPI_BYTE, (r + n - 1) % n, 3, c, &req));
    ZT_OK(MPI_Send(out, bytes, MPI_BYTE, (r + 1) % n, 3, c));
    unsigned long long e1 = value(h_eager), r1 = value(h_rndv);
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    ZT_EQ(in[bytes - 1], (char)((r + n - 1) % n), "payload");
    ZT_CHECK(e1 - e0 + r1 - r0 == 1, "one message counted (eager %llu, rndv %llu)", e1 - e0,
             r1 - r0);
    return r1 - r0 == 1;
}

static void check_key(MPI_Comm c, const char *want)
{
    MPI_Info got;
    char v[64] = "";
    int len = sizeof(v), flag = 0;
    ZT_OK(MPI_Comm_get_info(c, &got));
    ZT_OK(MPI_Info_get_string(got, "zmpi_net_eager_max", &len, v, &flag));
    ZT_CHECK(want ? flag && strcmp(v, want) == 0 : !flag, "zmpi_net_eager_max is \"%s\" (%d)",
             v, flag);
    ZT_OK(MPI_Info_free(&got));
}

int main(int argc, char **argv)
{
    int r, n, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    ZT_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    ZT_OK(MPI_T_pvar_session_create(&sess));
    h_eager = counter("zmpi_p2p_eager_msgs");
    h_rndv = counter("zmpi_p2p_rndv_msgs");

    /* The job's default (16 KiB): 1000 bytes go eagerly. */
    ZT_EQ(went_rndv(MPI_COMM_WORLD, r, n, 1000), 0, "world, 1000 bytes");
    MPI_Info info;
    MPI_Comm c, d, e;
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "zmpi_net_eager_max", "512"));
    ZT_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    ZT_EQ(went_rndv(c, r, n, 512), 0, "threshold 512, 512 bytes");
    ZT_EQ(went_rndv(c, r, n, 513), 1, "threshold 512, 513 bytes");
    ZT_OK(MPI_Comm_dup(c, &d));
    ZT_EQ(went_rndv(d, r, n, 1000), 1, "its duplicate, 1000 bytes");
    /* Set on a communicator in use; a value that is no byte count is
     * ignored. */
    ZT_OK(MPI_Info_set(info, "zmpi_net_eager_max", "2048"));
    ZT_OK(MPI_Comm_set_info(d, info));
    ZT_EQ(went_rndv(d, r, n, 2048), 0, "set to 2048, 2048 bytes");
    ZT_OK(MPI_Info_set(info, "zmpi_net_eager_max", "lots"));
    ZT_OK(MPI_Comm_set_info(d, info));
    ZT_EQ(went_rndv(d, r, n, 2049), 1, "bad value ignored, 2049 bytes");
    /* Dup_with_info replaces the hints: back to the job's default. */
    ZT_OK(MPI_Info_delete(info, "zmpi_net_eager_max"));
    ZT_OK(MPI_Comm_dup_with_info(c, info, &e));
    ZT_EQ(went_rndv(e, r, n, 1000), 0, "dup_with_info without the key, 1000 bytes");
    ZT_EQ(went_rndv(MPI_COMM_WORLD, r, n, 1000), 0, "world unchanged");
    /* The keys as MPI_Comm_get_info returns them. */
    check_key(c, "512");
    check_key(d, "2048");
    check_key(e, NULL);

    ZT_OK(MPI_Info_free(&info));
    ZT_OK(MPI_Comm_free(&c));
    ZT_OK(MPI_Comm_free(&d));
    ZT_OK(MPI_Comm_free(&e));
    ZT_OK(MPI_T_pvar_session_free(&sess));
    ZT_OK(MPI_T_finalize());
    MPI_Finalize();
    return 0;
}
