/*
 * ult_job.c: the job's shape as the layers above ask for it: ULT records
 * by id, counts, spare ids for spawned ranks, the single adopted rank of
 * a program started without zmpi's launcher, and the report of a rank's
 * stack overflow.  The scheduler itself is in ult.c.
 */
#include "ult/ult_impl.h"

#include <string.h>
#include <unistd.h>

#define job zm_ult_job
#define tl_worker zm_ult_tl_worker
#define tl_adopted zm_ult_tl_adopted

zm_ult_t *zm_ult_get(int id)
{
    /* An adopted job's other ULTs are in other processes: a record that
     * never runs stands for them. */
    static zm_ult_t elsewhere;
    if (job.adopted)
        return id == job.adopted_ult.id ? &job.adopted_ult : &elsewhere;
    return &job.ults[id];
}

int zm_ult_count(void)
{
    return atomic_load_explicit(&job.nids, memory_order_acquire);
}

int zm_ult_nworkers(void)
{
    return job.adopted ? 1 : job.cfg.nworkers;
}

int zm_ult_in_job(void)
{
    return tl_worker != NULL && tl_worker->current != NULL;
}

void zm_ult_set_resolver(zm_ult_resolve_fn fn)
{
    job.resolve = fn;
}

void zm_ult_job_adopt(zm_ult_describe_fn describe, int id, int nults)
{
    job.adopted = 1;
    job.capacity = nults;
    atomic_store(&job.nids, nults);
    job.adopted_ult.id = id;
    job.cfg.nults = nults;
    job.cfg.nworkers = 1;
    job.cfg.describe = describe;
    job.adopted_ult.state = ZM_ULT_READY;
    atomic_store(&job.alive, 1);
    tl_adopted = &job.adopted_ult;
}

int zm_ult_capacity(void)
{
    return job.capacity;
}

void zm_ult_ids_setup(const zm_ult_job_config_t *cfg)
{
    int n = cfg->nults, stride = cfg->id_stride > 0 ? cfg->id_stride : 1;
    long spare = cfg->spare > 0 ? cfg->spare : 0;
    if (spare > 0x7fffffffL - n)
        spare = 0x7fffffffL - n;
    job.capacity = n + (int)spare;
    atomic_store(&job.nids, n);
    atomic_store(&job.nspawned, 0);
    job.id_stride = stride;
    job.id_first = n + cfg->id_offset;
    /* Ids id_first + k * stride for k below spawn_max stay under capacity. */
    job.spawn_max = cfg->id_offset < spare ? (int)((spare - 1 - cfg->id_offset) / stride) + 1 : 0;
}

int zm_ult_id_stride(void)
{
    return job.adopted ? 1 : job.id_stride;
}

int zm_ult_spare_left(void)
{
    return job.adopted ? 0 : job.spawn_max - atomic_load(&job.nspawned);
}

int zm_ult_reserve(int n)
{
    if (job.adopted || !tl_worker || n < 0)
        return -1;
    int k = atomic_load(&job.nspawned);
    do {
        if (n > job.spawn_max - k)
            return -1;
    } while (!atomic_compare_exchange_weak(&job.nspawned, &k, k + n));
    int first = job.id_first + k * job.id_stride;
    int end = first + (n > 0 ? (n - 1) * job.id_stride + 1 : 0), seen = atomic_load(&job.nids);
    while (end > seen && !atomic_compare_exchange_weak(&job.nids, &seen, end))
        ;
    return first;
}

int zm_ult_job_adopted(void)
{
    return job.adopted;
}

int zm_ult_job_scheduled(void)
{
    return job.ults != NULL;
}

/* Format an unsigned number into buf (async-signal-safe); returns length. */
static size_t fmt_u(char *buf, unsigned long v)
{
    char tmp[24];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

/* A fault in (or up to 1 MiB below) the running ULT's guard page is a
 * stack overflow, since a large frame can jump over one page. */
int zm_ult_stack_fault(void *addr)
{
    zm_worker_t *w = tl_worker;
    zm_ult_t *u = w ? w->current : NULL;
    char msg[256];
    size_t n = 0;
    if (!u || !u->stack.map)
        return 0;
    uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)u->stack.lo;
    if (a >= lo || a + (1u << 20) < (uintptr_t)u->stack.map)
        return 0;
#define PUT(s) do { size_t l_ = strlen(s); memcpy(msg + n, s, l_); n += l_; } while (0)
    PUT("zmpi: rank ");
    n += fmt_u(msg + n, (unsigned long)u->id);
    PUT(": stack overflow (stack size ");
    n += fmt_u(msg + n, (unsigned long)((uintptr_t)u->stack.hi - lo));
    PUT(" bytes); raise it with zmpirun --stack-size or ZMPI_STACK_SIZE\n");
#undef PUT
    if (write(2, msg, n) < 0)
        return 1;
    return 1;
}
