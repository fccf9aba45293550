/*
 * ult_capture.c: saving a ULT's context in place, and resuming it in
 * another process (checkpoint/restart, issue 21).
 *
 * A ULT's context is its stack pointer: a switch pushes the registers it
 * must keep on the ULT's own stack (src/arch/ctx_*.S).  To save one
 * without leaving the ULT, zm_ult_capture switches to a small "bounce"
 * context that copies the pushed bytes and switches straight back: no
 * worker or scheduler sees it, and no assembly beyond the switch itself
 * is needed on any CPU.  The bytes must be kept apart because the code
 * that runs after the save (writing the checkpoint) reuses that part of
 * the stack.  A restart writes them back and lets the scheduler switch
 * to the saved stack pointer as to any parked ULT; the ULT lands where
 * the bounce returned and, being resumed by a worker this time, finishes
 * that worker's switch as every landing does.
 */
#include "ult/ult_impl.h"

#include <string.h>

/* What the bounce context needs. */
typedef struct bounce {
    zm_arch_ctx_t ctx;      /* the bounce's own context */
    zm_arch_ctx_t back;     /* the ULT's, saved by the switch to the bounce */
    unsigned char *frame;   /* where to copy the saved bytes */
    size_t len;
} bounce_t;

static void bounce_entry(void *arg)
{
    bounce_t *b = arg;
    memcpy(b->frame, b->back.sp, b->len);
    zm_arch_ctx_switch(&b->ctx, &b->back);
}

/* noinline: the caller's registers must be saved by this call's switch,
 * not folded into code around it. */
__attribute__((noinline)) int zm_ult_capture(void **sp, unsigned char *frame, size_t len,
                                             const int *resumed)
{
    zm_arch_stack_t st;
    if (zm_arch_stack_alloc(16384, &st) != 0)
        return -1;
    bounce_t b = { { NULL }, { NULL }, frame, len };
    zm_arch_ctx_make(&b.ctx, &st, bounce_entry, &b);
    zm_arch_ctx_switch(&b.back, &b.ctx);
    /* Here twice: back from the bounce, or resumed in a restarted job, in
     * which only the arguments (kept as the save found them) are valid. */
    if (*(const volatile int *)resumed) {
        zm_ult_finish_switch();
        return 1;
    }
    *sp = b.back.sp;
    zm_arch_stack_free(&st);
    return 0;
}

void zm_ult_resume_saved(zm_ult_t *u, void *sp, const unsigned char *frame, size_t len)
{
    memcpy(sp, frame, len);
    u->ctx.sp = sp;
}
