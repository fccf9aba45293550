/* isort: parallel integer bucket sort.
 *
 * N random keys in [0, 2^B) are spread over the ranks in blocks.  Every
 * iteration sorts them: each rank counts how many of its keys fall into the
 * key range of every rank (rank r owns [r 2^B / P, (r + 1) 2^B / P)),
 * the ranks trade those counts with MPI_Alltoall, pack their keys by
 * destination, trade the keys with MPI_Alltoallv, and sort what they
 * received with a least-significant-digit radix sort: the pattern of the
 * NAS IS kernel.  The keys are a fixed function of their global index, so
 * every rank count sorts the same set.
 *
 * Checks, after the last iteration (the program fails if one does not
 * hold): every rank's keys are in ascending order and inside its range;
 * the last key of each rank is at most the first of the next non-empty
 * one; the ranks together hold N keys; and an order-independent checksum
 * of all keys (the sum of a 64-bit mix of each key) equals that of the
 * unsorted keys, so no key was lost, duplicated or changed.
 *
 * Usage: isort [-keys N] [-bits B] [-iters K]
 *   -keys N   keys in total (default 4194304)
 *   -bits B   keys lie in [0, 2^B), 1 <= B <= 30 (default 24)
 *   -iters K  timed sorts, after one untimed warm-up sort (default 10)
 * Rank 0 prints one line "isort: ranks P keys N bits B iters K time_s T
 * us_per_iter U ... check OK"; comm_us_per_iter is the slowest rank's time
 * in the two collectives.  The exit status is 0 when every check passed.
 * Plain MPI: it builds with any MPI's mpicc.  No mutable globals (zmpi
 * ranks are threads of one process).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Bits sorted per radix pass. */
#define DIGIT_BITS 8
#define DIGITS (1 << DIGIT_BITS)

/* Options; the same in every rank. */
struct opts {
    long keys; /* Keys in total. */
    int bits;  /* Keys lie in [0, 2^bits). */
    int iters; /* Timed sorts. */
};

/* One rank's state.  The count and displacement arrays have one entry per
 * rank. */
struct sorter {
    int rank, size;
    long nloc;            /* Keys this rank starts with. */
    int *keys;            /* Its unsorted keys (never changed). */
    int *sbuf;            /* Keys packed by destination. */
    int *rbuf, *tmp;      /* Received keys, sorted in place via tmp. */
    long rcap;            /* Capacity of rbuf and tmp, in keys. */
    long nrecv;           /* Keys received in the last sort. */
    int *scount, *sdispl, *rcount, *rdispl, *fill;
    double tcomm;         /* Seconds spent in the collectives. */
};

/* Reads the options; returns 0, or -1 after rank 0 printed the usage. */
static int parse_opts(int argc, char **argv, int rank, struct opts *o)
{
    int ok = 1;
    o->keys = 4194304;
    o->bits = 24;
    o->iters = 10;
    for (int i = 1; i < argc && ok; i++) {
        if (i + 1 >= argc)
            ok = 0;
        else if (strcmp(argv[i], "-keys") == 0)
            o->keys = atol(argv[++i]);
        else if (strcmp(argv[i], "-bits") == 0)
            o->bits = atoi(argv[++i]);
        else if (strcmp(argv[i], "-iters") == 0)
            o->iters = atoi(argv[++i]);
        else
            ok = 0;
    }
    /* Counts and displacements are ints: at most 2^31 - 1 keys. */
    if (ok && o->keys > 0 && o->keys <= 2147483647L && o->bits >= 1 &&
        o->bits <= 30 && o->iters > 0)
        return 0;
    if (rank == 0)
        fprintf(stderr, "usage: isort [-keys N] [-bits B] [-iters K]\n");
    return -1;
}

/* The key with global index i: a 64-bit mix of i, cut to bits bits. */
static int key_of(long i, int bits)
{
    uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    return (int)(h >> (64 - bits));
}

/* The checksum term of one key: a 64-bit mix, so that summing the terms
 * gives a checksum that no likely change of the multiset keeps. */
static uint64_t key_mix(int key)
{
    uint64_t h = (uint64_t)(unsigned)key + 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

/* First key of rank r's range. */
static int range_lo(int r, int size, int bits)
{
    return (int)(((int64_t)r << bits) / size + ((((int64_t)r << bits) % size) != 0));
}

/* Allocates a rank's buffers and makes its keys; returns 0 or -1 when
 * memory runs out. */
static int sorter_create(struct sorter *s, const struct opts *o)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    long base = o->keys / s->size, extra = o->keys % s->size;
    long first = s->rank * base + (s->rank < extra ? s->rank : extra);
    s->nloc = base + (s->rank < extra ? 1 : 0);
    /* Room for twice the average share; sort() grows it if a rank gets
     * more. */
    s->rcap = 2 * (base + 1) + 64;
    s->keys = malloc((size_t)(s->nloc + 1) * sizeof(int));
    s->sbuf = malloc((size_t)(s->nloc + 1) * sizeof(int));
    s->rbuf = malloc((size_t)s->rcap * sizeof(int));
    s->tmp = malloc((size_t)s->rcap * sizeof(int));
    int *arrays = malloc((size_t)s->size * 5 * sizeof(int));
    if (s->keys == NULL || s->sbuf == NULL || s->rbuf == NULL ||
        s->tmp == NULL || arrays == NULL)
        return -1;
    s->scount = arrays;
    s->sdispl = arrays + s->size;
    s->rcount = arrays + 2 * s->size;
    s->rdispl = arrays + 3 * s->size;
    s->fill = arrays + 4 * s->size;
    for (long i = 0; i < s->nloc; i++)
        s->keys[i] = key_of(first + i, o->bits);
    s->nrecv = 0;
    s->tcomm = 0.0;
    return 0;
}

/* Frees what sorter_create allocated. */
static void sorter_destroy(struct sorter *s)
{
    free(s->keys);
    free(s->sbuf);
    free(s->rbuf);
    free(s->tmp);
    free(s->scount);
}

/* Sorts the n keys of a (all in [lo, lo + width)) ascending, using tmp as
 * scratch, and returns where the result ended: a or tmp. */
static int *radix_sort(int *a, int *tmp, long n, int lo, int width)
{
    long count[DIGITS];
    for (int shift = 0; shift == 0 || (shift < 31 && (width - 1) >> shift > 0);
         shift += DIGIT_BITS) {
        memset(count, 0, sizeof(count));
        for (long i = 0; i < n; i++)
            count[((a[i] - lo) >> shift) & (DIGITS - 1)]++;
        long sum = 0;
        for (int d = 0; d < DIGITS; d++) {
            long c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (long i = 0; i < n; i++)
            tmp[count[((a[i] - lo) >> shift) & (DIGITS - 1)]++] = a[i];
        int *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* Trades the keys: counts, Alltoall, packing, Alltoallv.  Returns 0, or -1
 * when a larger receive buffer cannot be had. */
static int exchange(struct sorter *s, int bits)
{
    int p = s->size;
    memset(s->scount, 0, (size_t)p * sizeof(int));
    for (long i = 0; i < s->nloc; i++)
        s->scount[((int64_t)s->keys[i] * p) >> bits]++;
    double t0 = MPI_Wtime();
    MPI_Alltoall(s->scount, 1, MPI_INT, s->rcount, 1, MPI_INT, MPI_COMM_WORLD);
    s->tcomm += MPI_Wtime() - t0;
    long sd = 0, rd = 0;
    for (int r = 0; r < p; r++) {
        s->sdispl[r] = (int)sd;
        s->fill[r] = (int)sd;
        s->rdispl[r] = (int)rd;
        sd += s->scount[r];
        rd += s->rcount[r];
    }
    if (rd > s->rcap) {
        free(s->rbuf);
        free(s->tmp);
        s->rcap = rd + rd / 8;
        s->rbuf = malloc((size_t)s->rcap * sizeof(int));
        s->tmp = malloc((size_t)s->rcap * sizeof(int));
        if (s->rbuf == NULL || s->tmp == NULL)
            return -1;
    }
    for (long i = 0; i < s->nloc; i++) {
        int k = s->keys[i];
        s->sbuf[s->fill[((int64_t)k * p) >> bits]++] = k;
    }
    t0 = MPI_Wtime();
    MPI_Alltoallv(s->sbuf, s->scount, s->sdispl, MPI_INT, s->rbuf, s->rcount,
                  s->rdispl, MPI_INT, MPI_COMM_WORLD);
    s->tcomm += MPI_Wtime() - t0;
    s->nrecv = rd;
    return 0;
}

/* One whole sort; the rank's sorted keys end in rbuf[0 .. nrecv). */
static void sort(struct sorter *s, int bits)
{
    if (exchange(s, bits) != 0) {
        fprintf(stderr, "isort: rank %d: out of memory\n", s->rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int lo = range_lo(s->rank, s->size, bits);
    int hi = range_lo(s->rank + 1, s->size, bits);
    int *out = radix_sort(s->rbuf, s->tmp, s->nrecv, lo, hi - lo > 0 ? hi - lo : 1);
    /* An odd number of passes leaves the result in tmp: swap the roles
     * rather than copy it back. */
    if (out != s->rbuf) {
        s->tmp = s->rbuf;
        s->rbuf = out;
    }
}

/* The sum of key_mix over keys[0 .. n), over all ranks. */
static uint64_t checksum(const int *keys, long n)
{
    uint64_t local = 0, global = 0;
    for (long i = 0; i < n; i++)
        local += key_mix(keys[i]);
    MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* Runs the checks described at the top of the file; returns 1 if all hold
 * (the same verdict on every rank). */
static int verify(const struct sorter *s, const struct opts *o)
{
    int lo = range_lo(s->rank, s->size, o->bits);
    int hi = range_lo(s->rank + 1, s->size, o->bits);
    int ok = 1;
    for (long i = 0; i < s->nrecv; i++) {
        int k = s->rbuf[i];
        if (k < lo || k >= hi || (i > 0 && k < s->rbuf[i - 1]))
            ok = 0;
    }
    /* First and last key of every rank, -1 for an empty one. */
    int mine[2] = {s->nrecv > 0 ? s->rbuf[0] : -1,
                   s->nrecv > 0 ? s->rbuf[s->nrecv - 1] : -1};
    int *ends = malloc((size_t)s->size * 2 * sizeof(int));
    if (ends == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Allgather(mine, 2, MPI_INT, ends, 2, MPI_INT, MPI_COMM_WORLD);
    int last = -1;
    for (int r = 0; r < s->size; r++) {
        if (ends[2 * r] < 0)
            continue;
        if (ends[2 * r] < last)
            ok = 0;
        last = ends[2 * r + 1];
    }
    free(ends);
    long total = 0, n = s->nrecv;
    MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    uint64_t before = checksum(s->keys, s->nloc);
    uint64_t after = checksum(s->rbuf, s->nrecv);
    int allok = 0;
    ok = ok && total == o->keys && before == after;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return allok;
}

/* Entry point of every rank.  Exit status: 0 every check passed, 1 a check
 * failed, 2 usage, 3 out of memory. */
int main(int argc, char **argv)
{
    struct opts o;
    struct sorter s;
    int world;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    if (parse_opts(argc, argv, world, &o) != 0) {
        MPI_Finalize();
        return 2;
    }
    if (sorter_create(&s, &o) != 0) {
        fprintf(stderr, "isort: rank %d: out of memory\n", world);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* The warm-up sort touches every buffer once, so that no page fault
     * lands in the timed ones. */
    sort(&s, o.bits);
    s.tcomm = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < o.iters; it++)
        sort(&s, o.bits);
    double t = MPI_Wtime() - t0, tmax, cmax;
    /* A sort takes as long as its slowest rank. */
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&s.tcomm, &cmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = verify(&s, &o);
    if (world == 0)
        printf("isort: ranks %d keys %ld bits %d iters %d time_s %.6f "
               "us_per_iter %.3f comm_us_per_iter %.3f mkeys_per_s %.2f "
               "check %s\n", s.size, o.keys, o.bits, o.iters, tmax,
               tmax / o.iters * 1e6, cmax / o.iters * 1e6,
               tmax > 0.0 ? (double)o.keys * o.iters / tmax / 1e6 : 0.0,
               ok ? "OK" : "FAILED");
    sorter_destroy(&s);
    MPI_Finalize();
    return ok ? 0 : 1;
}
