/*
 * lb.c: the load balancer of ZMPI_Migrate (src/mpi/migrate.c): busy-time
 * measurement, the balancing step and its strategies, and the switches
 * read from the environment (ZMPI_LB, ZMPI_LB_REPORT, ZMPI_STEAL).
 *
 * A step gathers a fixed set of ULTs of this process: each parks in
 * zm_ult_lb_join, and the one whose arrival completes the set (its park
 * commit sees the count reach n, after every other participant's context
 * is saved) plans the placement while all others are parked.  Moving a
 * parked ULT is setting its worker and queuing it there, so a step that
 * moves nothing costs the gathering (one park and one wake per ULT) and
 * the plan, which is linear in the participants but for greedy's sort.
 *
 * The loads are each participant's busy time since the last step, summed
 * by the scheduler at every switch (ult.c, switch_away): the time its code
 * ran on a worker, including spinning in MPI waits of a rank alone on its
 * worker, excluding the time it was parked or queued.  A rank that knows
 * its load better states it (ZMPI_Set_load).
 */
#include "ult/ult_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define job zm_ult_job

static struct {
    int strategy;          /* ZMPI_LB, default greedy */
    int report;            /* ZMPI_LB_REPORT=1 */
    uint64_t t0_ticks;     /* tick count and clock at setup: their ratio */
    uint64_t t0_ns;        /* converts busy ticks to seconds */
} lb = { .strategy = ZM_ULT_LB_GREEDY };

static const char *const lb_names[] = { "none", "greedy", "refine", "rotate" };

int zm_ult_lb_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof(lb_names) / sizeof(*lb_names)); i++)
        if (strcmp(name, lb_names[i]) == 0)
            return i;
    return -1;
}

const char *zm_ult_lb_name(int s)
{
    return s >= 0 && s < (int)(sizeof(lb_names) / sizeof(*lb_names)) ? lb_names[s] : "?";
}

int zm_ult_lb_default(void)
{
    return lb.strategy;
}

int zm_ult_lb_reporting(void)
{
    return lb.report;
}

int zm_ult_stealing(void)
{
    return job.steal;
}

/* A 0/1 switch from the environment: `def` when unset or empty, -1 after
 * printing the variable and its value when it is anything else. */
static int env_switch(const char *name, int def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
        return v[0] - '0';
    fprintf(stderr, "zmpi: invalid %s '%s' (want 0 or 1)\n", name, v);
    return -1;
}

int zm_ult_lb_setup(void)
{
    const char *s = getenv("ZMPI_LB");
    lb.strategy = ZM_ULT_LB_GREEDY;
    if (s && *s) {
        lb.strategy = zm_ult_lb_parse(s);
        if (lb.strategy < 0) {
            fprintf(stderr, "zmpi: invalid ZMPI_LB '%s' (want greedy, refine, rotate or "
                    "none)\n", s);
            return -1;
        }
    }
    lb.report = env_switch("ZMPI_LB_REPORT", 0);
    const char *wm = getenv("ZMPI_WAKE_MIGRATE");
    job.migrate_forced = wm && strcmp(wm, "1") == 0;
    /* Stealing was part of the wake-up migration before it had a switch of
     * its own: ZMPI_WAKE_MIGRATE=0 alone still keeps every rank in place. */
    job.steal = env_switch("ZMPI_STEAL", job.migrate);
    if (lb.report < 0 || job.steal < 0)
        return -1;
    /* Measuring costs a tick read per switch (some 8 % of a same-worker
     * ping-pong's time), so it starts only when balancing is wanted: from
     * the start when ZMPI_LB names a strategy, else at the first step. */
    const char *e = getenv("ZMPI_LB");
    job.measure = e && *e && lb.strategy != ZM_ULT_LB_NONE;
    lb.t0_ticks = zm_arch_ticks();
    lb.t0_ns = zm_arch_time_ns();
    return 0;
}

/* Seconds per tick, by the ratio of ticks to nanoseconds since setup
 * (the tick counter runs at a constant rate on all cores). */
static double sec_per_tick(void)
{
    uint64_t dt = zm_arch_ticks() - lb.t0_ticks, dn = zm_arch_time_ns() - lb.t0_ns;
    return dt && dn ? (double)dn / (double)dt * 1e-9 : 0;
}

/* The calling ULT's busy ticks since its last call (0 while not
 * measuring), starting a new interval. */
static uint64_t busy_take(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    if (!__atomic_load_n(&job.measure, __ATOMIC_RELAXED) || !w || !w->current)
        return 0;
    zm_ult_t *u = w->current;
    uint64_t t = zm_arch_ticks(), b = u->busy + (w->since ? t - w->since : 0);
    u->busy = 0;
    w->since = t;
    return b;
}

int zm_ult_lb_can_move(void)
{
    return CAN_MIGRATE;
}

double zm_ult_lb_busy_peek(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    if (!__atomic_load_n(&job.measure, __ATOMIC_RELAXED) || !w || !w->current)
        return 0;
    zm_ult_t *u = w->current;
    uint64_t b = u->busy + (w->since ? zm_arch_ticks() - w->since : 0);
    return (double)b * sec_per_tick();
}

/* ---- Steps --------------------------------------------------------------- */

struct zm_ult_lb_step {
    int n;                  /* participants */
    _Atomic int arrived;    /* participants parked in this step */
    unsigned long steps;    /* steps completed (for reports) */
    zm_ult_t **ult;         /* participant i's ULT, written by itself as it joins */
    double *load;           /* its stated load, or -1, likewise; then the leader
                             * makes it the load the step uses */
    uint64_t *busy;         /* its measured busy ticks, likewise */
    zm_ult_lb_args_t first; /* participant 0's arguments: the step's */
    /* The leader's scratch: current and planned worker, fixed flags, order. */
    int *cur, *target;
    unsigned char *fixed;
    int *order;
    double *wl;             /* per worker load (nworkers entries) */
};

zm_ult_lb_step_t *zm_ult_lb_step_new(int n)
{
    zm_ult_lb_step_t *s = calloc(1, sizeof(*s));
    int nw = zm_ult_nworkers();
    if (!s)
        return NULL;
    s->n = n;
    s->ult = calloc((size_t)n, sizeof(*s->ult));
    s->load = calloc((size_t)n, sizeof(*s->load));
    s->busy = calloc((size_t)n, sizeof(*s->busy));
    s->cur = calloc((size_t)n, sizeof(int));
    s->target = calloc((size_t)n, sizeof(int));
    s->fixed = calloc((size_t)n, 1);
    s->order = calloc((size_t)n, sizeof(int));
    s->wl = calloc((size_t)nw * 3, sizeof(double));
    if (!s->ult || !s->load || !s->busy || !s->cur || !s->target || !s->fixed || !s->order ||
        !s->wl) {
        free(s->ult), free(s->load), free(s->busy), free(s->cur), free(s->target);
        free(s->fixed), free(s->order), free(s->wl), free(s);
        return NULL;
    }
    return s;
}

zm_ult_lb_step_t *zm_ult_lb_step_renew(zm_ult_lb_step_t *old, int n)
{
    zm_ult_lb_step_t *s = zm_ult_lb_step_new(n);
    if (!s)
        return NULL;
    s->steps = old->steps;
    free(old->ult), free(old->load), free(old->busy), free(old->cur), free(old->target);
    free(old->fixed), free(old->order), free(old->wl), free(old);
    return s;
}

/* Per-worker sums of the loads under placement `where` into wl; returns
 * the largest. */
static double worker_loads(const zm_ult_lb_step_t *s, const int *where, double *wl)
{
    int nw = zm_ult_nworkers();
    double max = 0;
    memset(wl, 0, sizeof(double) * (size_t)nw);
    for (int i = 0; i < s->n; i++)
        wl[where[i]] += s->load[i];
    for (int w = 0; w < nw; w++)
        max = wl[w] > max ? wl[w] : max;
    return max;
}

/* Heavier first, then lower index (a stable, repeatable order).  The
 * loads come through qsort_r's argument: steps of different worlds (a
 * spawned job's) may plan at the same time. */
static int by_load_desc(const void *a, const void *b, void *loads)
{
    const double *load = loads;
    int i = *(const int *)a, j = *(const int *)b;
    if (load[i] != load[j])
        return load[i] < load[j] ? 1 : -1;
    return i - j;
}

/* Greedy's bins are numbered by first use, not by worker: give each bin
 * the worker already holding most of its ULTs' load (each ULT counts a
 * little even at load 0), so that a balanced placement found again moves
 * nothing.  Only without fixed ULTs, whose bin is their worker. */
static void greedy_relabel(zm_ult_lb_step_t *s, int nw)
{
    double *ov = calloc((size_t)nw * (size_t)nw, sizeof(double));
    int *map = malloc(sizeof(int) * (size_t)nw * 2), *used = map ? map + nw : NULL;
    if (!ov || !map) {
        free(ov), free(map);
        return;
    }
    for (int i = 0; i < s->n; i++)
        ov[s->target[i] * nw + s->cur[i]] += s->load[i] + 1e-9;
    for (int w = 0; w < nw; w++)
        map[w] = -1, used[w] = 0;
    for (int k = 0; k < nw; k++) {
        int bb = -1, bw = -1;
        for (int b = 0; b < nw; b++)
            for (int w = 0; w < nw && map[b] < 0; w++)
                if (!used[w] && (bb < 0 || ov[b * nw + w] > ov[bb * nw + bw]))
                    bb = b, bw = w;
        map[bb] = bw;
        used[bw] = 1;
    }
    for (int i = 0; i < s->n; i++)
        s->target[i] = map[s->target[i]];
    free(ov), free(map);
}

/* Longest processing time first: the movable ULTs, heaviest first, each
 * onto the least loaded worker (fixed ULTs count where they are). */
static void plan_greedy(zm_ult_lb_step_t *s, int nw)
{
    double *wl = s->wl;
    int m = 0, anyfixed = 0;
    memset(wl, 0, sizeof(double) * (size_t)nw);
    for (int i = 0; i < s->n; i++) {
        if (s->fixed[i]) {
            wl[s->cur[i]] += s->load[i];
            anyfixed = 1;
        } else {
            s->order[m++] = i;
        }
    }
    qsort_r(s->order, (size_t)m, sizeof(int), by_load_desc, s->load);
    for (int k = 0; k < m; k++) {
        int i = s->order[k], best = 0;
        for (int w = 1; w < nw; w++)
            if (wl[w] < wl[best])
                best = w;
        s->target[i] = best;
        wl[best] += s->load[i];
    }
    if (!anyfixed)
        greedy_relabel(s, nw);
}

/* Few moves: while the heaviest worker exceeds the tolerance, move to the
 * lightest one the ULT of the heaviest whose load is nearest half their
 * difference (any lighter than the whole difference lowers the maximum). */
static void plan_refine(zm_ult_lb_step_t *s, int nw, double limit)
{
    double *wl = s->wl;
    worker_loads(s, s->target, wl);
    for (int moves = 0; moves < s->n; moves++) {
        int h = 0, l = 0, pick = -1;
        for (int w = 1; w < nw; w++) {
            h = wl[w] > wl[h] ? w : h;
            l = wl[w] < wl[l] ? w : l;
        }
        double gap = wl[h] - wl[l], want = gap / 2, best = 0;
        if (wl[h] <= limit)
            break;
        for (int i = 0; i < s->n; i++) {
            double x = s->load[i], d = x > want ? x - want : want - x;
            if (s->target[i] == h && !s->fixed[i] && x > 0 && x < gap && (pick < 0 || d < best))
                pick = i, best = d;
        }
        if (pick < 0)
            break;
        s->target[pick] = l;
        wl[h] -= s->load[pick];
        wl[l] += s->load[pick];
    }
}

/* Fill s->target for strategy `strategy`; returns the ULTs moved. */
static int plan(zm_ult_lb_step_t *s, int strategy, double tol)
{
    int nw = zm_ult_nworkers(), moved = 0;
    double *wl = s->wl, total = 0;
    memcpy(s->target, s->cur, sizeof(int) * (size_t)s->n);
    if (nw < 2 || strategy == ZM_ULT_LB_NONE)
        return 0;
    if (strategy == ZM_ULT_LB_ROTATE) {
        for (int i = 0; i < s->n; i++)
            if (!s->fixed[i])
                s->target[i] = (s->cur[i] + 1) % nw;
    } else {
        double max = worker_loads(s, s->cur, wl);
        for (int w = 0; w < nw; w++)
            total += wl[w];
        double limit = total / nw * (1 + tol);
        if (total <= 0 || max <= limit)
            return 0;
        if (strategy == ZM_ULT_LB_REFINE) {
            plan_refine(s, nw, limit);
        } else {
            plan_greedy(s, nw);
            /* Keep the old placement unless the new one is better. */
            if (worker_loads(s, s->target, wl) >= max)
                memcpy(s->target, s->cur, sizeof(int) * (size_t)s->n);
        }
    }
    for (int i = 0; i < s->n; i++)
        moved += s->target[i] != s->cur[i];
    return moved;
}

/* Print a step's loads per worker before and after (stderr): busy
 * seconds, or the unit of the loads the ranks stated. */
static void report(zm_ult_lb_step_t *s, int strategy, int moved, uint64_t ns)
{
    int nw = zm_ult_nworkers();
    double *before = s->wl + nw, *after = s->wl + 2 * nw, total = 0;
    double maxb = worker_loads(s, s->cur, before), maxa = worker_loads(s, s->target, after);
    char line[4096];
    int len = snprintf(line, sizeof(line), "zmpi: lb step %lu (%s): %d ranks on %d workers, "
                       "%d moved, planned in %.3f ms%s\n", s->steps, zm_ult_lb_name(strategy),
                       s->n, nw, moved, (double)ns * 1e-6,
                       CAN_MIGRATE ? "" : " (this architecture cannot move ranks)");
    for (int w = 0; w < nw; w++) {
        int nb = 0, na = 0;
        for (int i = 0; i < s->n; i++)
            nb += s->cur[i] == w, na += s->target[i] == w;
        total += before[w];
        if (len < (int)sizeof(line) - 128)
            len += snprintf(line + len, sizeof(line) - (size_t)len, "zmpi:   worker %d: "
                            "load %.6g, %d ranks -> %.6g, %d ranks\n", w, before[w], nb,
                            after[w], na);
    }
    double mean = total / nw;
    if (len < (int)sizeof(line) - 128)
        snprintf(line + len, sizeof(line) - (size_t)len, "zmpi:   max/mean load %.3f -> "
                 "%.3f\n", mean > 0 ? maxb / mean : 1.0, mean > 0 ? maxa / mean : 1.0);
    fputs(line, stderr);
    fflush(stderr);
}

/* The last participant's part: plan, report, and move and wake everyone
 * (itself last, as it is the one running). */
static void lead(zm_ult_lb_step_t *s, int me)
{
    uint64_t t0 = zm_arch_time_ns();
    int strategy = s->first.strategy;
    double spt = sec_per_tick();
    for (int i = 0; i < s->n; i++) {
        zm_ult_t *u = s->ult[i];
        if (s->load[i] < 0)
            s->load[i] = (double)s->busy[i] * spt;
        s->cur[i] = u->worker_id;
        s->fixed[i] = !CAN_MIGRATE || __atomic_load_n(&u->pinned, __ATOMIC_RELAXED) != 0;
    }
    int moved = plan(s, strategy, s->first.tolerance);
    s->steps++;
    /* A program that balances: measure from now on (its first step had
     * only stated loads).  This worker's slice starts now; the others'
     * at their next switch (ult.c skips a slice without a start). */
    if (strategy != ZM_ULT_LB_NONE && !__atomic_load_n(&job.measure, __ATOMIC_RELAXED)) {
        zm_ult_tl_worker->since = zm_arch_ticks();
        __atomic_store_n(&job.measure, 1, __ATOMIC_RELAXED);
    }
    /* The balancer places the ranks from now on.  Wake-up migration would
     * undo its work: a rank woken while its worker sleeps (its ranks
     * finished their share of a step first) runs on the waker's worker,
     * and within a few steps every rank gathered on the busiest one. */
    if (strategy != ZM_ULT_LB_NONE && !job.migrate_forced)
        __atomic_store_n(&job.migrate, 0, __ATOMIC_RELAXED);
    if (lb.report)
        report(s, strategy, moved, zm_arch_time_ns() - t0);
    /* The next step may start as soon as the first participant is woken. */
    atomic_store_explicit(&s->arrived, 0, memory_order_relaxed);
    int mine = s->target[me];
    zm_ult_wake_all_on(s->ult, s->target, s->n, me);
    zm_ult_move_self(mine);
}

/* A participant's park commit: counts it in, after its context is saved.
 * A participant that is not the last must not touch `arg` after counting
 * itself (the leader may wake it, and its stack frame end, at once); the
 * last stays ready and leads. */
typedef struct {
    zm_ult_lb_step_t *s;
    int leader;
} arrive_t;

static int arrive_commit(void *arg)
{
    arrive_t *a = arg;
    zm_ult_lb_step_t *s = a->s;
    int n = s->n;
    if (atomic_fetch_add_explicit(&s->arrived, 1, memory_order_acq_rel) + 1 != n)
        return 0;
    a->leader = 1;
    return 1;
}

void zm_ult_lb_join(zm_ult_lb_step_t *s, int idx, const zm_ult_lb_args_t *a)
{
    arrive_t arg = { s, 0 };
    s->ult[idx] = zm_ult_self();
    s->load[idx] = a->load;
    s->busy[idx] = busy_take();
    if (idx == 0)
        s->first = *a;
    zm_ult_park(arrive_commit, &arg);
    if (arg.leader)
        lead(s, idx);
}
