/*
 * ring_floor.c: the cache-line floor of a message ring between two cores
 * (issue 22).
 *
 * Not an MPI program.  One producer thread streams messages through a
 * single-producer/single-consumer ring to one consumer thread, each
 * pinned to its own CPU, with nothing else to do: no matching, no
 * requests.  The consumer copies every payload out, as into a posted
 * receive.  Any ring between two workers (src/p2p/ring.c) moves at most
 * this many messages per second, so the printed rate is the floor to
 * put next to a p2p_rate run; run in the same minute, it also tells
 * which state the VM's cache-line transfers are in (they change every
 * few minutes on the 2-core VM of bench/results/p2p.md).
 *
 *   ring_floor [-b PAYLOAD] [-e ENTRY] [-t] [-p LINES] [-n MILLIONS]
 *
 *   -b  payload bytes per message (default 8);
 *   -e  bytes an entry takes in the ring, header and payload (default
 *       64, one line per message; 16 or 32 pack several per line); must
 *       be a multiple of 16 and hold the 8-byte header and the payload;
 *   -t  publish a tail instead of a sequence word per entry: the
 *       producer stores the tail (release) after each message, the
 *       consumer reads it once and takes every entry it covers;
 *   -p  the consumer prefetches the line this many lines ahead of the
 *       entry it copies (0: none);
 *   -n  millions of messages (default 20);
 *   -w  work per message on each side, as steps of a dependent chain of
 *       multiplications (about 1 ns each), standing for an MPI library's
 *       own instructions per send and per receive (default 0).
 *
 * Prints "payload entry mode prefetch work Mmsgs_per_s", best of 3 runs.
 * Build: cc -O2 -pthread bench/ring_floor.c -o ring_floor.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE 64
#define RING_BYTES (64 * 1024) /* a whole window of 1 KiB messages fits */

struct ring {
    _Alignas(LINE) _Atomic uint64_t tail; /* -t: messages published */
    _Alignas(LINE) _Atomic uint64_t head; /* messages consumed (given back) */
    _Alignas(LINE) unsigned char bytes[RING_BYTES];
};

struct cfg {
    size_t payload, entry;
    int tail_mode, prefetch;
    uint64_t msgs;
    long work;
    struct ring *r;
};

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Entry i's place: entries never wrap inside the ring (RING_BYTES is a
 * multiple of every entry size used, or the last partial entry is
 * skipped by taking slots modulo the count that fits). */
static unsigned char *slot(const struct cfg *c, uint64_t i)
{
    size_t n = RING_BYTES / c->entry;
    return c->r->bytes + (i % n) * c->entry;
}

/* Steps of a dependent chain the compiler cannot remove. */
static uint64_t busy(long steps, uint64_t x)
{
    for (long i = 0; i < steps; i++)
        x = x * 6364136223846793005u + 1;
    __asm__ volatile("" : "+r"(x));
    return x;
}

static void *produce(void *arg)
{
    const struct cfg *c = arg;
    pin(0);
    size_t n = RING_BYTES / c->entry;
    unsigned char src[2048];
    memset(src, 7, sizeof(src));
    uint64_t head_seen = 0, x = 1;
    for (uint64_t i = 0; i < c->msgs; i++) {
        x = busy(c->work, x);
        src[0] = (unsigned char)x;
        while (i - head_seen >= n)
            head_seen = atomic_load_explicit(&c->r->head, memory_order_acquire);
        unsigned char *e = slot(c, i);
        memcpy(e + 8, src, c->payload);
        if (c->tail_mode)
            atomic_store_explicit(&c->r->tail, i + 1, memory_order_release);
        else
            atomic_store_explicit((_Atomic uint64_t *)(void *)e, i + 1, memory_order_release);
    }
    return NULL;
}

static void consume(const struct cfg *c, unsigned char *dst)
{
    uint64_t tail = 0, x = 1;
    size_t lines_ahead = (size_t)c->prefetch * LINE;
    for (uint64_t i = 0; i < c->msgs; i++) {
        unsigned char *e = slot(c, i);
        if (c->tail_mode) {
            while (tail <= i)
                tail = atomic_load_explicit(&c->r->tail, memory_order_acquire);
        } else {
            while (atomic_load_explicit((_Atomic uint64_t *)(void *)e, memory_order_acquire) !=
                   i + 1)
                ;
        }
        if (lines_ahead) {
            size_t off = (size_t)(e - c->r->bytes) + lines_ahead;
            __builtin_prefetch(c->r->bytes + off % RING_BYTES);
        }
        memcpy(dst, e + 8, c->payload);
        x = busy(c->work, x + dst[0]);
        /* Give entries back once per 16, as ring.c does once per drain:
         * the producer reads head only when it finds no room. */
        if ((i & 15) == 15)
            atomic_store_explicit(&c->r->head, i + 1, memory_order_release);
    }
}

static double run(struct cfg *c, unsigned char *dst)
{
    memset(c->r, 0, sizeof(*c->r));
    pthread_t th;
    double t = now();
    if (pthread_create(&th, NULL, produce, c) != 0) {
        perror("pthread_create");
        exit(1);
    }
    consume(c, dst);
    pthread_join(th, NULL);
    return now() - t;
}

/* Fills c from the command line; 0 if it is valid. */
static int parse(int argc, char **argv, struct cfg *c)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t"))
            c->tail_mode = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "-b"))
            c->payload = (size_t)atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-e"))
            c->entry = (size_t)atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-p"))
            c->prefetch = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-w"))
            c->work = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-n"))
            c->msgs = (uint64_t)(atof(argv[++i]) * 1e6);
        else
            return -1;
    }
    if (c->entry % 16 || c->entry < c->payload + 8 || c->entry > 2048 || c->prefetch < 0 ||
        c->work < 0 || !c->msgs)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct cfg c = { 8, 64, 0, 0, 20000000, 0, NULL };
    if (parse(argc, argv, &c) != 0) {
        fprintf(stderr, "usage: ring_floor [-b PAYLOAD] [-e ENTRY] [-t] [-p LINES] "
                        "[-n MILLIONS] [-w STEPS]; ENTRY a multiple of 16, at least "
                        "PAYLOAD + 8, at most 2048\n");
        return 2;
    }
    c.r = aligned_alloc(LINE, sizeof(*c.r));
    unsigned char *dst = aligned_alloc(LINE, 2048);
    if (!c.r || !dst)
        return 1;
    pin(1);
    double best = 0;
    for (int k = 0; k < 3; k++) {
        double rate = (double)c.msgs / run(&c, dst) / 1e6;
        best = rate > best ? rate : best;
    }
    printf("%zu %zu %s %d %ld %.2f\n", c.payload, c.entry, c.tail_mode ? "tail" : "seq",
           c.prefetch, c.work, best);
    free(dst);
    free(c.r);
    return 0;
}
