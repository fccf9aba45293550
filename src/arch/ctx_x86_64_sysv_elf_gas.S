/*
 * Context switch for x86-64, System V ABI, ELF, GNU as.
 *
 * void zm_arch_ctx_swap(void **save_sp, void *new_sp)
 *   Saves the callee-saved registers and the SSE/x87 control words of the
 *   running context on its own stack, stores its stack pointer in *save_sp,
 *   then restores the context whose stack pointer is new_sp.  No signal mask
 *   is saved: that is what makes this cheaper than swapcontext().
 *
 * Saved frame layout (from the saved stack pointer upwards):
 *   0: mxcsr (4 bytes), 4: x87 control word (2 bytes), 8: r15, 16: r14,
 *   24: r13, 32: r12, 40: rbx, 48: rbp, 56: return address.
 */
    .text
    .globl zm_arch_ctx_swap
    .hidden zm_arch_ctx_swap
    .type zm_arch_ctx_swap, @function
    .align 16
zm_arch_ctx_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size zm_arch_ctx_swap, .-zm_arch_ctx_swap

/*
 * First code a new context runs: zm_arch_ctx_make leaves the entry function
 * in r13 and its argument in r12.  The entry function never returns.
 */
    .globl zm_arch_ctx_trampoline
    .hidden zm_arch_ctx_trampoline
    .type zm_arch_ctx_trampoline, @function
    .align 16
zm_arch_ctx_trampoline:
    movq %r12, %rdi
    xorl %ebp, %ebp
    callq *%r13
    ud2
    .size zm_arch_ctx_trampoline, .-zm_arch_ctx_trampoline

    .section .note.GNU-stack,"",@progbits
