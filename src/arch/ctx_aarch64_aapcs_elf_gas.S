/*
 * Context switch for AArch64, AAPCS64, ELF, GNU as.
 *
 * void zm_arch_ctx_swap(void **save_sp, void *new_sp)
 *   Saves x19-x30 and d8-d15 (the callee-saved registers) and the FPCR on the
 *   running stack, stores the stack pointer in *save_sp and restores the
 *   context saved at new_sp.  The frame is 176 bytes:
 *   0: x19,x20  16: x21,x22  32: x23,x24  48: x25,x26  64: x27,x28
 *   80: x29,x30  96: d8,d9  112: d10,d11  128: d12,d13  144: d14,d15
 *   160: fpcr.
 */
    .text
    .globl zm_arch_ctx_swap
    .hidden zm_arch_ctx_swap
    .type zm_arch_ctx_swap, %function
    .align 4
zm_arch_ctx_swap:
    sub sp, sp, #176
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mrs x9, fpcr
    str x9, [sp, #160]
    mov x9, sp
    str x9, [x0]
    mov sp, x1
    ldr x9, [sp, #160]
    msr fpcr, x9
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #176
    ret
    .size zm_arch_ctx_swap, .-zm_arch_ctx_swap

/* New contexts start here with the entry function in x20 and its argument in x19. */
    .globl zm_arch_ctx_trampoline
    .hidden zm_arch_ctx_trampoline
    .type zm_arch_ctx_trampoline, %function
    .align 4
zm_arch_ctx_trampoline:
    mov x0, x19
    mov x29, #0
    blr x20
    brk #0
    .size zm_arch_ctx_trampoline, .-zm_arch_ctx_trampoline

    .section .note.GNU-stack,"",@progbits
