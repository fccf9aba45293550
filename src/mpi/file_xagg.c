/*
 * file_xagg.c: two-phase collective I/O across processes (docs/net.md,
 * "Files across processes").
 *
 * Inside a process the ranks of a collective access post their pieces in
 * the process's table (file_coll.c); that is the first phase, and it
 * costs no copy.  When the file's ranks span processes, each process's
 * first rank (a "leader", fh->xcomm) takes the process's pieces further:
 * the job's accessed region [lo, hi) is cut into one contiguous domain per
 * aggregating leader, each domain into windows of cb_buffer_size bytes, and
 * the windows are moved in rounds (round k: window k of every domain).  In
 * each round a leader
 *  1. collects its process's parts of every other aggregator's window,
 *  2. sends each aggregator a header (parts, bytes, error so far) with
 *     MPI_Alltoall, then the parts' file segments and, for a write, their
 *     bytes with MPI_Alltoallv_c,
 *  3. as an aggregator, moves its window through one buffer: its own
 *     process's pieces straight from the table, the other processes' from
 *     what arrived, with one system call per covered run, or one pread and
 *     one pwrite for the whole window when its holes are small (io_xfer.c),
 *  4. for a read, sends each leader its bytes back and copies them into
 *     the local ranks' packed data.
 * Every leader sees every header, so an error anywhere (out of memory, a
 * failed system call) ends the exchange on all leaders after the same
 * round; the caller's final allreduce hands the error to every rank.
 */
#include "file_rw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Header entries per leader: parts, bytes, error. */
#define HDR 3

/* The plan of one access, the same on every leader. */
typedef struct plan {
    int64_t lo, hi;   /* the accessed region */
    int64_t dom;      /* bytes per domain, a multiple of 4 KiB */
    int64_t ws;       /* bytes per window */
    int64_t rounds;   /* windows per domain */
    int naggr;        /* domains (aggregating leaders) */
    int nl, me;       /* leaders, the caller's index among them */
} plan_t;

/* The state of a leader across the rounds of one access. */
typedef struct xstate {
    zm_io_part_t *parts;          /* this round's parts sent, grouped by destination */
    size_t pcap, nparts;          /* allocated and used entries of parts */
    size_t *first;                /* nl + 1: index of each destination's first part */
    int64_t *shdr, *rhdr;         /* HDR * nl headers sent and received */
    MPI_Count *cnt[4];            /* segment bytes sent / received, data bytes sent / received */
    MPI_Aint *dsp[4];             /* their displacements */
    char *sseg, *rseg, *sdat, *rdat; /* the exchange buffers */
    size_t cap[4];                /* their allocated bytes */
    zm_io_piece_t *pieces;        /* lsize local pieces, then one per leader */
    char *buf;                    /* the aggregator's window buffer */
} xstate_t;

enum { SSEG, RSEG, SDAT, RDAT };

/* The window of domain `a` in round k: [*wlo, *whi), empty if *wlo >= *whi. */
static void window_of(const plan_t *p, int a, int64_t k, int64_t *wlo, int64_t *whi)
{
    int64_t dlo = p->lo + p->dom * a, dhi = dlo + p->dom;
    if (dhi > p->hi)
        dhi = p->hi;
    *wlo = dlo + k * p->ws;
    *whi = *wlo + p->ws < dhi ? *wlo + p->ws : dhi;
}

/* The domain leader `l` aggregates, or -1.  Aggregators are spread over
 * the leaders (domain a goes to leader a * nl / naggr). */
static int domain_of(const plan_t *p, int l)
{
    for (int a = 0; a < p->naggr; a++)
        if ((int)((int64_t)a * p->nl / p->naggr) == l)
            return a;
    return -1;
}

/* Make *b hold at least `n` bytes (its old contents may go); 0 or -ENOMEM. */
static int reserve(char **b, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    char *nb = malloc(n);
    if (!nb)
        return -ENOMEM;
    free(*b);
    *b = nb;
    *cap = n;
    return 0;
}

/* Step 1: collect the process's parts of every other aggregator's window
 * of round k and fill the headers.  Returns 0 or -ENOMEM. */
static int gather(struct zmpi_file *fh, const plan_t *p, xstate_t *x, int64_t k, int64_t err)
{
    x->nparts = 0;
    int rc = 0;
    for (int d = 0; d < p->nl; d++) {
        x->first[d] = x->nparts;
        int a = domain_of(p, d);
        int64_t wlo, whi, bytes = 0;
        if (a >= 0 && d != p->me && rc == 0) {
            window_of(p, a, k, &wlo, &whi);
            if (wlo < whi)
                rc = zm_io_collect(fh->io->pieces, fh->lsize, wlo, whi, &x->parts, &x->pcap,
                                   &x->nparts);
        }
        for (size_t i = x->first[d]; i < x->nparts; i++)
            bytes += (int64_t)x->parts[i].len;
        x->shdr[HDR * d] = (int64_t)(x->nparts - x->first[d]);
        x->shdr[HDR * d + 1] = bytes;
    }
    x->first[p->nl] = x->nparts;
    for (int d = 0; d < p->nl; d++)
        x->shdr[HDR * d + 2] = err != 0 ? err : rc;
    return rc;
}

/* Step 2 preparation: counts, displacements and buffers of the exchange
 * from the headers; the segments (positions relative to each
 * destination's data) and, for a write, the data to send.  0 or -ENOMEM. */
static int prepare(const plan_t *p, xstate_t *x, int write)
{
    MPI_Aint off[4] = { 0, 0, 0, 0 };
    for (int d = 0; d < p->nl; d++) {
        int64_t n[4] = { x->shdr[HDR * d] * (int64_t)sizeof(zm_io_seg_t),
                         x->rhdr[HDR * d] * (int64_t)sizeof(zm_io_seg_t),
                         x->shdr[HDR * d + 1], x->rhdr[HDR * d + 1] };
        for (int t = 0; t < 4; t++) {
            x->cnt[t][d] = n[t];
            x->dsp[t][d] = off[t];
            off[t] += (MPI_Aint)n[t];
        }
    }
    int rc = reserve(&x->sseg, &x->cap[SSEG], (size_t)off[SSEG] + 1);
    if (rc == 0)
        rc = reserve(&x->rseg, &x->cap[RSEG], (size_t)off[RSEG] + 1);
    if (rc == 0)
        rc = reserve(&x->sdat, &x->cap[SDAT], (size_t)off[SDAT] + 1);
    if (rc == 0)
        rc = reserve(&x->rdat, &x->cap[RDAT], (size_t)off[RDAT] + 1);
    if (rc != 0)
        return rc;
    zm_io_seg_t *s = (zm_io_seg_t *)(void *)x->sseg;
    for (int d = 0; d < p->nl; d++) {
        size_t pos = 0;
        for (size_t i = x->first[d]; i < x->first[d + 1]; i++) {
            s[i] = (zm_io_seg_t){ x->parts[i].off, x->parts[i].len, pos };
            if (write)
                memcpy(x->sdat + x->dsp[SDAT][d] + pos, x->parts[i].data, x->parts[i].len);
            pos += x->parts[i].len;
        }
    }
    return 0;
}

/* Step 3: the aggregator moves its window [wlo, whi) of this round: the
 * process's own pieces from the table, every other leader's from what
 * arrived.  0 or -errno. */
static int aggregate(struct zmpi_file *fh, const plan_t *p, xstate_t *x, int write,
                     int64_t wlo, int64_t whi)
{
    zm_io_piece_t *pc = x->pieces;
    memcpy(pc, fh->io->pieces, (size_t)fh->lsize * sizeof(*pc));
    for (int l = 0; l < p->nl; l++)
        pc[fh->lsize + l] = (zm_io_piece_t){
            (const zm_io_seg_t *)(const void *)(x->rseg + x->dsp[RSEG][l]),
            (size_t)x->rhdr[HDR * l], x->rdat + x->dsp[RDAT][l] };
    return zm_io_window(fh->io, pc, fh->lsize + p->nl, write, wlo, whi, x->buf, 1, fh->atomic);
}

/* Step 4 of a read: the bytes come back to the leaders that asked, which
 * copy them into their ranks' packed data. */
static void read_back(const plan_t *p, xstate_t *x, MPI_Comm xcomm)
{
    (void)p;
    PMPI_Alltoallv_c(x->rdat, x->cnt[RDAT], x->dsp[RDAT], MPI_BYTE, x->sdat, x->cnt[SDAT],
                     x->dsp[SDAT], MPI_BYTE, xcomm);
    size_t pos = 0;
    for (size_t i = 0; i < x->nparts; i++) {
        memcpy(x->parts[i].data, x->sdat + pos, x->parts[i].len);
        pos += x->parts[i].len;
    }
}

/* One round k; returns 0, or the error that ends the exchange (the same on
 * every leader when it comes from a header), or this aggregator's -errno
 * of the system calls (reported in the next round's header). */
static int64_t round_run(struct zmpi_file *fh, const plan_t *p, xstate_t *x, int write,
                         int64_t k, int64_t *ioerr)
{
    int64_t rc = gather(fh, p, x, k, *ioerr), worst = 0;
    PMPI_Alltoall(x->shdr, HDR, MPI_INT64_T, x->rhdr, HDR, MPI_INT64_T, fh->xcomm);
    for (int l = 0; l < p->nl; l++)
        if (x->rhdr[HDR * l + 2] < worst)
            worst = x->rhdr[HDR * l + 2];
    if (x->shdr[2] < worst)
        worst = x->shdr[2];
    if (worst != 0)
        return worst;
    /* Buffers sized from the headers: a leader out of memory tells the
     * others before anything moves. */
    rc = prepare(p, x, write);
    PMPI_Allreduce(&rc, &worst, 1, MPI_INT64_T, MPI_MIN, fh->xcomm);
    if (worst != 0)
        return worst;
    PMPI_Alltoallv_c(x->sseg, x->cnt[SSEG], x->dsp[SSEG], MPI_BYTE, x->rseg, x->cnt[RSEG],
                     x->dsp[RSEG], MPI_BYTE, fh->xcomm);
    if (write)
        PMPI_Alltoallv_c(x->sdat, x->cnt[SDAT], x->dsp[SDAT], MPI_BYTE, x->rdat, x->cnt[RDAT],
                         x->dsp[RDAT], MPI_BYTE, fh->xcomm);
    int a = domain_of(p, p->me);
    int64_t wlo = 0, whi = 0;
    if (a >= 0)
        window_of(p, a, k, &wlo, &whi);
    if (a >= 0 && wlo < whi && *ioerr == 0)
        *ioerr = aggregate(fh, p, x, write, wlo, whi);
    if (!write)
        read_back(p, x, fh->xcomm);
    return 0;
}

/* Nonzero if the process's pieces have bytes in a domain that another
 * leader aggregates. */
static int64_t foreign_parts(struct zmpi_file *fh, const plan_t *p)
{
    int mine = domain_of(p, p->me);
    for (int a = 0; a < p->naggr; a++) {
        int64_t dlo = p->lo + p->dom * a, dhi = dlo + p->dom < p->hi ? dlo + p->dom : p->hi;
        if (a != mine && dlo < dhi && zm_io_touches(fh->io->pieces, fh->lsize, dlo, dhi))
            return 1;
    }
    return 0;
}

/* Every window of the caller's domain from its own process's pieces
 * (nothing comes from other processes).  0 or -errno. */
static int64_t local_domain(struct zmpi_file *fh, const plan_t *p, xstate_t *x, int write)
{
    int a = domain_of(p, p->me);
    int64_t rc = 0;
    for (int64_t k = 0; a >= 0 && k < p->rounds && rc == 0; k++) {
        int64_t wlo, whi;
        window_of(p, a, k, &wlo, &whi);
        if (wlo < whi)
            rc = zm_io_window(fh->io, fh->io->pieces, fh->lsize, write, wlo, whi, x->buf, 1,
                              fh->atomic);
    }
    return rc;
}

/* Allocate the per-leader arrays of x; 0 or -ENOMEM. */
static int xstate_init(xstate_t *x, const plan_t *p, int lsize)
{
    memset(x, 0, sizeof(*x));
    size_t nl = (size_t)p->nl;
    x->first = calloc(nl + 1, sizeof(*x->first));
    x->shdr = calloc(HDR * nl, sizeof(int64_t));
    x->rhdr = calloc(HDR * nl, sizeof(int64_t));
    x->pieces = calloc(nl + (size_t)lsize, sizeof(*x->pieces));
    int ok = x->first && x->shdr && x->rhdr && x->pieces;
    for (int t = 0; t < 4; t++) {
        x->cnt[t] = calloc(nl, sizeof(MPI_Count));
        x->dsp[t] = calloc(nl, sizeof(MPI_Aint));
        ok = ok && x->cnt[t] && x->dsp[t];
    }
    if (ok && domain_of(p, p->me) >= 0)
        ok = (x->buf = malloc((size_t)p->ws)) != NULL;
    return ok ? 0 : -ENOMEM;
}

static void xstate_free(xstate_t *x)
{
    free(x->parts);
    free(x->first);
    free(x->shdr);
    free(x->rhdr);
    free(x->pieces);
    for (int t = 0; t < 4; t++) {
        free(x->cnt[t]);
        free(x->dsp[t]);
    }
    free(x->sseg);
    free(x->rseg);
    free(x->sdat);
    free(x->rdat);
    free(x->buf);
}

int64_t zm_mpi_file_xaggr(struct zmpi_file *fh, int write, int64_t lo, int64_t hi,
                          int64_t cbsize, int64_t nodes)
{
    plan_t p = { .lo = lo, .hi = hi };
    PMPI_Comm_size(fh->xcomm, &p.nl);
    PMPI_Comm_rank(fh->xcomm, &p.me);
    /* One domain per process, fewer if cb_nodes says so or the region is
     * small (each aggregator costs a buffer and system calls). */
    int64_t n = (hi - lo + ZM_FILE_MIN_DOMAIN - 1) / ZM_FILE_MIN_DOMAIN;
    if (n > p.nl)
        n = p.nl;
    if (n > nodes)
        n = nodes;
    p.naggr = n < 1 ? 1 : (int)n;
    p.dom = (hi - lo + p.naggr - 1) / p.naggr;
    p.dom = (p.dom + 4095) & ~(int64_t)4095;
    p.ws = cbsize < p.dom ? cbsize : p.dom;
    p.rounds = (p.dom + p.ws - 1) / p.ws;
    xstate_t x;
    int64_t err = xstate_init(&x, &p, fh->lsize), ioerr = 0;
    /* One agreement before the rounds: whether a leader is out of memory,
     * and whether any process has bytes in another process's domain.  If
     * none has (each process's ranks access their own part of the file,
     * as in a block distribution with one domain per process), every
     * aggregator moves its domain alone, without a round of messages per
     * window. */
    int64_t v[2] = { -err, foreign_parts(fh, &p) }, g[2];
    PMPI_Allreduce(v, g, 2, MPI_INT64_T, MPI_MAX, fh->xcomm);
    if (g[0] != 0) {
        xstate_free(&x);
        return -g[0];
    }
    if (!g[1]) {
        ioerr = local_domain(fh, &p, &x, write);
        xstate_free(&x);
        return ioerr;
    }
    for (int64_t k = 0; k < p.rounds; k++) {
        int64_t rc = round_run(fh, &p, &x, write, k, &ioerr);
        if (rc != 0) {
            err = rc;
            break;
        }
    }
    xstate_free(&x);
    return err != 0 ? err : ioerr;
}
