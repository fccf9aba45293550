/*
 * datatypes.c: MPI_Type_size and MPI_Type_get_extent of every predefined
 * datatype match the C types, and MPI_Get_count/MPI_Get_elements report
 * counts (MPI_UNDEFINED when the bytes are not a whole number of items).
 */
#include "zt.h"

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };

/* Checks the size and extent (lower bound 0) of one datatype. */
static void check_type(MPI_Datatype dt, const char *name, int size,
                       MPI_Aint extent)
{
    int got = -1;
    MPI_Aint lb = -1, ext = -1;

    ZT_OK(MPI_Type_size(dt, &got));
    ZT_CHECK(got == size, "MPI_Type_size(%s) = %d, expected %d", name, got, size);
    ZT_OK(MPI_Type_get_extent(dt, &lb, &ext));
    ZT_CHECK(lb == 0 && ext == extent, "MPI_Type_get_extent(%s) = (%lld, "
             "%lld), expected (0, %lld)", name, (long long)lb,
             (long long)ext, (long long)extent);
}

#define PLAIN(dt, T) check_type(dt, #dt, (int)sizeof(T), (MPI_Aint)sizeof(T))
#define PAIR(dt, V, S) \
    check_type(dt, #dt, (int)(sizeof(V) + sizeof(int)), (MPI_Aint)sizeof(S))

static void check_sizes(void)
{
    PLAIN(MPI_CHAR, char);
    PLAIN(MPI_SIGNED_CHAR, signed char);
    PLAIN(MPI_UNSIGNED_CHAR, unsigned char);
    PLAIN(MPI_BYTE, unsigned char);
    PLAIN(MPI_WCHAR, wchar_t);
    PLAIN(MPI_SHORT, short);
    PLAIN(MPI_UNSIGNED_SHORT, unsigned short);
    PLAIN(MPI_INT, int);
    PLAIN(MPI_UNSIGNED, unsigned);
    PLAIN(MPI_LONG, long);
    PLAIN(MPI_UNSIGNED_LONG, unsigned long);
    PLAIN(MPI_LONG_LONG_INT, long long);
    PLAIN(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    PLAIN(MPI_FLOAT, float);
    PLAIN(MPI_DOUBLE, double);
    PLAIN(MPI_C_BOOL, bool);
    PLAIN(MPI_INT8_T, int8_t);
    PLAIN(MPI_INT16_T, int16_t);
    PLAIN(MPI_INT32_T, int32_t);
    PLAIN(MPI_INT64_T, int64_t);
    PLAIN(MPI_UINT8_T, uint8_t);
    PLAIN(MPI_UINT16_T, uint16_t);
    PLAIN(MPI_UINT32_T, uint32_t);
    PLAIN(MPI_UINT64_T, uint64_t);
    PLAIN(MPI_C_FLOAT_COMPLEX, float _Complex);
    PLAIN(MPI_C_DOUBLE_COMPLEX, double _Complex);
    PLAIN(MPI_AINT, MPI_Aint);
    PLAIN(MPI_OFFSET, MPI_Offset);
    PLAIN(MPI_COUNT, MPI_Count);
    PLAIN(MPI_PACKED, unsigned char);
    PAIR(MPI_FLOAT_INT, float, struct float_int);
    PAIR(MPI_DOUBLE_INT, double, struct double_int);
    PAIR(MPI_LONG_INT, long, struct long_int);
    PAIR(MPI_2INT, int, struct two_int);
    PAIR(MPI_SHORT_INT, short, struct short_int);
}

/* The sizes of long double types count only their value bytes, which may
 * be fewer than sizeof (x86 keeps 10 bytes in 16); the extent is sizeof. */
static void check_long_double(void)
{
    int sz = -1;
    MPI_Aint lb, ext;

    ZT_OK(MPI_Type_get_extent(MPI_LONG_DOUBLE, &lb, &ext));
    ZT_EQ(ext, sizeof(long double), "extent of MPI_LONG_DOUBLE");
    ZT_OK(MPI_Type_size(MPI_LONG_DOUBLE, &sz));
    ZT_CHECK(sz >= 10 && (size_t)sz <= sizeof(long double),
             "MPI_Type_size(MPI_LONG_DOUBLE) = %d", sz);
    ZT_OK(MPI_Type_get_extent(MPI_C_LONG_DOUBLE_COMPLEX, &lb, &ext));
    ZT_EQ(ext, sizeof(long double _Complex), "extent of MPI_C_LONG_DOUBLE_COMPLEX");
    ZT_OK(MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &ext));
    ZT_EQ(ext, sizeof(struct ldouble_int), "extent of MPI_LONG_DOUBLE_INT");
}

/* Receives n bytes sent by the peer and checks the counts in the status. */
static void check_counts_for(int n, int peer, int rank)
{
    unsigned char buf[64];
    MPI_Status st;
    int c = -1;

    if (rank == 0) {
        memset(buf, 7, sizeof buf);
        ZT_OK(MPI_Send(buf, n, MPI_BYTE, peer, n, MPI_COMM_WORLD));
        return;
    }
    ZT_OK(MPI_Recv(buf, 64, MPI_BYTE, peer, n, MPI_COMM_WORLD, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &c));
    ZT_EQ(c, n, "Get_count in MPI_BYTE");
    ZT_OK(MPI_Get_count(&st, MPI_INT, &c));
    ZT_EQ(c, n % (int)sizeof(int) ? MPI_UNDEFINED : n / (int)sizeof(int),
          "Get_count in MPI_INT");
    ZT_OK(MPI_Get_elements(&st, MPI_INT, &c));
    ZT_EQ(c, n % (int)sizeof(int) ? MPI_UNDEFINED : n / (int)sizeof(int),
          "Get_elements in MPI_INT");
    ZT_OK(MPI_Get_count(&st, MPI_DOUBLE, &c));
    ZT_EQ(c, n % (int)sizeof(double) ? MPI_UNDEFINED : n / (int)sizeof(double),
          "Get_count in MPI_DOUBLE");
    ZT_OK(MPI_Get_count(&st, MPI_2INT, &c));
    ZT_EQ(c, n % 8 ? MPI_UNDEFINED : n / 8, "Get_count in MPI_2INT");
    if (n % 8 == 0) {
        /* A pair type's elements are its basic parts: two per pair. */
        ZT_OK(MPI_Get_elements(&st, MPI_2INT, &c));
        ZT_EQ(c, n / 4, "Get_elements in MPI_2INT");
    }
}

int main(int argc, char **argv)
{
    static const int counts[] = { 0, 1, 4, 6, 8, 10, 12, 16, 24, 40, 64 };
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_sizes();
    check_long_double();
    if (size >= 2 && rank < 2)
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            check_counts_for(counts[k], 1 - rank, rank);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
