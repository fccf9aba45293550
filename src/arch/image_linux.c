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
#include "arch/valgrind_shim.h"

#include <dlfcn.h>
#include <link.h>
#include <elf.h>
#include <errno.h>
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
 * copy is ours to change.  The file is read and patched with pread/pwrite,
 * never mapped: valgrind takes every mapping of a file as part of its
 * loading and aborts on a writable whole-file mapping followed by the
 * dynamic loader's ones.  Returns 0 on success. */
static int clear_pie_mark(int fd, size_t size)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh || pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phoff + (size_t)eh.e_phnum * sizeof(Elf64_Phdr) > size)
        return -1;
    int rc = -1;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (size_t)i * sizeof ph)) !=
            (ssize_t)sizeof ph)
            return -1;
        if (ph.p_type != PT_DYNAMIC || ph.p_offset + ph.p_filesz > size)
            continue;
        for (size_t k = 0; k < ph.p_filesz / sizeof(Elf64_Dyn); k++) {
            Elf64_Dyn d;
            off_t at = (off_t)(ph.p_offset + k * sizeof d);
            if (pread(fd, &d, sizeof d, at) != (ssize_t)sizeof d)
                return -1;
            if (d.d_tag == DT_NULL)
                break;
            if (d.d_tag != DT_FLAGS_1)
                continue;
            d.d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
            if (pwrite(fd, &d, sizeof d, at) != (ssize_t)sizeof d)
                return -1;
        }
        rc = 0;
    }
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

/* Nonzero if a sanitizer's run time (ASan, UBSan, TSan, LSan) is in the
 * process: every one of them exports this function. */
static int sanitized(void)
{
    return dlsym(RTLD_DEFAULT, "__sanitizer_set_report_path") != NULL;
}

/* Nonzero if the copies' files must stay until their ranks end: under a
 * debugger, valgrind or a sanitizer.  Each reads a copy's symbols from
 * the file it names, some time after the load (gdb at its next stop,
 * valgrind and the sanitizers' symbolizers when they first report an
 * address in it); an unlinked copy shows as "zmpi-<pid>-<rank>.so+0x..."
 * without function, file or line. */
static int keep_copies(void)
{
    return traced() || zm_arch_vg_running() || sanitized();
}

/* Make the program's global data symbols local in the symbol table
 * (.symtab, which only debuggers read; the loader uses .dynsym) of the
 * copy `fd`.  gdb takes a global variable of a shared object to be
 * possibly copy-relocated into the main program and shows the first
 * program-wide definition of its name instead: every rank's `print g`
 * would show the launcher image's g.  Local symbols are never copied, so
 * gdb then uses the copy's own variable.  Best effort: a file without a
 * symbol table, or one that cannot be read, is left as it is. */
static void localize_data_symbols(int fd, size_t size)
{
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || eh.e_shoff == 0 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr) > size)
        return;
    for (int i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (size_t)i * sizeof sh)) !=
            (ssize_t)sizeof sh)
            return;
        if (sh.sh_type != SHT_SYMTAB || sh.sh_offset + sh.sh_size > size)
            continue;
        Elf64_Sym *sym = malloc(sh.sh_size);
        if (!sym || pread(fd, sym, sh.sh_size, (off_t)sh.sh_offset) != (ssize_t)sh.sh_size) {
            free(sym);
            return;
        }
        for (size_t k = 0; k < sh.sh_size / sizeof *sym; k++) {
            int bind = ELF64_ST_BIND(sym[k].st_info);
            if (ELF64_ST_TYPE(sym[k].st_info) == STT_OBJECT && sym[k].st_shndx != SHN_UNDEF &&
                sym[k].st_shndx < SHN_LORESERVE && (bind == STB_GLOBAL || bind == STB_WEAK))
                sym[k].st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT);
        }
        /* A short write changes fewer entries, each of them whole (the
         * binding is one byte): the table stays valid either way. */
        ssize_t done = pwrite(fd, sym, sh.sh_size, (off_t)sh.sh_offset);
        (void)done;
        free(sym);
    }
}

/* Copy the program file `from` to `path`; 0 on success. */
static int copy_file(const char *from, const char *path)
{
    int src = open(from, O_RDONLY | O_CLOEXEC);
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
        /* Only for a debugger: it costs a pass over the symbol table. */
        if (rc == 0 && traced())
            localize_data_symbols(dst, (size_t)st.st_size);
    }
    if (dst >= 0)
        close(dst);
    close(src);
    return rc;
}

static void *dl_load(const char *prog, int id, char *err, size_t errlen);

/* A rank's copy: loaded by zmpi (image_clone_linux.c) or by dlopen. */
struct image {
    struct zm_arch_clone *clone;
    void *dl;
};

/* Which loader makes the copies of the running program: ZMPI_LOADER=dl
 * forces dlopen, =zmpi zmpi's own (an error where it cannot), and the
 * default takes zmpi's where it can.  Debuggers, valgrind and the
 * sanitizers see only what the dynamic loader loads, so they get dlopen. */
static int own_loader(char *err, size_t errlen)
{
    const char *v = getenv("ZMPI_LOADER");
    if (v && strcmp(v, "dl") == 0)
        return 0;
    int forced = v && strcmp(v, "zmpi") == 0;
    if (!forced && keep_copies())
        return 0;
    const char *why = zm_arch_clone_usable();
    if (!why)
        return 1;
    if (forced) {
        snprintf(err, errlen, "ZMPI_LOADER=zmpi cannot load this program: %s", why);
        return -1;
    }
    return 0;
}

int zm_arch_image_maps(void)
{
    char err[256];
    /* A dlopen'ed copy maps its read-only and its writable segment. */
    return own_loader(err, sizeof err) > 0 ? zm_arch_clone_maps() : 2;
}

void *zm_arch_image_clone(int id, uintptr_t at, int restore, char *err, size_t errlen)
{
    struct image *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* A copy at a fixed place is zmpi's loader's alone. */
    int own = at ? 1 : own_loader(err, errlen);
    if (own > 0)
        im->clone = zm_arch_clone_load(at, restore, err, errlen);
    else if (own == 0)
        im->dl = dl_load("/proc/self/exe", id, err, errlen);
    if (!im->clone && !im->dl) {
        free(im);
        return NULL;
    }
    return im;
}

void *zm_arch_image_load(const char *prog, int id, char *err, size_t errlen)
{
    struct image *im = calloc(1, sizeof *im);
    if (im && !(im->dl = dl_load(prog, id, err, errlen))) {
        free(im);
        return NULL;
    }
    if (!im)
        snprintf(err, errlen, "out of memory");
    return im;
}

/* Load a copy of `prog` through dlopen: a file of its own per copy. */
static void *dl_load(const char *prog, int id, char *err, size_t errlen)
{
    char path[128];
    const char *dir = getenv("ZMPI_TMPDIR");
    snprintf(path, sizeof path, "%s/zmpi-%d-%d.so", dir ? dir : "/dev/shm", (int)getpid(), id);
    unlink(path);
    if (copy_file(prog, path) != 0) {
        snprintf(err, errlen, "cannot copy the program to %s", path);
        unlink(path);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    /* Without a debugger or valgrind the name can go at once, so nothing is
     * left behind when a rank aborts or the job is killed (zmpirun removes
     * what a debugged job leaves).  With one, the file stays until
     * zm_arch_image_close (keep_copies). */
    if (!h || !keep_copies())
        unlink(path);
    if (!h)
        snprintf(err, errlen, "cannot load a copy of the program: %s", dlerror());
    return h;
}

#if defined(__x86_64__)
#define COPY_RELOC R_X86_64_COPY
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define COPY_RELOC R_AARCH64_COPY
#define OUR_MACHINE EM_AARCH64
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

/* The shared libraries of the process in load order, for
 * zm_arch_libs_fini: not the program (first), the loader, the vDSO or the
 * rank copies that dlopen made (each was finalized with its rank). */
struct lib_list {
    uintptr_t base[512], dyn[512];
    int n, seen;
};

static int list_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct lib_list *l = arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (l->seen++ == 0 || !name[0] || strstr(name, "ld-linux") || strstr(name, "/zmpi-") ||
        l->n == (int)(sizeof l->base / sizeof *l->base))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            l->base[l->n] = info->dlpi_addr;
            l->dyn[l->n++] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        }
    return 0;
}

/* Run one library's destructors as the loader would: its fini array from
 * the last entry to the first, then DT_FINI. */
static void run_fini(uintptr_t base, const Elf64_Dyn *d)
{
    uintptr_t arr = 0, fini = 0;
    size_t bytes = 0;
    for (; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_FINI_ARRAY)
            arr = dyn_addr(base, d->d_un.d_ptr);
        else if (d->d_tag == DT_FINI_ARRAYSZ)
            bytes = d->d_un.d_val;
        else if (d->d_tag == DT_FINI)
            fini = dyn_addr(base, d->d_un.d_ptr);
    }
    void (**fn)(void) = (void (**)(void))arr;
    for (size_t i = arr ? bytes / sizeof *fn : 0; i > 0; i--)
        if (fn[i - 1] && (uintptr_t)fn[i - 1] != (uintptr_t)-1)
            fn[i - 1]();
    if (fini)
        ((void (*)(void))fini)();
}

void zm_arch_libs_fini(void)
{
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done))
        return;
    static struct lib_list l;
    dl_iterate_phdr(list_lib, &l);
    for (int i = l.n - 1; i >= 0; i--)
        run_fini(l.base[i], (const Elf64_Dyn *)l.dyn[i]);
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

void *zm_arch_image_main(void *image)
{
    struct image *im = image;
    return im->clone ? zm_arch_clone_main(im->clone) : dlsym(im->dl, "main");
}

struct zm_arch_clone *zm_arch_image_own(void *image)
{
    return ((struct image *)image)->clone;
}

void zm_arch_image_close(void *image)
{
    struct image *im = image;
    if (im->clone) {
        zm_arch_clone_close(im->clone);
    } else {
        struct link_map *lm = NULL;
        if (keep_copies() && dlinfo(im->dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
            unlink(lm->l_name);
        dlclose(im->dl);
    }
    free(im);
}

/* ---- Recognising a program built by zmpicc (spawn) ----------------------- */

/* The section headers of an ELF64 file mapped at p (size bytes), or NULL. */
static const Elf64_Shdr *elf_sections(const unsigned char *p, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        return NULL;
    return (const Elf64_Shdr *)(p + eh->e_shoff);
}

/* What probe_mapped found in the dynamic symbols and section. */
struct probe {
    int main_sym;      /* exports a defined function `main` */
    int needs_zmpi;    /* DT_NEEDED names libzmpi.so */
    int pie;           /* DT_FLAGS_1 has DF_1_PIE */
};

static void probe_dynamic(const unsigned char *p, size_t size, const Elf64_Shdr *sh, int n,
                          struct probe *pr)
{
    for (int i = 0; i < n; i++) {
        if (sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_DYNAMIC)
            continue;
        if (sh[i].sh_link >= (unsigned)n || sh[i].sh_offset + sh[i].sh_size > size)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (strs->sh_offset + strs->sh_size > size)
            continue;
        const char *str = (const char *)p + strs->sh_offset;
        size_t strsz = strs->sh_size;
        if (sh[i].sh_type == SHT_DYNSYM) {
            const Elf64_Sym *sym = (const Elf64_Sym *)(p + sh[i].sh_offset);
            for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
                if (sym[k].st_name < strsz && sym[k].st_shndx != SHN_UNDEF &&
                    ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC &&
                    strcmp(str + sym[k].st_name, "main") == 0)
                    pr->main_sym = 1;
            continue;
        }
        const Elf64_Dyn *d = (const Elf64_Dyn *)(p + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *d && d[k].d_tag != DT_NULL; k++) {
            if (d[k].d_tag == DT_NEEDED && d[k].d_un.d_val < strsz &&
                strncmp(str + d[k].d_un.d_val, "libzmpi.so", 10) == 0)
                pr->needs_zmpi = 1;
            if (d[k].d_tag == DT_FLAGS_1 && (d[k].d_un.d_val & DF_1_PIE))
                pr->pie = 1;
        }
    }
}

int zm_arch_image_probe(const char *prog, char *why, size_t whylen)
{
    int fd = open(prog, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, whylen, "cannot open it: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0) {
        snprintf(why, whylen, "not an executable file");
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    unsigned char *p = size >= sizeof(Elf64_Ehdr)
                       ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED || memcmp(p, ELFMAG, SELFMAG) != 0 || p[EI_CLASS] != ELFCLASS64) {
        snprintf(why, whylen, "not a 64-bit ELF program (a script cannot run as virtual "
                 "ranks)");
        if (p != MAP_FAILED)
            munmap(p, size);
        return -1;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    struct probe pr = { 0, 0, 0 };
    const Elf64_Shdr *sh = elf_sections(p, size);
    if (sh)
        probe_dynamic(p, size, sh, eh->e_shnum, &pr);
    int ok = eh->e_type == ET_DYN && eh->e_machine == OUR_MACHINE &&
             pr.main_sym && pr.needs_zmpi && pr.pie;
    if (!ok)
        snprintf(why, whylen, "not built by zmpicc for privatization (%s); only such programs "
                 "can run as virtual ranks",
                 !pr.needs_zmpi ? "it does not use libzmpi"
                 : !pr.main_sym || eh->e_type != ET_DYN ? "main not exported: "
                                                         "-zmpi-no-privatize?"
                 : "wrong architecture or not a PIE");
    munmap(p, size);
    return ok ? 0 : -1;
}
