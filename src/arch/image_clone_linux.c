/*
 * image_clone_linux.c: per-rank copies of the running program, loaded by
 * zmpi itself instead of by the dynamic loader.
 *
 * glibc's dlopen needs a file of its own per copy and walks its list of
 * loaded objects on every load, so start-up grew with the square of the
 * ranks and every copy cost the program's size in /dev/shm.  Here the
 * program is read once into a template: its writable segment with every
 * relocation applied, symbols resolved once for all ranks, plus the list
 * of words that hold addresses inside the program.  A copy is then:
 *   - the read-only segments (code, constants) mapped from the program
 *     file itself, so every copy shares the same physical pages through
 *     the page cache;
 *   - an anonymous writable region, filled from the template, with the
 *     copy's base added to the listed words (a memcpy and one add per
 *     address-holding word; .bss pages stay untouched until used);
 *   - its unwind tables registered with libgcc (C++ exceptions and
 *     backtraces through the copy's frames), its constructors run.
 * Programs this does not cover (thread-local storage, relocations of code,
 * ifuncs defined in the program, relocation types it does not know) are
 * left to the dlopen path, which image_linux.c takes when this one
 * declines.  Debuggers, valgrind and sanitizers also get the dlopen path:
 * they learn of loaded objects from the dynamic loader only. */
#include "arch/arch.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define R_RELATIVE R_X86_64_RELATIVE
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_ABS64 R_X86_64_64
#define R_COPY R_X86_64_COPY
#define R_NONE R_X86_64_NONE
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define R_RELATIVE R_AARCH64_RELATIVE
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_ABS64 R_AARCH64_ABS64
#define R_COPY R_AARCH64_COPY
#define R_NONE R_AARCH64_NONE
#define OUR_MACHINE EM_AARCH64
#endif

/* A read-only part of the program, mapped from its file into each copy. */
struct ro_map {
    uintptr_t vaddr;   /* page-aligned link-time address */
    size_t len;        /* page multiple */
    off_t off;         /* file offset of vaddr */
    int prot;
};

/* Everything a copy needs, computed once from the program file. */
static struct {
    int ok;                  /* the template is usable */
    char why[160];           /* else: why not (for ZMPI_LOADER=zmpi) */
    int fd;                  /* the program file, kept open for mmap */
    size_t span;             /* bytes from the lowest to the highest page */
    struct ro_map ro[4];
    int nro;
    uintptr_t rw_vaddr;      /* page-aligned start of the writable segment */
    size_t rw_len;           /* its mapped length (page multiple) */
    unsigned char *rw_init;  /* its first rw_init_len bytes, relocated for base 0 */
    size_t rw_init_len;
    uint32_t *words;         /* relocated words: offset from rw_vaddr << 1 | gets the base */
    size_t nwords;
    struct { uint32_t off, len; } copies[8];  /* copy relocations (bss objects) */
    int ncopies;
    int file_mode;           /* map the writable segment from the file (large data) */
    off_t rw_file_off;       /* file offset of rw_vaddr */
    size_t rw_file_len;      /* pages of the region that hold file contents */
    size_t rw_file_end;      /* offset in the region where the file contents end */
    uintptr_t main_off, init, init_array, fini, fini_array, eh_frame;
    size_t n_init, n_fini;
    void (*reg_frame)(void *);
    int argc;
    char **argv, **envp;
} T;

/* A loaded copy; kept on a list for the crash reporter, which turns a
 * program counter inside one into an offset in the program file. */
struct zm_arch_clone {
    uintptr_t base;
    struct zm_arch_clone *next;
};
static _Atomic(struct zm_arch_clone *) clones;

/* Initialized data above which a copy maps it from the file. */
#define FILE_MODE_BYTES (64 * 1024)

/* The program file mapped whole for reading while the template is built. */
struct file {
    const unsigned char *p;
    size_t size;
    const Elf64_Phdr *ph;
    int nph;
};

/* Pointer into the file to the bytes at link-time address v, which must
 * lie within a segment's file image (len bytes of it); NULL if not. */
static const void *at(const struct file *f, uintptr_t v, size_t len)
{
    for (int i = 0; i < f->nph; i++) {
        const Elf64_Phdr *p = &f->ph[i];
        if (p->p_type == PT_LOAD && v >= p->p_vaddr && v + len <= p->p_vaddr + p->p_filesz &&
            p->p_offset + p->p_filesz <= f->size)
            return f->p + p->p_offset + (v - p->p_vaddr);
    }
    return NULL;
}

static int decline(const char *why)
{
    snprintf(T.why, sizeof T.why, "%s", why);
    return -1;
}

/* The program's segments: read-only ones merged into as few mappings as
 * their file offsets allow, exactly one writable one. */
static int plan_segments(const struct file *f)
{
    size_t pg = zm_arch_page_size();
    uintptr_t hi = 0;
    int nrw = 0;
    for (int i = 0; i < f->nph; i++) {
        const Elf64_Phdr *p = &f->ph[i];
        if (p->p_type == PT_TLS)
            return decline("the program has thread-local variables");
        if (p->p_type != PT_LOAD || p->p_memsz == 0)
            continue;
        if ((p->p_vaddr - p->p_offset) % pg)
            return decline("a segment is not aligned to pages");
        uintptr_t lo = p->p_vaddr & ~(pg - 1), end = (p->p_vaddr + p->p_memsz + pg - 1) & ~(pg - 1);
        if (end > hi)
            hi = end;
        if (p->p_flags & PF_W) {
            if (nrw++)
                return decline("the program has several writable segments");
            T.rw_vaddr = lo;
            T.rw_len = end - lo;
            continue;
        }
        if (p->p_filesz != p->p_memsz)
            return decline("a read-only segment is not all in the file");
        int prot = PROT_READ | (p->p_flags & PF_X ? PROT_EXEC : 0);
        off_t off = (off_t)(p->p_offset - (p->p_vaddr - lo));
        struct ro_map *last = T.nro ? &T.ro[T.nro - 1] : NULL;
        /* One mapping covers consecutive segments at the same distance
         * from their file offsets: each mapping is a memory map the
         * kernel counts. */
        if (last && (off_t)(lo - last->vaddr) == off - last->off && lo >= last->vaddr) {
            last->len = end - last->vaddr > last->len ? end - last->vaddr : last->len;
            last->prot |= prot;
            continue;
        }
        if (T.nro == 4)
            return decline("too many read-only segments");
        T.ro[T.nro++] = (struct ro_map){ lo, end - lo, off, prot };
    }
    if (nrw != 1 || T.nro == 0 || T.ro[0].vaddr != 0)
        return decline("unexpected segment layout");
    T.span = hi;
    return 0;
}

/* Versions of the needed symbols: names[i] is the version with index i. */
static int read_versions(const struct file *f, uintptr_t verneed, size_t n, const char *str,
                         const char **names, int max)
{
    const unsigned char *vn = at(f, verneed, sizeof(Elf64_Verneed));
    for (size_t k = 0; vn && k < n; k++) {
        const Elf64_Verneed *v = (const Elf64_Verneed *)vn;
        const unsigned char *ax = vn + v->vn_aux;
        for (int j = 0; j < v->vn_cnt; j++) {
            const Elf64_Vernaux *a = (const Elf64_Vernaux *)ax;
            int idx = a->vna_other & 0x7fff;
            if (idx < max)
                names[idx] = str + a->vna_name;
            ax += a->vna_next;
        }
        if (!v->vn_next)
            break;
        vn += v->vn_next;
    }
    return 0;
}

/* The dynamic tables the relocation pass reads. */
struct dyn {
    const Elf64_Rela *rela, *jmprel;
    size_t relasz, jmprelsz;
    const Elf64_Sym *sym;
    const char *str;
    const Elf64_Half *versym;
    const char *ver[64];
};

static int read_dynamic(const struct file *f, struct dyn *d)
{
    const Elf64_Dyn *dy = NULL;
    size_t ndy = 0;
    uintptr_t verneed = 0, rela = 0, jmprel = 0, sym = 0, str = 0, versym = 0;
    size_t verneednum = 0, pltrel = DT_RELA;
    for (int i = 0; i < f->nph; i++)
        if (f->ph[i].p_type == PT_DYNAMIC) {
            dy = at(f, f->ph[i].p_vaddr, f->ph[i].p_filesz);
            ndy = f->ph[i].p_filesz / sizeof *dy;
        }
    if (!dy)
        return decline("no dynamic section");
    for (size_t i = 0; i < ndy && dy[i].d_tag != DT_NULL; i++) {
        uintptr_t v = dy[i].d_un.d_ptr;
        switch (dy[i].d_tag) {
        case DT_RELA: rela = v; break;
        case DT_RELASZ: d->relasz = v; break;
        case DT_JMPREL: jmprel = v; break;
        case DT_PLTRELSZ: d->jmprelsz = v; break;
        case DT_PLTREL: pltrel = v; break;
        case DT_SYMTAB: sym = v; break;
        case DT_STRTAB: str = v; break;
        case DT_VERSYM: versym = v; break;
        case DT_VERNEED: verneed = v; break;
        case DT_VERNEEDNUM: verneednum = v; break;
        case DT_INIT: T.init = v; break;
        case DT_FINI: T.fini = v; break;
        case DT_INIT_ARRAY: T.init_array = v; break;
        case DT_INIT_ARRAYSZ: T.n_init = v / sizeof(uintptr_t); break;
        case DT_FINI_ARRAY: T.fini_array = v; break;
        case DT_FINI_ARRAYSZ: T.n_fini = v / sizeof(uintptr_t); break;
        case DT_TEXTREL: return decline("the program relocates its code");
        case DT_REL: case DT_RELR: return decline("relocation table format not handled");
        case DT_FLAGS:
            if (v & DF_TEXTREL)
                return decline("the program relocates its code");
            break;
        default: break;
        }
    }
    if (pltrel != DT_RELA)
        return decline("relocation table format not handled");
    d->rela = rela ? at(f, rela, d->relasz) : NULL;
    d->jmprel = jmprel ? at(f, jmprel, d->jmprelsz) : NULL;
    d->sym = at(f, sym, sizeof(Elf64_Sym));
    d->str = at(f, str, 1);
    d->versym = versym ? at(f, versym, sizeof(Elf64_Half)) : NULL;
    if ((rela && !d->rela) || (jmprel && !d->jmprel) || !d->sym || !d->str)
        return decline("unreadable dynamic tables");
    memset(d->ver, 0, sizeof d->ver);
    if (verneed)
        read_versions(f, verneed, verneednum, d->str, d->ver, 64);
    return 0;
}

/* Value of undefined symbol `i` for every copy (they all bind to the same
 * libraries), from the global scope the program itself was bound in:
 * the version it was linked against first.  Returns 0 with *out set, -1
 * if a strong symbol is missing. */
static int resolve(const struct dyn *d, uint32_t i, uintptr_t *out)
{
    const Elf64_Sym *s = &d->sym[i];
    const char *name = d->str + s->st_name;
    void *v = NULL;
    int vi = d->versym ? d->versym[i] & 0x7fff : 0;
    if (vi >= 2 && vi < 64 && d->ver[vi])
        v = dlvsym(RTLD_DEFAULT, name, d->ver[vi]);
    if (!v)
        v = dlsym(RTLD_DEFAULT, name);
    if (!v && ELF64_ST_BIND(s->st_info) != STB_WEAK) {
        snprintf(T.why, sizeof T.why, "symbol %s not found", name);
        return -1;
    }
    *out = (uintptr_t)v;
    return 0;
}

/* Records that the word at `off` of the writable region is relocated,
 * and whether the copy's base is added to it. */
static int add_word(size_t off, int rebase, size_t *cap)
{
    if (T.nwords == *cap) {
        size_t n = *cap ? *cap * 2 : 256;
        uint32_t *p = realloc(T.words, n * sizeof *p);
        if (!p)
            return decline("out of memory");
        T.words = p;
        *cap = n;
    }
    T.words[T.nwords++] = (uint32_t)(off << 1 | (size_t)rebase);
    return 0;
}

/* Adds one relocation to the template: the word's value for base 0, and
 * its offset to the rebase list when it holds an address inside the
 * program.  `cache` memoizes the undefined symbols' values. */
static int relocate(const struct dyn *d, const Elf64_Rela *r, uintptr_t *cache, size_t *cap)
{
    uint32_t type = (uint32_t)ELF64_R_TYPE(r->r_info), si = (uint32_t)ELF64_R_SYM(r->r_info);
    if (type == R_NONE)
        return 0;
    if (r->r_offset < T.rw_vaddr || r->r_offset + 8 > T.rw_vaddr + T.rw_len)
        return decline("a relocation outside the writable segment");
    size_t off = r->r_offset - T.rw_vaddr;
    if (off + 8 > T.rw_init_len)
        T.rw_init_len = off + 8;
    unsigned char *w = T.rw_init + off;
    const Elf64_Sym *s = &d->sym[si];
    int local = si == 0 || s->st_shndx != SHN_UNDEF;
    if (type == R_RELATIVE || ((type == R_GLOB_DAT || type == R_JUMP_SLOT || type == R_ABS64) &&
                               local)) {
        if (local && si && ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC)
            return decline("an ifunc defined in the program");
        uintptr_t v = (type == R_RELATIVE ? 0 : s->st_value) + (uintptr_t)r->r_addend;
        memcpy(w, &v, 8);
        return add_word(off, 1, cap);
    }
    if (type != R_GLOB_DAT && type != R_JUMP_SLOT && type != R_ABS64 && type != R_COPY) {
        snprintf(T.why, sizeof T.why, "relocation type %u not handled", type);
        return -1;
    }
    if (cache[si] == 1 && resolve(d, si, &cache[si]) != 0)
        return -1;
    if (type == R_COPY) {
        /* Only the standard streams pass zm_arch_image_check: a snapshot
         * of the pointer is what the dlopen path gives too. */
        if (off + s->st_size > T.rw_len || !cache[si])
            return decline("a copy relocation that cannot be made");
        if (off + s->st_size > T.rw_init_len)
            T.rw_init_len = off + s->st_size;
        if (T.ncopies == 8)
            return decline("too many copy relocations");
        memcpy(w, (void *)cache[si], s->st_size);
        T.copies[T.ncopies].off = (uint32_t)off;
        T.copies[T.ncopies++].len = (uint32_t)s->st_size;
        return 0;
    }
    uintptr_t v = cache[si] + (cache[si] ? (uintptr_t)r->r_addend : 0);
    memcpy(w, &v, 8);
    return add_word(off, 0, cap);
}

/* Symbol `name` defined in the program: its link-time address, or 0. */
static uintptr_t defined(const struct dyn *d, const struct file *f, const char *name)
{
    /* The dynamic symbol table's size is that of its section. */
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->p;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f->p + eh->e_shoff);
    if (!eh->e_shoff || eh->e_shoff + (size_t)eh->e_shnum * sizeof *sh > f->size)
        return 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM)
            continue;
        for (size_t k = 0; k < sh[i].sh_size / sizeof *d->sym; k++)
            if (d->sym[k].st_shndx != SHN_UNDEF && strcmp(d->str + d->sym[k].st_name, name) == 0)
                return d->sym[k].st_value;
    }
    return 0;
}

/* Start of .eh_frame, from the pointer in .eh_frame_hdr (encoded
 * pc-relative or absolute, 4 or 8 bytes). */
static uintptr_t find_eh_frame(const struct file *f)
{
    for (int i = 0; i < f->nph; i++) {
        if (f->ph[i].p_type != PT_GNU_EH_FRAME)
            continue;
        uintptr_t hv = f->ph[i].p_vaddr;
        const unsigned char *h = at(f, hv, 12);
        if (!h || h[0] != 1)
            return 0;
        int32_t s4;
        uint64_t u8;
        switch (h[1]) {
        case 0x1b: memcpy(&s4, h + 4, 4); return hv + 4 + (intptr_t)s4;   /* pcrel sdata4 */
        case 0x03: memcpy(&s4, h + 4, 4); return (uint32_t)s4;            /* udata4 */
        case 0x04: memcpy(&u8, h + 4, 8); return u8;                      /* udata8 */
        default: return 0;
        }
    }
    return 0;
}

static int build_relocations(const struct file *f)
{
    struct dyn d;
    if (read_dynamic(f, &d) != 0)
        return -1;
    const Elf64_Phdr *rw = NULL;
    for (int i = 0; i < f->nph; i++)
        if (f->ph[i].p_type == PT_LOAD && (f->ph[i].p_flags & PF_W))
            rw = &f->ph[i];
    size_t lead = rw->p_vaddr - T.rw_vaddr;
    T.rw_init = calloc(1, T.rw_len);
    if (!T.rw_init || rw->p_offset + rw->p_filesz > f->size)
        return decline("out of memory");
    memcpy(T.rw_init + lead, f->p + rw->p_offset, rw->p_filesz);
    T.rw_init_len = lead + rw->p_filesz;
    if (T.rw_len > 0x7fffffff)
        return decline("the writable segment is too large");
    /* A copy takes its initialized data from the template when there is
     * little of it (one memory map), or maps it from the file, copied on
     * write, when there is much: then the pages a rank never writes stay
     * the file's, shared by all ranks (one more memory map for .bss). */
    T.rw_file_off = (off_t)(rw->p_offset - lead);
    T.rw_file_end = lead + rw->p_filesz;
    T.rw_file_len = (T.rw_file_end + zm_arch_page_size() - 1) & ~(zm_arch_page_size() - 1);
    T.file_mode = rw->p_filesz > FILE_MODE_BYTES;
    /* Number of symbols: every relocation names one below it. */
    uint32_t nsym = 1;
    for (int pass = 0; pass < 2; pass++) {
        const Elf64_Rela *r = pass ? d.jmprel : d.rela;
        size_t n = (pass ? d.jmprelsz : d.relasz) / sizeof *r;
        for (size_t k = 0; r && k < n; k++)
            if (ELF64_R_SYM(r[k].r_info) >= nsym)
                nsym = (uint32_t)ELF64_R_SYM(r[k].r_info) + 1;
    }
    /* 1 marks "not resolved yet": no symbol lives at address 1. */
    uintptr_t *cache = malloc(nsym * sizeof *cache);
    size_t cap = 0;
    int rc = cache ? 0 : decline("out of memory");
    for (uint32_t i = 0; cache && i < nsym; i++)
        cache[i] = 1;
    for (int pass = 0; rc == 0 && pass < 2; pass++) {
        const Elf64_Rela *r = pass ? d.jmprel : d.rela;
        size_t n = (pass ? d.jmprelsz : d.relasz) / sizeof *r;
        for (size_t k = 0; rc == 0 && r && k < n; k++)
            rc = relocate(&d, &r[k], cache, &cap);
    }
    free(cache);
    if (rc == 0 && !(T.main_off = defined(&d, f, "main")))
        rc = decline("main is not exported");
    return rc;
}

/* Reads the running program into T; sets T.ok, or T.why. */
static void build_template(void)
{
    struct stat st;
    T.fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (T.fd < 0 || fstat(T.fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        decline("cannot open the program file");
        return;
    }
    struct file f = { NULL, (size_t)st.st_size, NULL, 0 };
    void *p = mmap(NULL, f.size, PROT_READ, MAP_PRIVATE, T.fd, 0);
    if (p == MAP_FAILED) {
        decline("cannot read the program file");
        return;
    }
    f.p = p;
    const Elf64_Ehdr *eh = p;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_type != ET_DYN || eh->e_machine != OUR_MACHINE ||
        eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > f.size) {
        decline("not a position-independent program of this machine");
    } else {
        f.ph = (const Elf64_Phdr *)(f.p + eh->e_phoff);
        f.nph = eh->e_phnum;
        if (plan_segments(&f) == 0 && build_relocations(&f) == 0) {
            T.eh_frame = find_eh_frame(&f);
            /* libgcc's registration: without it the unwinder cannot walk
             * a copy's frames (exceptions, backtraces). */
            void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
            if (!gcc)
                gcc = dlopen("libgcc_s.so.1", RTLD_NOW);
            T.reg_frame = gcc ? (void (*)(void *))dlsym(gcc, "__register_frame") : NULL;
            if (T.eh_frame && !T.reg_frame)
                decline("libgcc_s's __register_frame not found");
            else
                T.ok = 1;
        }
    }
    munmap(p, f.size);
}

static pthread_once_t template_once = PTHREAD_ONCE_INIT;

void zm_arch_clone_args(int argc, char **argv, char **envp)
{
    T.argc = argc;
    T.argv = argv;
    T.envp = envp;
}

const char *zm_arch_clone_usable(void)
{
    pthread_once(&template_once, build_template);
    return T.ok ? NULL : T.why;
}

/* The writable region of a copy at rw, filled from the template: every
 * relocated word holds its value for base 0.  Returns 0 on success. */
static int map_rw_anon(unsigned char *rw)
{
    if (mmap(rw, T.rw_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1,
             0) == MAP_FAILED)
        return -1;
    memcpy(rw, T.rw_init, T.rw_init_len);
    return 0;
}

/* The same, with the initialized data mapped from the file (copy on
 * write) and only the relocated words and copied objects written. */
static int map_rw_file(unsigned char *rw)
{
    if (mmap(rw, T.rw_file_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, T.fd,
             T.rw_file_off) == MAP_FAILED)
        return -1;
    if (T.rw_len > T.rw_file_len &&
        mmap(rw + T.rw_file_len, T.rw_len - T.rw_file_len, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
        return -1;
    /* The last file page holds the start of .bss, which must read zero. */
    memset(rw + T.rw_file_end, 0, T.rw_file_len - T.rw_file_end);
    for (size_t k = 0; k < T.nwords; k++) {
        size_t off = T.words[k] >> 1;
        memcpy(rw + off, T.rw_init + off, sizeof(uintptr_t));
    }
    for (int i = 0; i < T.ncopies; i++)
        memcpy(rw + T.copies[i].off, T.rw_init + T.copies[i].off, T.copies[i].len);
    return 0;
}

/* Map one copy at `at` (inside memory the caller reserved), or at a place
 * the kernel chooses when at is 0; returns its base or 0.  `fill`: give
 * the writable segment its initial, relocated contents (a restart writes
 * the saved ones instead). */
static uintptr_t map_copy(uintptr_t at, int fill)
{
    unsigned char *res = at ? (unsigned char *)at
                            : mmap(NULL, T.span, PROT_NONE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED)
        return 0;
    uintptr_t base = (uintptr_t)res;
    for (int i = 0; i < T.nro; i++)
        if (mmap((void *)(base + T.ro[i].vaddr), T.ro[i].len, T.ro[i].prot,
                 MAP_PRIVATE | MAP_FIXED, T.fd, T.ro[i].off) == MAP_FAILED)
            goto fail;
    unsigned char *rw = (unsigned char *)(base + T.rw_vaddr);
    if (!fill) {
        if (mmap(rw, T.rw_len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) == MAP_FAILED)
            goto fail;
        return base;
    }
    if (T.file_mode ? map_rw_file(rw) != 0 : map_rw_anon(rw) != 0)
        goto fail;
    for (size_t k = 0; k < T.nwords; k++)
        if (T.words[k] & 1)
            *(uintptr_t *)(void *)(rw + (T.words[k] >> 1)) += base;
    /* What the reservation still holds between the segments goes: a
     * PROT_NONE hole would be one more memory map per copy. */
    uintptr_t ro_end = T.ro[T.nro - 1].vaddr + T.ro[T.nro - 1].len;
    if (T.rw_vaddr > ro_end && !at)
        munmap((void *)(base + ro_end), T.rw_vaddr - ro_end);
    return base;
fail:
    if (!at)
        munmap(res, T.span);
    return 0;
}

struct zm_arch_clone *zm_arch_clone_load(uintptr_t at, int restore, char *err, size_t errlen)
{
    if (zm_arch_clone_usable()) {
        snprintf(err, errlen, "%s", T.why);
        return NULL;
    }
    struct zm_arch_clone *c = malloc(sizeof *c);
    uintptr_t base = c ? map_copy(at, !restore) : 0;
    if (!base) {
        snprintf(err, errlen, "cannot map a copy of the program (%zu bytes of address space)",
                 T.span);
        free(c);
        return NULL;
    }
    c->base = base;
    if (T.eh_frame)
        T.reg_frame((void *)(base + T.eh_frame));
    c->next = atomic_load_explicit(&clones, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&clones, &c->next, c, memory_order_release,
                                                  memory_order_relaxed))
        ;
    /* A restored copy's constructors ran in the first process. */
    if (restore)
        return c;
    /* Constructors, as the dynamic loader runs them: DT_INIT, then the
     * array (already holding the copy's addresses). */
    typedef void (*init_fn)(int, char **, char **);
    if (T.init)
        ((init_fn)(base + T.init))(T.argc, T.argv, T.envp);
    for (size_t i = 0; i < T.n_init; i++) {
        uintptr_t fn = ((const uintptr_t *)(base + T.init_array))[i];
        if (fn && fn != (uintptr_t)-1)
            ((init_fn)fn)(T.argc, T.argv, T.envp);
    }
    return c;
}

size_t zm_arch_clone_span(void)
{
    return T.span;
}

void zm_arch_clone_rw(const struct zm_arch_clone *c, void **start, size_t *len)
{
    *start = (void *)(c->base + T.rw_vaddr);
    *len = T.rw_len;
}

int zm_arch_clone_maps(void)
{
    return T.file_mode && T.rw_len > T.rw_file_len ? 3 : 2;
}

void *zm_arch_clone_main(struct zm_arch_clone *c)
{
    return (void *)(c->base + T.main_off);
}

void zm_arch_clone_close(struct zm_arch_clone *c)
{
    for (size_t i = T.n_fini; i-- > 0;) {
        uintptr_t fn = ((const uintptr_t *)(c->base + T.fini_array))[i];
        if (fn && fn != (uintptr_t)-1)
            ((void (*)(void))fn)();
    }
    if (T.fini)
        ((void (*)(void))(c->base + T.fini))();
    /* The copy stays mapped until the process ends.  libgcc keeps its
     * unwind tables registered (deregistering searches a list of every
     * copy, which would make the job's end quadratic), its read-only pages
     * are the file's, and unmapping its writable ones while the other
     * workers run would cost each of them an interrupt to flush its TLB:
     * with every rank ending at once, that was most of a large job's end. */
}

int zm_arch_clone_locate(uintptr_t pc, uintptr_t *off)
{
    for (struct zm_arch_clone *c = atomic_load_explicit(&clones, memory_order_acquire); c;
         c = c->next)
        if (pc >= c->base && pc < c->base + T.span) {
            *off = pc - c->base;
            return 1;
        }
    return 0;
}
