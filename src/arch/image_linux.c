/*
 * image_linux.c: private copies of the running program, one per rank.
 *
 * A program linked for privatization is a position-independent executable
 * whose entry point is zmpi's (docs/privatization.md).  Each rank gets its
 * own copy of the file, with the executable's PIE mark cleared so that
 * dlopen accepts it, and with the copy its own global and static
 * variables.  The copies need distinct path names: glibc recognises an
 * object it has loaded by its name before it looks at the file. */
#include "arch/arch.h"

#include <dlfcn.h>
#include <link.h>
#include <elf.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

/* Clear DF_1_PIE in the dynamic section of the ELF64 file `fd`: glibc's
 * dlopen refuses objects with that mark and checks nothing else, and the
 * copy is ours to change.  Returns 0 on success. */
static int clear_pie_mark(int fd, size_t size)
{
    unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    int rc = -1;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
    if (size >= sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
        eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) <= size) {
        Elf64_Phdr *ph = (Elf64_Phdr *)(p + eh->e_phoff);
        for (int i = 0; i < eh->e_phnum; i++) {
            if (ph[i].p_type != PT_DYNAMIC || ph[i].p_offset + ph[i].p_filesz > size)
                continue;
            Elf64_Dyn *d = (Elf64_Dyn *)(p + ph[i].p_offset);
            for (size_t k = 0; k < ph[i].p_filesz / sizeof *d && d[k].d_tag != DT_NULL; k++)
                if (d[k].d_tag == DT_FLAGS_1)
                    d[k].d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
            rc = 0;
        }
    }
    munmap(p, size);
    return rc;
}

/* Nonzero if a debugger was attached when the first copy was made
 * (TracerPid in /proc/self/status).  Read once: every rank asks, at start
 * and at end, and a debugger attached later finds the copies already
 * loaded and named by then. */
static int traced(void)
{
    static _Atomic int cached = -1;
    int t = atomic_load_explicit(&cached, memory_order_relaxed);
    if (t >= 0)
        return t;
    char line[128];
    int pid = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "TracerPid: %d", &pid) == 1)
                break;
        fclose(f);
    }
    t = pid != 0;
    atomic_store_explicit(&cached, t, memory_order_relaxed);
    return t;
}

/* Copy the running program's file to `path`; 0 on success. */
static int copy_self(const char *path)
{
    int src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (src < 0)
        return -1;
    int dst = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0700);
    struct stat st;
    int rc = -1;
    if (dst >= 0 && fstat(src, &st) == 0) {
        off_t off = 0;
        while (off < st.st_size && sendfile(dst, src, &off, (size_t)(st.st_size - off)) > 0)
            ;
        rc = off == st.st_size ? clear_pie_mark(dst, (size_t)st.st_size) : -1;
    }
    if (dst >= 0)
        close(dst);
    close(src);
    return rc;
}

void *zm_arch_image_clone(int id, char *err, size_t errlen)
{
    char path[128];
    const char *dir = getenv("ZMPI_TMPDIR");
    snprintf(path, sizeof path, "%s/zmpi-%d-%d.so", dir ? dir : "/dev/shm", (int)getpid(), id);
    unlink(path);
    if (copy_self(path) != 0) {
        snprintf(err, errlen, "cannot copy the program to %s", path);
        unlink(path);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    /* Without a debugger the name can go at once, so nothing is left behind
     * when a rank aborts or the job is killed.  A debugger reads the copy's
     * symbols from the file some time after the load, so then the file stays
     * until zm_arch_image_close. */
    if (!h || !traced())
        unlink(path);
    if (!h)
        snprintf(err, errlen, "cannot load a copy of the program: %s", dlerror());
    return h;
}

#if defined(__x86_64__)
#define COPY_RELOC R_X86_64_COPY
#elif defined(__aarch64__)
#define COPY_RELOC R_AARCH64_COPY
#endif

/* The main program's dynamic section: dl_iterate_phdr lists it first. */
static int find_main(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            ((uintptr_t *)out)[0] = info->dlpi_addr;
            ((uintptr_t *)out)[1] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        }
    return 1;
}

/* A dynamic-section address: ld.so has already added the load base to
 * some of them, in place; link-time addresses of a PIE are below it. */
static uintptr_t dyn_addr(uintptr_t base, uintptr_t v)
{
    return v < base ? base + v : v;
}

int zm_arch_image_check(const char *prog, char *err, size_t errlen)
{
    uintptr_t m[2] = {0, 0};
    dl_iterate_phdr(find_main, m);
    if (!m[1])
        return 0;
    const Elf64_Rela *rela = NULL;
    const Elf64_Sym *sym = NULL;
    const char *str = NULL;
    size_t relasz = 0;
    for (const Elf64_Dyn *d = (const Elf64_Dyn *)m[1]; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_RELA)
            rela = (const Elf64_Rela *)dyn_addr(m[0], d->d_un.d_ptr);
        else if (d->d_tag == DT_RELASZ)
            relasz = d->d_un.d_val;
        else if (d->d_tag == DT_SYMTAB)
            sym = (const Elf64_Sym *)dyn_addr(m[0], d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            str = (const char *)dyn_addr(m[0], d->d_un.d_ptr);
    }
    if (!rela || !sym || !str)
        return 0;
    /* stdin, stdout and stderr are pointers that libc sets once at start:
     * a copy's snapshot of them stays right. */
    char names[160] = "";
    int bad = 0;
    for (size_t i = 0; i < relasz / sizeof *rela; i++) {
        if (ELF64_R_TYPE(rela[i].r_info) != COPY_RELOC)
            continue;
        const char *n = str + sym[ELF64_R_SYM(rela[i].r_info)].st_name;
        if (!strcmp(n, "stdin") || !strcmp(n, "stdout") || !strcmp(n, "stderr"))
            continue;
        if (bad++ < 4)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     bad > 1 ? ", " : "", n);
    }
    if (!bad)
        return 0;
    snprintf(err, errlen,
             "%s was compiled without -fPIC: its code reads %s%s from a system library "
             "through copy relocations, which the per-rank copies of a privatized program "
             "cannot share (each would see a stale or unconstructed object). Compile its "
             "sources with -fPIC (zmpicc and zmpicxx add it; CMake's FindMPI drops it "
             "from their flags, so add it to the target: target_compile_options(<target> "
             "PRIVATE -fPIC), or use find_package(zmpi)), or link with -zmpi-no-privatize "
             "if the program keeps no state in globals",
             prog, names, bad > 4 ? ", ..." : "");
    return -1;
}

void *zm_arch_image_sym(void *image, const char *name)
{
    return dlsym(image, name);
}

void zm_arch_image_close(void *image)
{
    struct link_map *lm = NULL;
    if (traced() && dlinfo(image, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        unlink(lm->l_name);
    dlclose(image);
}
