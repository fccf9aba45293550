/*
 * net_io_agg.c: collective I/O aggregated across processes (docs/net.md,
 * "Files across processes"), checked byte for byte against a serial model
 * of the file and read back, with every rank's neighbours in another
 * process (zmpirun --interleave); it runs in one process too, where the
 * same results must come out of the in-process aggregation.
 *
 * - The strided pattern (rank r writes records r, r + P, ...) with and
 *   without holes between the groups of records (the holes keep what was
 *   in the file), under several hints: the defaults, cb_nodes=1, a small
 *   cb_buffer_size (many rounds), romio_cb_write / romio_cb_read disabled;
 *   and in atomic mode.
 * - Blocks of different sizes one after the other (MPI_File_write_at_all).
 * - external32 through a strided view of ints.
 * - System calls: an aggregated strided write and read take a handful of
 *   pwrite / pread calls per process (MPI_T variables zmpi_io_pwrites,
 *   zmpi_io_preads), while with collective buffering disabled every record
 *   is a call of its own.
 */
#include "io_util.h"

#define REC 48     /* bytes per record */
#define NREC 300   /* records per rank */
#define FILL 0xEE  /* the file's bytes before the collective write */

/* Byte j of global record g: never 0 and never FILL. */
static unsigned char rec_byte(long g, int j)
{
    return (unsigned char)((g * 7 + j) % 200 + 1);
}

/* An info object with the `n` key/value pairs of kv (MPI_INFO_NULL if n == 0). */
static MPI_Info make_info(const char *const *kv, int n)
{
    MPI_Info info = MPI_INFO_NULL;
    if (n == 0)
        return info;
    ZT_OK(MPI_Info_create(&info));
    for (int i = 0; i < n; i++)
        ZT_OK(MPI_Info_set(info, kv[2 * i], kv[2 * i + 1]));
    return info;
}

/* Rank 0 fills `bytes` bytes of the file with FILL (independent write). */
/* Free a check's record and file types, close its file and free its
 * info (MPI_INFO_NULL: none). */
static void release(MPI_Datatype *ft, MPI_Datatype *rec, MPI_File *fh, MPI_Info *info)
{
    ZT_OK(MPI_Type_free(ft));
    ZT_OK(MPI_Type_free(rec));
    ZT_OK(MPI_File_close(fh));
    if (*info != MPI_INFO_NULL)
        ZT_OK(MPI_Info_free(info));
}

static void prefill(MPI_File fh, int rank, long bytes)
{
    if (rank == 0) {
        unsigned char *f = zt_malloc((size_t)bytes);
        memset(f, FILL, (size_t)bytes);
        ZT_OK(MPI_File_write_at(fh, 0, f, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE));
        free(f);
    }
    ZT_OK(MPI_File_sync(fh));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* The strided pattern: groups of `group` record slots (size records plus
 * group - size holes), rank r writing slot r of every group. */
static void check_strided(const char *dir, int rank, int size, long nrec, int holes,
                          const char *const *kv, int nkv, int atomic, const char *tag)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "strided.dat");
    int group = size + holes;
    long fbytes = (long)nrec * group * REC;
    MPI_Info info = make_info(kv, nkv);
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    prefill(fh, rank, fbytes);
    MPI_Datatype rec, ft;
    ZT_OK(MPI_Type_contiguous(REC, MPI_BYTE, &rec));
    ZT_OK(MPI_Type_create_resized(rec, 0, (MPI_Aint)group * REC, &ft));
    ZT_OK(MPI_Type_commit(&ft));
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * REC, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    ZT_OK(MPI_File_set_atomicity(fh, atomic));
    unsigned char *buf = zt_malloc((size_t)nrec * REC);
    for (long k = 0; k < nrec; k++)
        for (int j = 0; j < REC; j++)
            buf[k * REC + j] = rec_byte(k * size + rank, j);
    MPI_Status st;
    ZT_OK(MPI_File_write_all(fh, buf, (int)(nrec * REC), MPI_BYTE, &st));
    int cnt = -1;
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    ZT_CHECK(cnt == (int)(nrec * REC), "%s: %d bytes written", tag, cnt);
    ZT_OK(MPI_File_sync(fh));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)fbytes);
        memset(want, FILL, (size_t)fbytes);
        for (long k = 0; k < nrec; k++)
            for (int r = 0; r < size; r++)
                for (int j = 0; j < REC; j++)
                    want[(k * group + r) * REC + j] = rec_byte(k * size + r, j);
        io_expect_file(path, want, fbytes);
        free(want);
    }
    /* Read back through the same view, from the start of the view. */
    unsigned char *back = zt_malloc((size_t)nrec * REC);
    memset(back, 0, (size_t)nrec * REC);
    ZT_OK(MPI_File_read_at_all(fh, 0, back, (int)(nrec * REC), MPI_BYTE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    ZT_CHECK(cnt == (int)(nrec * REC), "%s: %d bytes read", tag, cnt);
    for (long i = 0; i < (long)nrec * REC; i++)
        if (back[i] != buf[i])
            ZT_CHECK(0, "%s: rank %d read byte %ld = %d, wrote %d", tag, rank, i, back[i],
                     buf[i]);
    free(back);
    free(buf);
    release(&ft, &rec, &fh, &info);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        ZT_OK(MPI_File_delete(path, MPI_INFO_NULL));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Blocks (rank r: base + step r bytes) one after the other, written and
 * read at explicit offsets.  Blocks of 1 MiB each lie in one domain per
 * process when every process holds one rank: no bytes then travel between
 * processes. */
static void check_blocks(const char *dir, int rank, int size, long base, long step)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "blocks.dat");
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    long n = base + step * rank, total = 0;
    for (int r = 0; r < size; r++)
        total += base + step * r;
    long at = 0;
    for (int r = 0; r < rank; r++)
        at += base + step * r;
    unsigned char *buf = zt_malloc((size_t)n), *back = zt_malloc((size_t)n);
    for (long i = 0; i < n; i++)
        buf[i] = rec_byte(at + i, 3);
    ZT_OK(MPI_File_write_at_all(fh, at, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_sync(fh));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)total);
        for (long i = 0; i < total; i++)
            want[i] = rec_byte(i, 3);
        io_expect_file(path, want, total);
        free(want);
    }
    memset(back, 0, (size_t)n);
    ZT_OK(MPI_File_read_at_all(fh, at, back, (int)n, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_CHECK(memcmp(back, buf, (size_t)n) == 0, "rank %d: block read back differs", rank);
    free(buf);
    free(back);
    ZT_OK(MPI_File_close(&fh));
}

/* external32: ints through a strided view (8 ints per record, rank r's
 * records interleaved), stored big-endian. */
static void check_ext32(const char *dir, int rank, int size)
{
    enum { RI = 8, NR = 100 };
    char path[IO_PATH_MAX];
    io_path(path, dir, "ext32.dat");
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    MPI_Datatype rec, ft;
    ZT_OK(MPI_Type_contiguous(RI, MPI_INT, &rec));
    ZT_OK(MPI_Type_create_resized(rec, 0, (MPI_Aint)size * RI * 4, &ft));
    ZT_OK(MPI_Type_commit(&ft));
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * RI * 4, MPI_INT, ft, "external32",
                            MPI_INFO_NULL));
    int *v = zt_malloc(sizeof(int) * RI * NR), *back = zt_malloc(sizeof(int) * RI * NR);
    for (int k = 0; k < NR; k++)
        for (int j = 0; j < RI; j++)
            v[k * RI + j] = -((k * size + rank) * 1000 + j) * 65537;
    ZT_OK(MPI_File_write_all(fh, v, RI * NR, MPI_INT, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_sync(fh));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        long bytes = 4L * RI * NR * size;
        unsigned char *want = zt_malloc((size_t)bytes);
        for (long g = 0; g < (long)NR * size; g++)
            for (int j = 0; j < RI; j++) {
                uint32_t x = (uint32_t)(-((int)g * 1000 + j) * 65537);
                unsigned char *w = want + 4 * (g * RI + j);
                w[0] = (unsigned char)(x >> 24);
                w[1] = (unsigned char)(x >> 16);
                w[2] = (unsigned char)(x >> 8);
                w[3] = (unsigned char)x;
            }
        io_expect_file(path, want, bytes);
        free(want);
    }
    memset(back, 0, sizeof(int) * RI * NR);
    ZT_OK(MPI_File_read_at_all(fh, 0, back, RI * NR, MPI_INT, MPI_STATUS_IGNORE));
    ZT_CHECK(memcmp(back, v, sizeof(int) * RI * NR) == 0, "rank %d: external32 read back "
             "differs", rank);
    free(v);
    free(back);
    ZT_OK(MPI_Type_free(&ft));
    ZT_OK(MPI_Type_free(&rec));
    ZT_OK(MPI_File_close(&fh));
}

/* The value of MPI_T performance variable `name` (a process-wide counter). */
static unsigned long long pvar(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    ZT_OK(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* The largest over all ranks of the pwrite and pread calls its process
 * made during one collective strided write and read of NREC records per
 * rank with the hints kv (w[0], w[1]). */
static void count_calls(const char *dir, int rank, int size, const char *const *kv, int nkv,
                        unsigned long long w[2])
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hw, hr;
    int iw, ir, count;
    ZT_OK(MPI_T_pvar_get_index("zmpi_io_pwrites", MPI_T_PVAR_CLASS_COUNTER, &iw));
    ZT_OK(MPI_T_pvar_get_index("zmpi_io_preads", MPI_T_PVAR_CLASS_COUNTER, &ir));
    ZT_OK(MPI_T_pvar_session_create(&s));
    ZT_OK(MPI_T_pvar_handle_alloc(s, iw, NULL, &hw, &count));
    ZT_OK(MPI_T_pvar_handle_alloc(s, ir, NULL, &hr, &count));
    char path[IO_PATH_MAX];
    io_path(path, dir, "count.dat");
    MPI_Info info = make_info(kv, nkv);
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Datatype rec, ft;
    ZT_OK(MPI_Type_contiguous(REC, MPI_BYTE, &rec));
    ZT_OK(MPI_Type_create_resized(rec, 0, (MPI_Aint)size * REC, &ft));
    ZT_OK(MPI_Type_commit(&ft));
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * REC, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned char *buf = zt_malloc((size_t)NREC * REC);
    memset(buf, rank + 1, (size_t)NREC * REC);
    unsigned long long d[2], w0 = pvar(s, hw);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_File_write_all(fh, buf, NREC * REC, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    d[0] = pvar(s, hw) - w0;
    unsigned long long r0 = pvar(s, hr);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_File_read_at_all(fh, 0, buf, NREC * REC, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    d[1] = pvar(s, hr) - r0;
    for (int i = 0; i < NREC * REC; i++)
        ZT_CHECK(buf[i] == rank + 1, "rank %d: byte %d read back as %d", rank, i, buf[i]);
    ZT_OK(MPI_Allreduce(d, w, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
    free(buf);
    release(&ft, &rec, &fh, &info);
    ZT_OK(MPI_T_pvar_handle_free(s, &hw));
    ZT_OK(MPI_T_pvar_handle_free(s, &hr));
    ZT_OK(MPI_T_pvar_session_free(&s));
}

static void check_calls(const char *dir, int rank, int size)
{
    static const char *const off[] = { "romio_cb_write", "disable", "romio_cb_read", "disable" };
    unsigned long long agg[2], indep[2];
    count_calls(dir, rank, size, NULL, 0, agg);
    count_calls(dir, rank, size, off, 2, indep);
    /* The whole region (NREC * size records) is below cb_buffer_size and
     * covered without a hole: one aggregator, one or two calls. */
    ZT_CHECK(agg[0] <= 2 && agg[1] <= 2, "aggregated strided access took %llu pwrite and %llu "
             "pread calls in one process", agg[0], agg[1]);
    if (rank == 0)
        printf("net_io_agg: calls per process: aggregated %llu pwrite, %llu pread; "
               "independent %llu pwrite, %llu pread\n", agg[0], agg[1], indep[0], indep[1]);
    /* Without collective buffering each record is a call (one rank's
     * records are contiguous): the counters do count. */
    ZT_CHECK(size == 1 || (indep[0] >= NREC && indep[1] >= NREC), "independent strided "
             "access took %llu pwrite and %llu pread calls in one process (at least %d "
             "expected)", indep[0], indep[1], NREC);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    ZT_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    char dir[IO_PATH_MAX];
    io_tmpdir(MPI_COMM_WORLD, dir);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    static const char *const one[] = { "cb_nodes", "1" };
    static const char *const small[] = { "cb_buffer_size", "4096" };
    static const char *const mid[] = { "cb_buffer_size", "65536" };
    static const char *const noagg[] = { "romio_cb_write", "disable", "romio_cb_read",
                                         "disable" };
    /* Large: a region of several MiB, so one domain per process, and with
     * a small cb_buffer_size many rounds. */
    long large = (3L << 20) / ((long)size * REC) + 1;
    for (int holes = 0; holes <= 2; holes += 2) {
        check_strided(dir, rank, size, NREC, holes, NULL, 0, 0, holes ? "holes" : "strided");
        check_strided(dir, rank, size, NREC, holes, one, 1, 0, holes ? "holes, cb_nodes=1"
                                                                  : "cb_nodes=1");
        check_strided(dir, rank, size, NREC, holes, small, 1, 0,
                      holes ? "holes, cb_buffer_size=4096" : "cb_buffer_size=4096");
        check_strided(dir, rank, size, NREC, holes, noagg, 2, 0, holes ? "holes, cb disabled"
                                                                    : "cb disabled");
        check_strided(dir, rank, size, large, holes, NULL, 0, 0, holes ? "large, holes" : "large");
        check_strided(dir, rank, size, large, holes, mid, 1, 0, holes ? "large, holes, 64 KiB"
                                                                   : "large, 64 KiB");
        check_strided(dir, rank, size, NREC, holes, NULL, 0, 1, holes ? "atomic, holes"
                                                                      : "atomic");
    }
    check_blocks(dir, rank, size, 3000, 517);
    check_blocks(dir, rank, size, 1L << 20, 0);
    check_ext32(dir, rank, size);
    check_calls(dir, rank, size);
    io_rmdir(MPI_COMM_WORLD, dir);
    ZT_OK(MPI_T_finalize());
    if (rank == 0)
        printf("net_io_agg: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
