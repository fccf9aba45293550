/*
 * f08_stub.h: the assembly fast path of the Fortran glue functions whose
 * library entry takes the arguments as the glue receives them but for the
 * choice buffer's address (src/bindings/fortran/, scripts/gen_fortran_glue.py's
 * BIND_ENTRIES: MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Allreduce).  Assembly lives in src/arch/ only;
 * the bindings include this header (and no other internal one) for it.
 * Defines ZF_FAST_ASM, ZF_SLOW_ASM and ZF_FAST_ASM_FN on x86-64 ELF
 * unless ZF_NO_ASM is defined; the includer supplies the C form otherwise.
 */
#ifndef ZM_ARCH_F08_STUB_H
#define ZM_ARCH_F08_STUB_H

#include <ISO_Fortran_binding.h>
#include <stddef.h>

/* The fast path: zf_cdesc_plain's test, then the library entry with the
 * descriptor's base address in place of the descriptor, else the general
 * form.  Written in C, GCC loads every argument passed on the stack
 * (status, ierror) and stores it back into the same slot before either
 * tail call (2 to 4 instructions a call); here they stay where the caller
 * put them.  The descriptor's layout is asserted below.  The entry is
 * reached through its GOT slot, as -fno-plt would, without the PLT
 * stub's jump.  name is the function, alias its weak alias
 * (MPI_X_f08ts), entry the library's entry, slow the general form
 * (ZF_SLOW_ASM, so that GCC keeps it under that name). */
#if defined(__x86_64__) && defined(__ELF__) && !defined(ZF_NO_ASM)
#define ZF_FAST_ASM 1
_Static_assert(offsetof(CFI_cdesc_t, base_addr) == 0 && offsetof(CFI_cdesc_t, elem_len) == 8 &&
                   offsetof(CFI_cdesc_t, rank) == 20 && sizeof(CFI_rank_t) == 1 &&
                   offsetof(CFI_cdesc_t, type) == 22 && sizeof(CFI_type_t) == 2 &&
                   offsetof(CFI_cdesc_t, dim) == 24 && offsetof(CFI_dim_t, sm) == 16 &&
                   sizeof(CFI_index_t) == 8 && sizeof(size_t) == 8 && CFI_type_struct == 6,
               "ZF_FAST_ASM_FN assumes gfortran's descriptor layout on x86-64");
#ifdef __CET__
#define ZF_ASM_ENDBR "\tendbr64\n"
#else
#define ZF_ASM_ENDBR ""
#endif
#define ZF_SLOW_ASM static __attribute__((noipa, used))
/* What both fast paths start and end with: the function's label, and its
 * size and weak alias. */
#define ZF_ASM_HEAD(name)                                                          \
    ".pushsection .text\n"                                                        \
    "\t.p2align 4\n"                                                              \
    "\t.globl " #name "\n"                                                        \
    "\t.type " #name ", @function\n" #name ":\n" ZF_ASM_ENDBR
#define ZF_ASM_TAIL(name, alias)                                                   \
    "\t.size " #name ", .-" #name "\n"                                             \
    "\t.weak " #alias "\n"                                                        \
    "\t.type " #alias ", @function\n"                                             \
    "\t.set " #alias ", " #name "\n"                                              \
    ".popsection\n"
/* The descriptor's rank into %al: gfortran stores version, rank,
 * attribute and type (offsets 16 to 23) as one 8-byte word just before
 * the call, and a load of exactly that word is forwarded from the store
 * at once, where a 1-byte load at offset 20, inside the word, waits for
 * it (on this project's AMD Zen 4 host a chain of such a store and load
 * takes 14 cycles an iteration with the byte, 1.4 with the whole word,
 * and the 8-byte mpi_f08 ping-pong's best runs on 1 worker were 1.6 to
 * 2.5 % faster, for two instructions more a call; docs/fortran.md, "Why 1
 * worker shows more").  After it %eax holds rank, attribute and type
 * (bits 0-7, 8-15, 16-31). */
#define ZF_ASM_RANK(reg)                                                           \
    "\tmovq 16(" reg "), %rax\n"                                                 \
    "\tshrq $32, %rax\n"
/* zf_cdesc_plain's test of a rank-1 descriptor at (reg), its rank, type
 * and attribute in %eax (ZF_ASM_RANK): not CFI_type_struct (a sentinel),
 * elements adjacent (sm == elem_len); jumps to label `yes` if it passes,
 * to `no` if the rank is not 1, and falls through otherwise. */
#define ZF_ASM_RANK1(reg, yes, no)                                                 \
    "\tcmpb $1, %al\n"                                                            \
    "\tjne " no "\n"                                                              \
    "\tshrl $16, %eax\n"                                                          \
    "\tcmpw $6, %ax\n"                                                            \
    "\tje " no "\n"                                                               \
    "\tmovq 8(" reg "), %rax\n"                                                   \
    "\tcmpq %rax, 40(" reg ")\n"                                                  \
    "\tje " yes "\n"
#define ZF_FAST_ASM_FN(name, alias, entry, slow)                                   \
    __asm__(ZF_ASM_HEAD(name)                                                      \
            ZF_ASM_RANK("%rdi")                                                    \
            "\ttestb %al, %al\n"         /* rank 0: never a sentinel */           \
            "\tjne 1f\n"                                                           \
            "0:\tmovq (%rdi), %rdi\n"     /* base_addr */                          \
            "\tjmp *" #entry "@GOTPCREL(%rip)\n"  /* no PLT stub */                \
            "1:\n" ZF_ASM_RANK1("%rdi", "0b", "2f")                                 \
            "2:\tjmp " #slow "\n"                                                  \
            ZF_ASM_TAIL(name, alias));

/* ZF_FAST_ASM_FN for the functions with two choice buffers, the first
 * two arguments (MPI_Allreduce): both tested as above, both replaced by
 * their base addresses. */
#define ZF_FAST_ASM_FN2(name, alias, entry, slow)                                  \
    __asm__(ZF_ASM_HEAD(name)                                                      \
            ZF_ASM_RANK("%rdi")                                                    \
            "\ttestb %al, %al\n"         /* first: rank 0 */                      \
            "\tjne 3f\n"                                                           \
            "1:\n" ZF_ASM_RANK("%rsi")                                             \
            "\ttestb %al, %al\n"         /* second: rank 0 */                     \
            "\tjne 4f\n"                                                           \
            "2:\tmovq (%rdi), %rdi\n"     /* the base addresses */                 \
            "\tmovq (%rsi), %rsi\n"                                                \
            "\tjmp *" #entry "@GOTPCREL(%rip)\n"                                   \
            "3:\n" ZF_ASM_RANK1("%rdi", "1b", "9f")                                 \
            "\tjmp 9f\n"                                                           \
            "4:\n" ZF_ASM_RANK1("%rsi", "2b", "9f")                                 \
            "9:\tjmp " #slow "\n"                                                  \
            ZF_ASM_TAIL(name, alias));
#endif

#endif
