/*
 * ult_lbproc.c: a ULT leaving this process and one arriving from another
 * (ranks moved across processes by ZMPI_Migrate: src/mpi/migrate_net.c,
 * docs/migrate.md).
 *
 * A rank that moves is parked in the migration call, with its context
 * saved in place (zm_ult_capture) and its stack in its fixed-address
 * region (src/core/rank_mem.c).  Leaving, its record here stops counting
 * as a live ULT of the job and looks like the record of another
 * process's rank (never started).  Arriving, the record of the same id in
 * the other process takes the stack of its region and the saved context,
 * as a restart does, and is queued on a worker: it lands in
 * zm_ult_capture, which finishes that worker's switch.
 */
#include "ult/ult_impl.h"
#include "arch/tsan_shim.h"

#define job zm_ult_job

void zm_ult_depart(zm_ult_t *u)
{
    if (zm_arch_tsan_on())
        zm_arch_tsan_forget(&u->tsan_fiber);
    /* Never the last live ULT: the caller runs and stays. */
    u->state = ZM_ULT_NEW;
    u->busy = 0;
    atomic_fetch_sub(&job.alive, 1);
}

int zm_ult_arrive(int id, void *sp, const unsigned char *frame, size_t len, int worker)
{
    zm_ult_t *u = &job.ults[id];
    if (!job.cfg.stack_at || job.cfg.stack_at(id, &u->stack) != 0)
        return -1;
    u->id = id;
    u->entry = NULL;
    u->exit_status = 0;
    u->pinned = 0;
    u->busy = 0;
    u->foreign = 0;
    zm_ult_resume_saved(u, sp, frame, len);
    /* Counted before it can run: the caller is a live ULT of this process,
     * so the job cannot end in between. */
    atomic_fetch_add(&job.alive, 1);
    zm_ult_wake_on(u, worker);
    return 0;
}
