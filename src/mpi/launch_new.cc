/*
 * launch_new.cc: the replaceable global operator new and delete of a
 * privatized C++ program (libzmpi_priv.a), so that C++ objects of a rank
 * come from the same place as its malloc: the rank heap when checkpoints
 * are on (src/mpi/launch_heap.c; docs/checkpoint.md), libc's otherwise.
 * They call the program's malloc family, which --wrap sends to
 * launch_heap.c.  The definitions are weak: a program that replaces
 * operator new itself keeps its own.  Only C++ programs reference them,
 * so a C program never links this file.
 */
#include <cstdlib>
#include <new>

#define ZM_WEAK_FN __attribute__((weak))

namespace {
/* operator new's loop: call the new-handler until memory comes or there
 * is none, then throw, as the standard says. */
void *alloc_or_throw(std::size_t n)
{
    if (n == 0)
        n = 1;
    for (;;) {
        if (void *p = std::malloc(n))
            return p;
        std::new_handler h = std::get_new_handler();
        if (!h)
            throw std::bad_alloc();
        h();
    }
}

void *aligned_or_throw(std::size_t n, std::align_val_t a)
{
    std::size_t al = static_cast<std::size_t>(a);
    if (al < sizeof(void *))
        al = sizeof(void *);
    for (;;) {
        void *p = nullptr;
        if (posix_memalign(&p, al, n ? n : 1) == 0)
            return p;
        std::new_handler h = std::get_new_handler();
        if (!h)
            throw std::bad_alloc();
        h();
    }
}
} // namespace

ZM_WEAK_FN void *operator new(std::size_t n) { return alloc_or_throw(n); }
ZM_WEAK_FN void *operator new[](std::size_t n) { return alloc_or_throw(n); }
ZM_WEAK_FN void *operator new(std::size_t n, const std::nothrow_t &) noexcept
{
    try {
        return alloc_or_throw(n);
    } catch (...) {
        return nullptr;
    }
}
ZM_WEAK_FN void *operator new[](std::size_t n, const std::nothrow_t &t) noexcept
{
    return operator new(n, t);
}
ZM_WEAK_FN void *operator new(std::size_t n, std::align_val_t a) { return aligned_or_throw(n, a); }
ZM_WEAK_FN void *operator new[](std::size_t n, std::align_val_t a)
{
    return aligned_or_throw(n, a);
}
ZM_WEAK_FN void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept
{
    try {
        return aligned_or_throw(n, a);
    } catch (...) {
        return nullptr;
    }
}
ZM_WEAK_FN void *operator new[](std::size_t n, std::align_val_t a,
                                const std::nothrow_t &t) noexcept
{
    return operator new(n, a, t);
}
ZM_WEAK_FN void operator delete(void *p) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete[](void *p) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete(void *p, std::size_t) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
ZM_WEAK_FN void operator delete[](void *p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}
ZM_WEAK_FN void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept
{
    std::free(p);
}
ZM_WEAK_FN void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept
{
    std::free(p);
}
