/*
 * part_errors.c: wrong uses of partitioned communication under
 * MPI_ERRORS_RETURN: each must fail with the right error class and leave
 * the operation usable (a correct round follows).  With argv[1] = "fatal"
 * it instead readies a partition twice under MPI_ERRORS_ARE_FATAL, which
 * must end the job with a message (checked by tests/expect_fail.sh).
 */
#include "zt.h"

#define EXPECT(call, cls) ZT_EQ(zt_err_class(call), (cls), #call)

/* Argument checks of the inits. */
static void bad_inits(int size)
{
    int buf[16];
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    EXPECT(MPI_Psend_init(buf, -1, 1, MPI_INT, 0, 0, w, MPI_INFO_NULL, &r), MPI_ERR_ARG);
    EXPECT(MPI_Psend_init(buf, 2, -1, MPI_INT, 0, 0, w, MPI_INFO_NULL, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Psend_init(buf, 2, 1, MPI_DATATYPE_NULL, 0, 0, w, MPI_INFO_NULL, &r),
           MPI_ERR_TYPE);
    EXPECT(MPI_Psend_init(buf, 2, 1, MPI_INT, size, 0, w, MPI_INFO_NULL, &r), MPI_ERR_RANK);
    EXPECT(MPI_Psend_init(buf, 2, 1, MPI_INT, 0, -5, w, MPI_INFO_NULL, &r), MPI_ERR_TAG);
    EXPECT(MPI_Psend_init(buf, 2, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_INFO_NULL, &r),
           MPI_ERR_COMM);
    EXPECT(MPI_Psend_init(buf, 2, 1, MPI_INT, 0, 0, w, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Precv_init(buf, 2, 1, MPI_INT, MPI_ANY_SOURCE, 0, w, MPI_INFO_NULL, &r),
           MPI_ERR_RANK);
    EXPECT(MPI_Precv_init(buf, 2, 1, MPI_INT, 0, MPI_ANY_TAG, w, MPI_INFO_NULL, &r),
           MPI_ERR_TAG);
    ZT_CHECK(r == MPI_REQUEST_NULL, "a failed init made a request");
}

/* Misuse of Pready/Parrived on a pair on MPI_COMM_SELF. */
static void bad_ready(void)
{
    int s[8], d[8];
    MPI_Request r[2], plain;
    MPI_Comm self = MPI_COMM_SELF;
    ZT_OK(MPI_Psend_init(s, 4, 2, MPI_INT, 0, 1, self, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Precv_init(d, 2, 4, MPI_INT, 0, 1, self, MPI_INFO_NULL, &r[1]));
    EXPECT(MPI_Pready(0, r[0]), MPI_ERR_REQUEST);          /* not started */
    ZT_OK(MPI_Startall(2, r));
    EXPECT(MPI_Pready(4, r[0]), MPI_ERR_ARG);              /* out of range */
    EXPECT(MPI_Pready(-1, r[0]), MPI_ERR_ARG);
    EXPECT(MPI_Pready(0, r[1]), MPI_ERR_REQUEST);          /* a receive */
    EXPECT(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    int flag = -1;
    EXPECT(MPI_Parrived(r[0], 0, &flag), MPI_ERR_REQUEST); /* a send */
    EXPECT(MPI_Parrived(r[1], 2, &flag), MPI_ERR_ARG);
    EXPECT(MPI_Parrived(r[1], 0, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Pready_range(2, 1, r[0]), MPI_ERR_ARG);
    EXPECT(MPI_Pready_range(2, 4, r[0]), MPI_ERR_ARG);
    int dup[2] = { 1, 1 };
    EXPECT(MPI_Pready_list(2, dup, r[0]), MPI_ERR_ARG);
    ZT_OK(MPI_Parrived(r[1], 0, &flag));
    ZT_EQ(flag, 0, "nothing readied by the failed calls");
    for (int i = 0; i < 8; i++)
        s[i] = 10 + i;
    ZT_OK(MPI_Pready(1, r[0]));
    EXPECT(MPI_Pready(1, r[0]), MPI_ERR_ARG);              /* twice in one round */
    EXPECT(MPI_Pready_range(0, 1, r[0]), MPI_ERR_ARG);
    ZT_OK(MPI_Pready_range(2, 3, r[0]));
    ZT_OK(MPI_Parrived(r[1], 1, &flag));
    ZT_EQ(flag, 1, "second receive partition (send partitions 2, 3)");
    ZT_OK(MPI_Parrived(r[1], 0, &flag));
    ZT_EQ(flag, 0, "first receive partition lacks send partition 0");
    ZT_OK(MPI_Pready(0, r[0]));
    ZT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 8; i++)
        ZT_EQ(d[i], 10 + i, "data after the errors");
    EXPECT(MPI_Pready(0, r[0]), MPI_ERR_REQUEST);          /* completed: inactive */
    /* A plain persistent request is no partitioned one. */
    ZT_OK(MPI_Send_init(s, 1, MPI_INT, 0, 9, self, &plain));
    EXPECT(MPI_Pready(0, plain), MPI_ERR_REQUEST);
    MPI_Request_free(&plain);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

/* Sizes that differ: the second init fails, the first side's rounds fail. */
static void bad_sizes(void)
{
    int s[10], d[10];
    MPI_Request snd, rcv = MPI_REQUEST_NULL;
    ZT_OK(MPI_Psend_init(s, 5, 2, MPI_INT, 0, 4, MPI_COMM_SELF, MPI_INFO_NULL, &snd));
    EXPECT(MPI_Precv_init(d, 4, 2, MPI_INT, 0, 4, MPI_COMM_SELF, MPI_INFO_NULL, &rcv),
           MPI_ERR_TRUNCATE);
    ZT_CHECK(rcv == MPI_REQUEST_NULL, "failed init made a request");
    ZT_OK(MPI_Start(&snd));
    EXPECT(MPI_Pready(0, snd), MPI_ERR_TRUNCATE);
    ZT_CHECK(MPI_Wait(&snd, MPI_STATUS_IGNORE) != MPI_SUCCESS, "mismatched send completed");
    MPI_Request_free(&snd);
    /* A receive first, then a larger send. */
    ZT_OK(MPI_Precv_init(d, 2, 3, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_INFO_NULL, &rcv));
    EXPECT(MPI_Psend_init(s, 7, 1, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_INFO_NULL, &snd),
           MPI_ERR_TRUNCATE);
    ZT_OK(MPI_Start(&rcv));
    EXPECT(MPI_Wait(&rcv, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
    MPI_Request_free(&rcv);
}

int main(int argc, char **argv)
{
    int rank, size;
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        int s[4], d[4];
        MPI_Request r[2];
        ZT_OK(MPI_Init(&argc, &argv));
        MPI_Psend_init(s, 2, 2, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_INFO_NULL, &r[0]);
        MPI_Precv_init(d, 2, 2, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_INFO_NULL, &r[1]);
        MPI_Startall(2, r);
        MPI_Pready(1, r[0]);
        MPI_Pready(1, r[0]);
        fprintf(stderr, "part_errors: readying twice was not reported\n");
        MPI_Finalize();
        return 3;
    }
    zt_init_errors_return(&argc, &argv, &rank, &size);
    bad_inits(size);
    bad_ready();
    bad_sizes();
    MPI_Finalize();
    return 0;
}
