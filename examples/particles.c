/*
 * particles.c: particles drifting through a periodic 1-D domain cut into
 * one slab per rank, a load that moves from rank to rank over time.
 *
 * 90 % of the particles start in a blob around x = 0.2, the rest spread
 * evenly; all drift to the right at slightly different speeds, so the few
 * ranks that hold the blob change as it travels (and it widens).  Each
 * step every particle runs a small kernel (WORK iterations of a logistic
 * map, its state carried by the particle) that sets its speed, moves, and
 * particles that left a slab go to the neighbouring rank.  The work of a
 * rank is proportional to the particles it holds: with many ranks per
 * core, the cores that run the blob's ranks do most of the work unless the
 * ranks are moved.  Under zmpi the program calls ZMPI_Migrate every EVERY
 * steps (default 1; unless -nomigrate), letting the balancer spread the
 * busy ranks over the workers: a step that moves nothing costs some 0.1 ms
 * even at 1000 ranks, and a rank's load changes within a few steps as the
 * blob crosses slab boundaries, so balancing every step pays
 * (bench/results/lb.md: 16 ranks on 2 workers, every step 1.63x over the
 * unbalanced run, every 10 steps 1.38x); with another MPI it runs unchanged without it.  The
 * balancer measures each rank's busy time itself; with -setload each
 * rank states its load instead (ZMPI_Set_load: the particle-steps it
 * computed since the last call), which a host busy with other jobs does
 * not disturb.
 *
 * A particle's path depends only on itself, so the result does not depend
 * on the decomposition: -check recomputes every particle serially on rank
 * 0 and compares an exact checksum of all positions and states.  The
 * checksum is printed in every run, so runs on different MPIs and rank
 * counts can be compared too.
 *
 *   particles [-n N] [-steps S] [-work W] [-every K] [-nomigrate] [-setload]
 *             [-check]
 *
 * Prints one line: particles, steps, ranks, seconds (between barriers),
 * migration on/off, the worst rank's share of the particle-steps against
 * the mean (the imbalance there is to balance), and the checksum.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V0 0.002      /* mean drift per step (domain length 1) */

typedef struct {
    double x;         /* position in [0, 1) */
    double y;         /* logistic map state in (0, 1) */
    int64_t id;
} particle_t;

typedef struct {
    long n, steps, every;
    int work, migrate, setload, check;
} params_t;

/* A deterministic hash of a particle id into [0, 1). */
static double hash01(uint64_t i, uint64_t salt)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull + salt * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* Particle id's starting state. */
static particle_t particle_init(int64_t id)
{
    particle_t p = { 0, 0.1 + 0.8 * hash01((uint64_t)id, 7), id };
    if (id % 10 < 9) {
        /* The blob: a bell around 0.2 (sum of four uniforms), standard
         * deviation 0.06, some four slabs of 16. */
        double s = 0;
        for (int k = 0; k < 4; k++)
            s += hash01((uint64_t)id, (uint64_t)k + 1);
        p.x = 0.2 + (s - 2.0) * 0.1;
    } else {
        p.x = hash01((uint64_t)id, 11);
    }
    p.x -= p.x >= 1.0 ? 1.0 : 0.0;
    p.x += p.x < 0.0 ? 1.0 : 0.0;
    return p;
}

/* One step of one particle: the kernel, then the move. */
static void particle_step(particle_t *p, int work)
{
    double y = p->y;
    for (int k = 0; k < work; k++)
        y = 3.7 * y * (1.0 - y);
    p->y = y;
    p->x += V0 * (0.75 + 0.5 * y);
    if (p->x >= 1.0)
        p->x -= 1.0;
}

/* Order-independent exact checksum of a set of particles. */
static uint64_t checksum(const particle_t *p, long n)
{
    uint64_t sum = 0;
    for (long i = 0; i < n; i++) {
        uint64_t bx, by;
        memcpy(&bx, &p[i].x, 8);
        memcpy(&by, &p[i].y, 8);
        uint64_t h = (bx * 31 + by) ^ ((uint64_t)p[i].id * 0x9E3779B97F4A7C15ull);
        sum += h ^ (h >> 29);
    }
    return sum;
}

/* The rank whose slab holds position x. */
static int owner(double x, int size)
{
    int r = (int)(x * size);
    return r >= size ? size - 1 : r;
}

/* The local particles (a growable array). */
typedef struct {
    particle_t *p;
    long n, cap;
} set_t;

static void set_push(set_t *s, const particle_t *p, long n)
{
    if (s->n + n > s->cap) {
        s->cap = (s->n + n) * 2 + 64;
        s->p = realloc(s->p, sizeof(particle_t) * (size_t)s->cap);
        if (!s->p) {
            fprintf(stderr, "particles: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    memcpy(s->p + s->n, p, sizeof(particle_t) * (size_t)n);
    s->n += n;
}

/* Send the particles that left this slab to the neighbours (a particle
 * moves less than a slab per step) and take theirs. */
static void exchange(set_t *s, set_t *out, int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    long keep = 0, nin[2] = { 0, 0 }, nout[2];
    out[0].n = out[1].n = 0;
    for (long i = 0; i < s->n; i++) {
        int o = owner(s->p[i].x, size);
        if (o == rank)
            s->p[keep++] = s->p[i];
        else
            set_push(&out[o == right ? 1 : 0], &s->p[i], 1);
    }
    s->n = keep;
    nout[0] = out[0].n;
    nout[1] = out[1].n;
    MPI_Sendrecv(&nout[0], 1, MPI_LONG, left, 0, &nin[1], 1, MPI_LONG, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&nout[1], 1, MPI_LONG, right, 1, &nin[0], 1, MPI_LONG, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long base = s->n;
    if (s->n + nin[0] + nin[1] > s->cap) {
        s->cap = (s->n + nin[0] + nin[1]) * 2 + 64;
        s->p = realloc(s->p, sizeof(particle_t) * (size_t)s->cap);
        if (!s->p)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Sendrecv(out[0].p, (int)(nout[0] * (long)sizeof(particle_t)), MPI_BYTE, left, 2,
                 s->p + base, (int)(nin[1] * (long)sizeof(particle_t)), MPI_BYTE, right, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(out[1].p, (int)(nout[1] * (long)sizeof(particle_t)), MPI_BYTE, right, 3,
                 s->p + base + nin[1], (int)(nin[0] * (long)sizeof(particle_t)), MPI_BYTE,
                 left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s->n = base + nin[0] + nin[1];
}

static void parse(int argc, char **argv, params_t *pr)
{
    *pr = (params_t){ .n = 200000, .steps = 200, .every = 1, .work = 60, .migrate = 1 };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            pr->n = atol(argv[++i]);
        else if (strcmp(argv[i], "-steps") == 0 && i + 1 < argc)
            pr->steps = atol(argv[++i]);
        else if (strcmp(argv[i], "-work") == 0 && i + 1 < argc)
            pr->work = atoi(argv[++i]);
        else if (strcmp(argv[i], "-every") == 0 && i + 1 < argc)
            pr->every = atol(argv[++i]);
        else if (strcmp(argv[i], "-nomigrate") == 0)
            pr->migrate = 0;
        else if (strcmp(argv[i], "-setload") == 0)
            pr->setload = 1;
        else if (strcmp(argv[i], "-check") == 0)
            pr->check = 1;
    }
    if (pr->every < 1)
        pr->every = 1;
}

/* Rank 0's serial reference: every particle on its own. */
static uint64_t serial_checksum(const params_t *pr)
{
    uint64_t sum = 0;
    for (long i = 0; i < pr->n; i++) {
        particle_t p = particle_init(i);
        for (long t = 0; t < pr->steps; t++)
            particle_step(&p, pr->work);
        sum += checksum(&p, 1);
    }
    return sum;
}

/* Rank 0 prints the result line and, with -check, compares the checksum
 * with the serial one.  Returns nonzero on rank 0 if the check failed. */
static int report(const params_t *pr, const set_t *s, long work_done, double secs,
                  int migrate, int rank, int size)
{
    uint64_t sum = checksum(s->p, s->n), total = 0;
    long count = 0, wmax = 0, wsum = 0;
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&s->n, &count, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&work_done, &wmax, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&work_done, &wsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return 0;
    printf("particles %ld steps %ld ranks %d time %.3f s migrate %s max/mean rank work "
           "%.2f checksum %016llx\n", pr->n, pr->steps, size, secs, migrate ? "on" : "off",
           wsum ? (double)wmax * size / (double)wsum : 0.0, (unsigned long long)total);
    if (count != pr->n) {
        printf("check FAILED: %ld particles, expected %ld\n", count, pr->n);
        return 1;
    }
    if (!pr->check)
        return 0;
    uint64_t want = serial_checksum(pr);
    printf("check %s (serial checksum %016llx)\n", want != total ? "FAILED" : "OK",
           (unsigned long long)want);
    return want != total;
}

int main(int argc, char **argv)
{
    int rank, size, migrate;
    params_t pr;
    set_t s = { 0 }, out[2] = { { 0 }, { 0 } };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    parse(argc, argv, &pr);
#ifdef ZMPI_HAS_MIGRATE
    migrate = pr.migrate;
#else
    migrate = 0;
#endif
    for (long i = 0; i < pr.n; i++) {
        particle_t p = particle_init(i);
        if (owner(p.x, size) == rank)
            set_push(&s, &p, 1);
    }
    long work_done = 0, since = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long t = 0; t < pr.steps; t++) {
        for (long i = 0; i < s.n; i++)
            particle_step(&s.p[i], pr.work);
        work_done += s.n;
        since += s.n;
        exchange(&s, out, rank, size);
#ifdef ZMPI_HAS_MIGRATE
        if (migrate && (t + 1) % pr.every == 0) {
            if (pr.setload)
                ZMPI_Set_load((double)since);
            ZMPI_Migrate(MPI_INFO_NULL);
            since = 0;
        }
#endif
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double secs = MPI_Wtime() - t0;
    int bad = report(&pr, &s, work_done, secs, migrate, rank, size);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(s.p), free(out[0].p), free(out[1].p);
    MPI_Finalize();
    return bad;
}
