/*
 * large_huge.c: messages and datatypes larger than 2 GiB on 2 ranks.
 *
 * Rank 0 sends 3 GiB as MPI_BYTEs (MPI_Send_c), then one element of a
 * 3 GiB derived datatype (an hvector made by MPI_Type_create_hvector_c,
 * blocks of 1016 bytes every 1024); rank 1 receives both as 3 GiB of
 * bytes and checks every byte (in 8-byte words of a pattern that differs
 * between the two messages, so a message that does not arrive shows).  The int forms answer for results an int
 * cannot hold: MPI_Get_count / MPI_Get_elements / MPI_Type_size give
 * MPI_UNDEFINED, MPI_Pack_size and MPI_Buffer_detach (of a 3 GiB buffer)
 * raise MPI_ERR_VALUE_TOO_LARGE.  Exits 77
 * (skipped) when the machine has too little memory available.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GIB (1ull << 30)
#define BYTES (3 * GIB)
#define BL 1016ull                /* bytes per block: 127 words */
#define STRIDE 1024ull
#define NBLOCKS (BYTES / BL + 1) /* a little more than 3 GiB of data */
#define W 8ull                   /* bytes per word */

static int rank, fails;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "rank %d: line %d: ", rank, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            fails++;                                                           \
        }                                                                      \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* MemAvailable in bytes, 0 if unknown. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024ull;
}

/* Word i of message m's pattern. */
static inline uint64_t pat(uint64_t i, uint64_t m)
{
    return (i + 1) * 0x9E3779B97F4A7C15ull ^ m;
}

/* The first word of w[0..n) that is not message m's pattern from word
 * `first` on, or n. */
static uint64_t check_words(const uint64_t *w, uint64_t n, uint64_t first, uint64_t m)
{
    for (uint64_t i = 0; i < n; i++)
        if (w[i] != pat(first + i, m))
            return i;
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Two 3 GiB buffers live at once (one per rank), plus slack. */
    int enough = mem_available() >= 8 * GIB, all;
    MPI_Allreduce(&enough, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            printf("large_huge: skipped, less than 8 GiB of memory available\n");
        MPI_Finalize();
        return 77;
    }
    unsigned char *buf = malloc(rank == 0 ? NBLOCKS * STRIDE : NBLOCKS * BL);
    CHECK(buf != NULL, "malloc failed");
    MPI_Status st;
    MPI_Count n;
    int ni;
    double t0;

    /* 1. A 3 GiB contiguous message.  The receiver touches its buffer first
     * and both start together, so the time is the message's, not the
     * page faults' or the sender's filling. */
    if (rank == 1)
        memset(buf, 0, NBLOCKS * BL);
    if (rank == 0) {
        uint64_t *w = (uint64_t *)buf;
        for (uint64_t i = 0; i < BYTES / W; i++)
            w[i] = pat(i, 1);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now();
        CHECK(MPI_Send_c(buf, (MPI_Count)BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD) == MPI_SUCCESS,
              "Send_c");
        printf("large_huge: 3 GiB contiguous message sent in %.2f s\n", now() - t0);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Recv_c(buf, (MPI_Count)BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS, "Recv_c");
        uint64_t bad = check_words((const uint64_t *)buf, BYTES / W, 0, 1);
        CHECK(bad == BYTES / W, "word %llu (byte %llu) differs", (unsigned long long)bad,
              (unsigned long long)(bad * W));
        MPI_Get_count_c(&st, MPI_BYTE, &n);
        CHECK(n == (MPI_Count)BYTES, "Get_count_c gave %lld", (long long)n);
        MPI_Get_count(&st, MPI_BYTE, &ni);
        CHECK(ni == MPI_UNDEFINED, "Get_count gave %d, not MPI_UNDEFINED", ni);
        MPI_Get_elements(&st, MPI_BYTE, &ni);
        CHECK(ni == MPI_UNDEFINED, "Get_elements gave %d, not MPI_UNDEFINED", ni);
        MPI_Get_elements_c(&st, MPI_BYTE, &n);
        CHECK(n == (MPI_Count)BYTES, "Get_elements_c gave %lld", (long long)n);
    }

    /* 2. One element of a derived datatype holding more than 3 GiB. */
    MPI_Datatype vec;
    MPI_Type_create_hvector_c((MPI_Count)NBLOCKS, (MPI_Count)BL, (MPI_Count)STRIDE, MPI_BYTE,
                              &vec);
    MPI_Type_commit(&vec);
    MPI_Type_size_c(vec, &n);
    CHECK(n == (MPI_Count)(NBLOCKS * BL), "Type_size_c gave %lld", (long long)n);
    MPI_Type_size(vec, &ni);
    CHECK(ni == MPI_UNDEFINED, "Type_size gave %d, not MPI_UNDEFINED", ni);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Pack_size(1, vec, MPI_COMM_WORLD, &ni), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_VALUE_TOO_LARGE, "Pack_size gave class %d", cls);
    /* A buffer of 3 GiB attached with the _c call: the int detach cannot
     * say its size (MPI_ERR_VALUE_TOO_LARGE), the _c one can.  The
     * memory is never touched. */
    if (rank == 0) {
        char *big = malloc(BYTES);
        void *got = NULL;
        MPI_Count gsz = 0;
        CHECK(big && MPI_Buffer_attach_c(big, (MPI_Count)BYTES) == MPI_SUCCESS,
              "Buffer_attach_c of 3 GiB");
        rc = MPI_Buffer_detach(&got, &ni);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_VALUE_TOO_LARGE, "Buffer_detach of 3 GiB gave class %d", cls);
        if (MPI_Buffer_detach_c(&got, &gsz) == MPI_SUCCESS)
            CHECK(got == big && gsz == (MPI_Count)BYTES, "Buffer_detach_c gave %lld",
                  (long long)gsz);
        free(big);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    uint64_t data = NBLOCKS * BL;
    if (rank == 0) {
        /* Block b holds words b*BL/W.. of the pattern, at b*STRIDE. */
        for (uint64_t b = 0; b < NBLOCKS; b++) {
            uint64_t *w = (uint64_t *)(buf + b * STRIDE);
            for (uint64_t j = 0; j < BL / W; j++)
                w[j] = pat(b * (BL / W) + j, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now();
        CHECK(MPI_Send_c(buf, 1, vec, 1, 2, MPI_COMM_WORLD) == MPI_SUCCESS, "Send_c(vec)");
        printf("large_huge: 3 GiB derived-datatype message sent in %.2f s\n", now() - t0);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Recv_c(buf, (MPI_Count)data, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS, "Recv_c(bytes)");
        uint64_t bad = check_words((const uint64_t *)buf, data / W, 0, 2);
        CHECK(bad == data / W, "word %llu (byte %llu) differs", (unsigned long long)bad,
              (unsigned long long)(bad * W));
        MPI_Get_count_c(&st, vec, &n);
        CHECK(n == 1, "Get_count_c(vec) gave %lld", (long long)n);
    }
    MPI_Type_free(&vec);
    free(buf);
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_huge: %s\n", fails ? "FAILED" : "ok");
    MPI_Finalize();
    return fails != 0;
}
