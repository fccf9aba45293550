/*
 * Entry point of a privatized program (an executable shared object): the
 * dynamic loader jumps here with the process's initial stack (argc, argv,
 * envp).  Pass that stack pointer to zmpi_priv_entry(long *sp), which never
 * returns.
 */
    .text
    .globl zm_arch_entry
    .type zm_arch_entry, %function
zm_arch_entry:
    mov x29, #0
    mov x30, #0
    mov x0, sp
    bl zmpi_priv_entry
    brk #0
    .size zm_arch_entry, .-zm_arch_entry
    .section .note.GNU-stack,"",%progbits
