/*
 * ctx_switch_bench.c: cost of one context switch with zm_arch_ctx_swap,
 * and of the ucontext swapcontext() it replaces, measured the same way:
 * two contexts switch back and forth N times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "arch/arch.h"

#define N 10000000

static zm_arch_ctx_t main_ctx, ult_ctx;
static ucontext_t umain, uult;

static void ult_body(void *arg)
{
    (void)arg;
    for (;;)
        zm_arch_ctx_switch(&ult_ctx, &main_ctx);
}

static void uult_body(void)
{
    for (;;)
        swapcontext(&uult, &umain);
}

int main(void)
{
    zm_arch_stack_t st;
    if (zm_arch_stack_alloc(64 * 1024, &st) != 0)
        return 1;
    zm_arch_ctx_make(&ult_ctx, &st, ult_body, NULL);
    uint64_t t0 = zm_arch_time_ns();
    for (int i = 0; i < N; i++)
        zm_arch_ctx_switch(&main_ctx, &ult_ctx);
    uint64_t t1 = zm_arch_time_ns();
    printf("zm_arch_ctx_swap: %.1f ns per switch\n", (double)(t1 - t0) / (2.0 * N));

    char *ustack = malloc(64 * 1024);
    getcontext(&uult);
    uult.uc_stack.ss_sp = ustack;
    uult.uc_stack.ss_size = 64 * 1024;
    uult.uc_link = NULL;
    makecontext(&uult, uult_body, 0);
    t0 = zm_arch_time_ns();
    for (int i = 0; i < N / 10; i++)
        swapcontext(&umain, &uult);
    t1 = zm_arch_time_ns();
    printf("ucontext swapcontext: %.1f ns per switch\n", (double)(t1 - t0) / (2.0 * N / 10));
    return 0;
}
