/*
 * zmpi-unpie: make a position-independent executable loadable with dlopen.
 *
 * A program linked for privatization (zmpicc -zmpi-privatize) is a PIE, so
 * that it runs, and debuggers find its shared libraries, like any program;
 * zmpi then loads one copy of it per rank with dlopen.  glibc refuses to
 * dlopen an object whose DT_FLAGS_1 has DF_1_PIE, and that flag is all it
 * checks, so this tool clears it in place.  ELF64 only (x86-64, AArch64).
 *
 * Usage: zmpi-unpie FILE
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Clears DF_1_PIE in the dynamic section of the mapped file; returns 0 if
 * the file is a dynamic ELF64 object (flag present or not). */
static int unpie(unsigned char *p, size_t size, const char *name)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > size) {
        fprintf(stderr, "zmpi-unpie: %s: not a 64-bit ELF file\n", name);
        return 1;
    }
    Elf64_Phdr *ph = (Elf64_Phdr *)(p + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC || ph[i].p_offset + ph[i].p_filesz > size)
            continue;
        Elf64_Dyn *d = (Elf64_Dyn *)(p + ph[i].p_offset);
        size_t n = ph[i].p_filesz / sizeof *d;
        for (size_t k = 0; k < n && d[k].d_tag != DT_NULL; k++)
            if (d[k].d_tag == DT_FLAGS_1)
                d[k].d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
        return 0;
    }
    fprintf(stderr, "zmpi-unpie: %s: no dynamic section (linked statically?)\n", name);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: zmpi-unpie FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    unsigned char *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        perror(argv[1]);
        close(fd);
        return 1;
    }
    int rc = unpie(p, (size_t)st.st_size, argv[1]);
    munmap(p, (size_t)st.st_size);
    close(fd);
    return rc;
}
