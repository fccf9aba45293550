/*
 * region_linux.c: memory at fixed addresses for checkpoint/restart, and
 * the process properties a restart depends on.
 *
 * A checkpointed rank's stack, program copy and heap are written to files
 * and mapped back at the same addresses in a new process, so that every
 * pointer in them stays right.  That needs: address ranges reserved at
 * known places (zm_arch_region_*), the shared libraries at the same places
 * in both processes (address-space randomization off, which zmpirun asks
 * for: zm_arch_aslr_off), and the stack-protector canary of the first
 * process, which the restored frames were entered with
 * (zm_arch_canary_*).
 */
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

int zm_arch_region_reserve(uintptr_t base, size_t len)
{
    void *p = mmap((void *)base, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    if ((uintptr_t)p != base) {
        /* A kernel before 4.17 takes the flag for a hint. */
        munmap(p, len);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

int zm_arch_region_commit(uintptr_t addr, size_t len)
{
    void *p = mmap((void *)addr, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return p == MAP_FAILED ? -1 : 0;
}

int zm_arch_stack_at(uintptr_t addr, size_t size, zm_arch_stack_t *stack)
{
    size_t page = zm_arch_page_size();
    if (mprotect((void *)addr, page, PROT_NONE) != 0)
        return -1;
    stack->map = (void *)addr;
    stack->map_size = size + page;
    stack->lo = (char *)addr + page;
    stack->hi = (char *)addr + page + size;
    stack->vg_id = 0;
    return 0;
}

int zm_arch_aslr_off(void)
{
    int p = personality(0xffffffff);
    return p != -1 && (p & ADDR_NO_RANDOMIZE);
}

#if defined(__x86_64__)
/* glibc keeps the canary in the thread control block, 0x28 past %fs. */
uintptr_t zm_arch_canary_get(void)
{
    uintptr_t v;
    __asm__ volatile("movq %%fs:0x28, %0" : "=r"(v));
    return v;
}

void zm_arch_canary_set(uintptr_t v)
{
    __asm__ volatile("movq %0, %%fs:0x28" : : "r"(v) : "memory");
}
#elif defined(__aarch64__)
/* glibc on AArch64 keeps one canary for the process, in the loader. */
extern uintptr_t __stack_chk_guard;

uintptr_t zm_arch_canary_get(void)
{
    return __stack_chk_guard;
}

void zm_arch_canary_set(uintptr_t v)
{
    __stack_chk_guard = v;
}
#endif

/* ---- Saving and loading memory with holes ------------------------------- */

/* Holes are made page by page, up to this page size; a system with larger
 * pages writes everything. */
#define SAVE_PAGE_MAX 65536

int zm_arch_region_save(int fd, uintptr_t addr, size_t len)
{
    static const unsigned char zero[SAVE_PAGE_MAX];
    const size_t pg = zm_arch_page_size();
    if (pg > SAVE_PAGE_MAX)
        return write(fd, (const void *)addr, len) == (ssize_t)len ? 0 : -1;
    /* Pages never touched are not resident: they read as zeros and become
     * holes without being read (reading would map each one). */
    size_t npages = (len + pg - 1) / pg;
    unsigned char vec[1024];
    for (size_t first = 0; first < npages; first += sizeof vec) {
        size_t n = npages - first < sizeof vec ? npages - first : sizeof vec;
        uintptr_t at = addr + first * pg;
        int known = (at & (pg - 1)) == 0 &&
                    mincore((void *)at, n * pg, vec) == 0;
        for (size_t i = 0; i < n; i++) {
            size_t off = (first + i) * pg, k = len - off < pg ? len - off : pg;
            const char *p = (const char *)addr + off;
            int hole = k == pg && ((known && !(vec[i] & 1)) || memcmp(p, zero, pg) == 0);
            if (hole ? lseek(fd, pg, SEEK_CUR) < 0 : write(fd, p, k) != (ssize_t)k)
                return -1;
        }
    }
    return 0;
}

int zm_arch_region_load(int fd, uintptr_t addr, size_t len)
{
    off_t start = lseek(fd, 0, SEEK_CUR), end = start + (off_t)len;
    for (off_t pos = start; pos < end;) {
        off_t data = lseek(fd, pos, SEEK_DATA);
        if (data < 0 || data >= end)
            break; /* the rest is a hole: memory that reads as zero already */
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0 || hole > end)
            hole = end;
        for (off_t at = data; at < hole;) {
            ssize_t got = pread(fd, (char *)addr + (at - start), (size_t)(hole - at), at);
            if (got <= 0)
                return -1;
            at += got;
        }
        pos = hole;
    }
    return lseek(fd, end, SEEK_SET) < 0 ? -1 : 0;
}
