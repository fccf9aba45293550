/*
 * ult_quiet.c: what the deadlock reports ask of the scheduler: whether
 * every rank of this process is parked (the job-wide detection of
 * src/net/net.c), and the list of the blocked ranks (that report and the
 * one-process one of ult.c).
 *
 * No counter of parks is needed for "did anything run between two
 * looks": a rank or thread runs only when something woke it, and every
 * waker is itself running (a rank, counted by its worker's switches, or
 * a thread, which makes the process not quiet) or a message from another
 * process, which the network layer counts.
 */
#include "ult/ult_impl.h"

#include <stdio.h>

int zm_ult_quiet(uint64_t *activity)
{
    zm_ult_state_t *j = &zm_ult_job;
    uint64_t act = atomic_load(&j->gen);
    *activity = act;
    if (!j->ults && !j->adopted)
        return 0; /* the job has not started */
    /* A rank in a timed sleep (ult_timer.c) will run again by itself. */
    int quiet = atomic_load(&j->frunning) <= 0 && !atomic_load(&j->done) &&
                atomic_load(&j->timed) <= 0;
    if (j->adopted) {
        int st = __atomic_load_n(&j->adopted_ult.state, __ATOMIC_ACQUIRE);
        return quiet && st != ZM_ULT_READY && st != ZM_ULT_NEW && st != ZM_ULT_DONE;
    }
    for (int i = 0; j->workers && i < j->cfg.nworkers; i++) {
        zm_worker_t *w = &j->workers[i];
        act += atomic_load_explicit(&w->nswitch, memory_order_relaxed);
        if (atomic_load_explicit(&w->inbox, memory_order_relaxed) || w->rq_head)
            quiet = 0;
    }
    /* Records that never started stand for other processes' ranks. */
    int n = zm_ult_count(), live = 0;
    for (int i = 0; i < n && quiet; i++) {
        int st = __atomic_load_n(&j->ults[i].state, __ATOMIC_ACQUIRE);
        if (st == ZM_ULT_READY)
            quiet = 0;
        live += st == ZM_ULT_PARKED;
    }
    *activity = act;
    return quiet && live > 0;
}

void zm_ult_report_blocked(FILE *out, int proc)
{
    int n = zm_ult_count(), shown = 0, blocked = 0;
    char line[512];
    fflush(stdout);
    for (int i = 0; i < n; i++)
        blocked += zm_ult_get(i)->state == ZM_ULT_PARKED;
    if (proc < 0)
        fprintf(out, "zmpi: deadlock: all %d live ranks are blocked and nothing in "
                "flight can wake them\n", blocked);
    else
        fprintf(out, "zmpi:   process %d: %d blocked ranks\n", proc, blocked);
    for (int i = 0; i < n && shown < 100; i++) {
        zm_ult_t *u = zm_ult_get(i);
        if (u->state != ZM_ULT_PARKED)
            continue;
        shown++;
        line[0] = '\0';
        if (zm_ult_job.cfg.describe)
            zm_ult_job.cfg.describe(u, line, sizeof(line));
        fprintf(out, "zmpi:   rank %d: %s\n", i, line[0] ? line : "blocked");
    }
    if (blocked > shown)
        fprintf(out, "zmpi:   ... and %d more blocked ranks\n", blocked - shown);
    zm_ult_foreign_report(out);
    fflush(out);
}
