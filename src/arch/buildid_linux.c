/*
 * buildid_linux.c: the GNU build ids of loaded objects (ELF notes).  A
 * checkpoint records those of the program and of libzmpi, so that a
 * restart with a rebuilt program or library, whose memory layout may
 * differ, is refused with a message instead of restoring memory into the
 * wrong places (src/mpi/checkpoint.c).
 */
#include "arch/arch.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

struct find_id {
    uintptr_t base; /* the object's load base; 0: the first listed, the program */
    int first;
    char *out;
    size_t n;
};

/* The hex digits of the object's NT_GNU_BUILD_ID note, into f->out. */
static void note_id(const struct dl_phdr_info *info, struct find_id *f)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *name = (const unsigned char *)(nh + 1);
            const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0) {
                size_t k = 0;
                for (unsigned j = 0; j < nh->n_descsz && k + 3 <= f->n; j++, k += 2)
                    snprintf(f->out + k, 3, "%02x", desc[j]);
                return;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find_id *f = arg;
    int mine = f->base ? info->dlpi_addr == f->base : f->first;
    f->first = 0;
    if (!mine)
        return 0;
    note_id(info, f);
    return 1;
}

void zm_arch_build_id(const void *addr, char *out, size_t n)
{
    struct find_id f = {0, 1, out, n};
    Dl_info dl;
    if (n == 0)
        return;
    out[0] = '\0';
    if (addr) {
        if (!dladdr(addr, &dl) || !dl.dli_fbase)
            return;
        f.base = (uintptr_t)dl.dli_fbase;
    }
    dl_iterate_phdr(find_cb, &f);
}
