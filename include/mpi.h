/*
 * mpi.h: the MPI C interface of zmpi.
 *
 * zmpi runs the ranks of an MPI job as user-level threads inside one
 * process.  This header declares exactly the functions zmpi implements; each
 * MPI_ name has a PMPI_ twin for profiling tools.  Handles are pointers to
 * opaque objects; MPI_COMM_WORLD and MPI_COMM_SELF are small constants that
 * the library resolves to the calling rank's own communicator.
 */
#ifndef ZMPI_MPI_H
#define ZMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every C function of MPI 4.1 is there (some refused across processes:
 * files, partitioned communication, shared windows, spawning and ports;
 * MPI_Get_library_version says so).  MPI_Comm_spawn starts new ranks as
 * threads of the job, so it can only start zmpicc-built programs: any
 * other command (a Python interpreter, a script) fails at once with
 * MPI_ERR_SPAWN (docs/spawn.md). */
#define MPI_VERSION 4
#define MPI_SUBVERSION 1

#define ZMPI 1
#define ZMPI_VERSION_STRING "0.1.0"

/* Symbols of the MPI interface are the only ones libzmpi exports. */
#if defined(__GNUC__)
#define ZMPI_EXPORT __attribute__((visibility("default")))
#else
#define ZMPI_EXPORT
#endif

/* ---- Basic types -------------------------------------------------------- */
typedef int64_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;
typedef int MPI_Fint;

typedef struct zmpi_comm *MPI_Comm;
typedef struct zmpi_group *MPI_Group;
typedef struct zmpi_datatype *MPI_Datatype;
typedef struct zmpi_request *MPI_Request;
typedef struct zmpi_errhandler *MPI_Errhandler;
typedef struct zmpi_op *MPI_Op;
typedef struct zmpi_message *MPI_Message;
typedef struct zmpi_info *MPI_Info;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int zmpi_cancelled;   /* nonzero if the operation was cancelled */
    MPI_Count zmpi_bytes; /* bytes received */
} MPI_Status;

typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);

/* ---- Collectives, operations, shared-memory windows (types) -------------- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef struct zmpi_win *MPI_Win;
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;

/* ---- Predefined objects (defined in libzmpi) ---------------------------- */
extern ZMPI_EXPORT struct zmpi_group zmpi_group_empty;
extern ZMPI_EXPORT struct zmpi_errhandler zmpi_errhandler_fatal;
extern ZMPI_EXPORT struct zmpi_errhandler zmpi_errhandler_return;
extern ZMPI_EXPORT struct zmpi_errhandler zmpi_errhandler_abort;
extern ZMPI_EXPORT struct zmpi_message zmpi_message_no_proc;

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)(uintptr_t)1)
#define MPI_COMM_SELF ((MPI_Comm)(uintptr_t)2)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY (&zmpi_group_empty)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_MESSAGE_NO_PROC (&zmpi_message_no_proc)
#define MPI_ERRORS_ARE_FATAL (&zmpi_errhandler_fatal)
#define MPI_ERRORS_RETURN (&zmpi_errhandler_return)
#define MPI_ERRORS_ABORT (&zmpi_errhandler_abort)

#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)

/* Datatypes.  Each is the address of a constant object in libzmpi.  The
 * list's order gives their Fortran handle values 1, 2, ... (handle.c): add
 * new types at the end. */
#define ZMPI_DT_LIST(X) \
    X(MPI_CHAR) X(MPI_SIGNED_CHAR) X(MPI_UNSIGNED_CHAR) X(MPI_BYTE) \
    X(MPI_WCHAR) X(MPI_SHORT) X(MPI_UNSIGNED_SHORT) X(MPI_INT) \
    X(MPI_UNSIGNED) X(MPI_LONG) X(MPI_UNSIGNED_LONG) X(MPI_LONG_LONG_INT) \
    X(MPI_UNSIGNED_LONG_LONG) X(MPI_FLOAT) X(MPI_DOUBLE) X(MPI_LONG_DOUBLE) \
    X(MPI_C_BOOL) X(MPI_INT8_T) X(MPI_INT16_T) X(MPI_INT32_T) \
    X(MPI_INT64_T) X(MPI_UINT8_T) X(MPI_UINT16_T) X(MPI_UINT32_T) \
    X(MPI_UINT64_T) X(MPI_C_FLOAT_COMPLEX) X(MPI_C_DOUBLE_COMPLEX) \
    X(MPI_C_LONG_DOUBLE_COMPLEX) X(MPI_AINT) X(MPI_OFFSET) X(MPI_COUNT) \
    X(MPI_PACKED) X(MPI_FLOAT_INT) X(MPI_DOUBLE_INT) X(MPI_LONG_INT) \
    X(MPI_2INT) X(MPI_SHORT_INT) X(MPI_LONG_DOUBLE_INT) \
    X(MPI_INTEGER) X(MPI_REAL) X(MPI_DOUBLE_PRECISION) X(MPI_COMPLEX) \
    X(MPI_DOUBLE_COMPLEX) X(MPI_LOGICAL) X(MPI_CHARACTER) X(MPI_INTEGER1) \
    X(MPI_INTEGER2) X(MPI_INTEGER4) X(MPI_INTEGER8) X(MPI_INTEGER16) \
    X(MPI_REAL2) X(MPI_REAL4) X(MPI_REAL8) X(MPI_REAL16) X(MPI_COMPLEX4) \
    X(MPI_COMPLEX8) X(MPI_COMPLEX16) X(MPI_COMPLEX32) X(MPI_2INTEGER) \
    X(MPI_2REAL) X(MPI_2DOUBLE_PRECISION) X(MPI_CXX_BOOL) \
    X(MPI_CXX_FLOAT_COMPLEX) X(MPI_CXX_DOUBLE_COMPLEX) X(MPI_CXX_LONG_DOUBLE_COMPLEX)

#define ZMPI_DT_EXTERN(name) extern ZMPI_EXPORT struct zmpi_datatype zmpi_dt_##name;
ZMPI_DT_LIST(ZMPI_DT_EXTERN)
#undef ZMPI_DT_EXTERN

#define MPI_CHAR (&zmpi_dt_MPI_CHAR)
#define MPI_SIGNED_CHAR (&zmpi_dt_MPI_SIGNED_CHAR)
#define MPI_UNSIGNED_CHAR (&zmpi_dt_MPI_UNSIGNED_CHAR)
#define MPI_BYTE (&zmpi_dt_MPI_BYTE)
#define MPI_WCHAR (&zmpi_dt_MPI_WCHAR)
#define MPI_SHORT (&zmpi_dt_MPI_SHORT)
#define MPI_UNSIGNED_SHORT (&zmpi_dt_MPI_UNSIGNED_SHORT)
#define MPI_INT (&zmpi_dt_MPI_INT)
#define MPI_UNSIGNED (&zmpi_dt_MPI_UNSIGNED)
#define MPI_LONG (&zmpi_dt_MPI_LONG)
#define MPI_UNSIGNED_LONG (&zmpi_dt_MPI_UNSIGNED_LONG)
#define MPI_LONG_LONG_INT (&zmpi_dt_MPI_LONG_LONG_INT)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG (&zmpi_dt_MPI_UNSIGNED_LONG_LONG)
#define MPI_FLOAT (&zmpi_dt_MPI_FLOAT)
#define MPI_DOUBLE (&zmpi_dt_MPI_DOUBLE)
#define MPI_LONG_DOUBLE (&zmpi_dt_MPI_LONG_DOUBLE)
#define MPI_C_BOOL (&zmpi_dt_MPI_C_BOOL)
#define MPI_INT8_T (&zmpi_dt_MPI_INT8_T)
#define MPI_INT16_T (&zmpi_dt_MPI_INT16_T)
#define MPI_INT32_T (&zmpi_dt_MPI_INT32_T)
#define MPI_INT64_T (&zmpi_dt_MPI_INT64_T)
#define MPI_UINT8_T (&zmpi_dt_MPI_UINT8_T)
#define MPI_UINT16_T (&zmpi_dt_MPI_UINT16_T)
#define MPI_UINT32_T (&zmpi_dt_MPI_UINT32_T)
#define MPI_UINT64_T (&zmpi_dt_MPI_UINT64_T)
#define MPI_C_FLOAT_COMPLEX (&zmpi_dt_MPI_C_FLOAT_COMPLEX)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX (&zmpi_dt_MPI_C_DOUBLE_COMPLEX)
#define MPI_C_LONG_DOUBLE_COMPLEX (&zmpi_dt_MPI_C_LONG_DOUBLE_COMPLEX)
#define MPI_AINT (&zmpi_dt_MPI_AINT)
#define MPI_OFFSET (&zmpi_dt_MPI_OFFSET)
#define MPI_COUNT (&zmpi_dt_MPI_COUNT)
#define MPI_PACKED (&zmpi_dt_MPI_PACKED)
#define MPI_FLOAT_INT (&zmpi_dt_MPI_FLOAT_INT)
#define MPI_DOUBLE_INT (&zmpi_dt_MPI_DOUBLE_INT)
#define MPI_LONG_INT (&zmpi_dt_MPI_LONG_INT)
#define MPI_2INT (&zmpi_dt_MPI_2INT)
#define MPI_SHORT_INT (&zmpi_dt_MPI_SHORT_INT)
#define MPI_LONG_DOUBLE_INT (&zmpi_dt_MPI_LONG_DOUBLE_INT)
/* Fortran datatypes, usable from C (MPI 4.1 section 19.3.6), with the
 * sizes gfortran gives them: INTEGER, REAL and LOGICAL 4 bytes, DOUBLE
 * PRECISION 8, COMPLEX 8, DOUBLE COMPLEX 16, CHARACTER 1.  MPI_INTEGER16,
 * MPI_REAL16 and MPI_COMPLEX32 reduce where the C compiler has a type of
 * the same representation (__int128, IEEE binary128); MPI_REAL2 and
 * MPI_COMPLEX4 (half precision, which gfortran lacks) only communicate. */
#define MPI_INTEGER (&zmpi_dt_MPI_INTEGER)
#define MPI_REAL (&zmpi_dt_MPI_REAL)
#define MPI_DOUBLE_PRECISION (&zmpi_dt_MPI_DOUBLE_PRECISION)
#define MPI_COMPLEX (&zmpi_dt_MPI_COMPLEX)
#define MPI_DOUBLE_COMPLEX (&zmpi_dt_MPI_DOUBLE_COMPLEX)
#define MPI_LOGICAL (&zmpi_dt_MPI_LOGICAL)
#define MPI_CHARACTER (&zmpi_dt_MPI_CHARACTER)
#define MPI_INTEGER1 (&zmpi_dt_MPI_INTEGER1)
#define MPI_INTEGER2 (&zmpi_dt_MPI_INTEGER2)
#define MPI_INTEGER4 (&zmpi_dt_MPI_INTEGER4)
#define MPI_INTEGER8 (&zmpi_dt_MPI_INTEGER8)
#define MPI_INTEGER16 (&zmpi_dt_MPI_INTEGER16)
#define MPI_REAL2 (&zmpi_dt_MPI_REAL2)
#define MPI_REAL4 (&zmpi_dt_MPI_REAL4)
#define MPI_REAL8 (&zmpi_dt_MPI_REAL8)
#define MPI_REAL16 (&zmpi_dt_MPI_REAL16)
#define MPI_COMPLEX4 (&zmpi_dt_MPI_COMPLEX4)
#define MPI_COMPLEX8 (&zmpi_dt_MPI_COMPLEX8)
#define MPI_COMPLEX16 (&zmpi_dt_MPI_COMPLEX16)
#define MPI_COMPLEX32 (&zmpi_dt_MPI_COMPLEX32)
#define MPI_2INTEGER (&zmpi_dt_MPI_2INTEGER)
#define MPI_2REAL (&zmpi_dt_MPI_2REAL)
#define MPI_2DOUBLE_PRECISION (&zmpi_dt_MPI_2DOUBLE_PRECISION)
/* C++ datatypes, usable from C: bool and std::complex of each float type. */
#define MPI_CXX_BOOL (&zmpi_dt_MPI_CXX_BOOL)
#define MPI_CXX_FLOAT_COMPLEX (&zmpi_dt_MPI_CXX_FLOAT_COMPLEX)
#define MPI_CXX_DOUBLE_COMPLEX (&zmpi_dt_MPI_CXX_DOUBLE_COMPLEX)
#define MPI_CXX_LONG_DOUBLE_COMPLEX (&zmpi_dt_MPI_CXX_LONG_DOUBLE_COMPLEX)

/* Reduction operations. */
#define ZMPI_OP_LIST(X) \
    X(MPI_MAX) X(MPI_MIN) X(MPI_SUM) X(MPI_PROD) X(MPI_LAND) X(MPI_BAND) \
    X(MPI_LOR) X(MPI_BOR) X(MPI_LXOR) X(MPI_BXOR) X(MPI_MINLOC) \
    X(MPI_MAXLOC) X(MPI_REPLACE) X(MPI_NO_OP)

#define ZMPI_OP_EXTERN(name) extern ZMPI_EXPORT struct zmpi_op zmpi_op_##name;
ZMPI_OP_LIST(ZMPI_OP_EXTERN)
#undef ZMPI_OP_EXTERN

#define MPI_MAX (&zmpi_op_MPI_MAX)
#define MPI_MIN (&zmpi_op_MPI_MIN)
#define MPI_SUM (&zmpi_op_MPI_SUM)
#define MPI_PROD (&zmpi_op_MPI_PROD)
#define MPI_LAND (&zmpi_op_MPI_LAND)
#define MPI_BAND (&zmpi_op_MPI_BAND)
#define MPI_LOR (&zmpi_op_MPI_LOR)
#define MPI_BOR (&zmpi_op_MPI_BOR)
#define MPI_LXOR (&zmpi_op_MPI_LXOR)
#define MPI_BXOR (&zmpi_op_MPI_BXOR)
#define MPI_MINLOC (&zmpi_op_MPI_MINLOC)
#define MPI_MAXLOC (&zmpi_op_MPI_MAXLOC)
#define MPI_REPLACE (&zmpi_op_MPI_REPLACE)
#define MPI_NO_OP (&zmpi_op_MPI_NO_OP)

/* ---- Constants ---------------------------------------------------------- */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_BSEND_OVERHEAD 160

/* ---- Derived datatypes (constants) ---- */
/* Combiners answered by MPI_Type_get_envelope. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13

/* Array orders and distributions of MPI_Type_create_subarray/darray. */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* ---- end of derived datatypes (constants) ---- */

/* Thread levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare and MPI_Group_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Split types. */
#define MPI_COMM_TYPE_SHARED 1

/* Predefined attribute keys for MPI_Comm_get_attr. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6

/* Error classes. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_ERRHANDLER 22
#define MPI_ERR_NOT_SAME 23
#define MPI_ERR_UNSUPPORTED_OPERATION 24
/* The largest predefined error code: the MPI_T_ERR_* codes (64-81) are
 * error classes too, so codes added with MPI_Add_error_class come after. */
#define MPI_ERR_LASTCODE 81

/* ---- Shared-memory windows and info objects ----------------------------- */
#define MPI_WIN_NULL ((MPI_Win)0)
/* Attribute keys of MPI_Win_get_attr. */
#define MPI_WIN_BASE 1
#define MPI_WIN_SIZE 2
#define MPI_WIN_DISP_UNIT 3
#define MPI_WIN_CREATE_FLAVOR 4
#define MPI_WIN_MODEL 5
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
/* Assertions for MPI_Win_fence and MPI_Win_lock_all. */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_ERR_WIN 25
#define MPI_ERR_INFO_KEY 26
#define MPI_ERR_INFO_VALUE 27
#define MPI_ERR_INFO_NOKEY 28
#define MPI_ERR_SIZE 29
#define MPI_ERR_DISP 30
#define MPI_ERR_RMA_SYNC 31
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
/* The remaining error classes of MPI 4.1 (I/O, RMA, dynamic processes,
 * sessions), so that every class a program names exists. */
#define MPI_ERR_FILE 32
#define MPI_ERR_AMODE 33
#define MPI_ERR_BAD_FILE 34
#define MPI_ERR_CONVERSION 35
#define MPI_ERR_DUP_DATAREP 36
#define MPI_ERR_FILE_EXISTS 37
#define MPI_ERR_FILE_IN_USE 38
#define MPI_ERR_IO 39
#define MPI_ERR_NO_SPACE 40
#define MPI_ERR_NO_SUCH_FILE 41
#define MPI_ERR_QUOTA 42
#define MPI_ERR_READ_ONLY 43
#define MPI_ERR_UNSUPPORTED_DATAREP 44
#define MPI_ERR_ACCESS 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_RMA_CONFLICT 48
#define MPI_ERR_RMA_RANGE 49
#define MPI_ERR_RMA_ATTACH 50
#define MPI_ERR_RMA_SHARED 51
#define MPI_ERR_RMA_FLAVOR 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_PORT 54
#define MPI_ERR_SERVICE 55
#define MPI_ERR_NAME 56
#define MPI_ERR_SPAWN 57
#define MPI_ERR_INFO 58
#define MPI_ERR_SESSION 59
#define MPI_ERR_PROC_ABORTED 60
#define MPI_ERR_VALUE_TOO_LARGE 61

/* ---- Functions ---------------------------------------------------------- */
#define ZMPI_FN(ret, name, args) ZMPI_EXPORT ret MPI_##name args; ZMPI_EXPORT ret PMPI_##name args;

ZMPI_FN(int, Init, (int *argc, char ***argv))
ZMPI_FN(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
ZMPI_FN(int, Initialized, (int *flag))
ZMPI_FN(int, Finalize, (void))
ZMPI_FN(int, Finalized, (int *flag))
ZMPI_FN(int, Abort, (MPI_Comm comm, int errorcode))
ZMPI_FN(int, Query_thread, (int *provided))
ZMPI_FN(int, Is_thread_main, (int *flag))
ZMPI_FN(double, Wtime, (void))
ZMPI_FN(double, Wtick, (void))
ZMPI_FN(int, Get_processor_name, (char *name, int *resultlen))
ZMPI_FN(int, Get_version, (int *version, int *subversion))
ZMPI_FN(int, Get_library_version, (char *version, int *resultlen))

ZMPI_FN(int, Comm_size, (MPI_Comm comm, int *size))
ZMPI_FN(int, Comm_rank, (MPI_Comm comm, int *rank))
ZMPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
ZMPI_FN(int, Comm_free, (MPI_Comm *comm))
ZMPI_FN(int, Comm_set_name, (MPI_Comm comm, const char *name))
ZMPI_FN(int, Comm_get_name, (MPI_Comm comm, char *name, int *resultlen))
ZMPI_FN(int, Comm_get_attr, (MPI_Comm comm, int keyval, void *value, int *flag))
ZMPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group *group))

ZMPI_FN(int, Group_size, (MPI_Group group, int *size))
ZMPI_FN(int, Group_rank, (MPI_Group group, int *rank))
ZMPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
ZMPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
ZMPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
ZMPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
ZMPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
ZMPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
ZMPI_FN(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
ZMPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
ZMPI_FN(int, Group_free, (MPI_Group *group))

ZMPI_FN(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Buffer_attach, (void *buffer, int size))
ZMPI_FN(int, Buffer_detach, (void *buffer_addr, int *size))
ZMPI_FN(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
ZMPI_FN(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
ZMPI_FN(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
ZMPI_FN(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
ZMPI_FN(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))

ZMPI_FN(int, Wait, (MPI_Request *request, MPI_Status *status))
ZMPI_FN(int, Waitall, (int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses))
ZMPI_FN(int, Waitany, (int count, MPI_Request *array_of_requests, int *index, MPI_Status *status))
ZMPI_FN(int, Waitsome, (int incount, MPI_Request *array_of_requests, int *outcount, int *array_of_indices, MPI_Status *array_of_statuses))
ZMPI_FN(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
ZMPI_FN(int, Testall, (int count, MPI_Request *array_of_requests, int *flag, MPI_Status *array_of_statuses))
ZMPI_FN(int, Testany, (int count, MPI_Request *array_of_requests, int *index, int *flag, MPI_Status *status))
ZMPI_FN(int, Testsome, (int incount, MPI_Request *array_of_requests, int *outcount, int *array_of_indices, MPI_Status *array_of_statuses))
ZMPI_FN(int, Request_free, (MPI_Request *request))
ZMPI_FN(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
ZMPI_FN(int, Cancel, (MPI_Request *request))
ZMPI_FN(int, Test_cancelled, (const MPI_Status *status, int *flag))
ZMPI_FN(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
ZMPI_FN(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
ZMPI_FN(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Start, (MPI_Request *request))
ZMPI_FN(int, Startall, (int count, MPI_Request *array_of_requests))

ZMPI_FN(int, Barrier, (MPI_Comm comm))
ZMPI_FN(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
ZMPI_FN(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
ZMPI_FN(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))

/* ---- Datatypes ---- */
/* Collectives (node-aware collectives issue). */
ZMPI_FN(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
ZMPI_FN(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
ZMPI_FN(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
ZMPI_FN(int, Op_free, (MPI_Op *op))
ZMPI_FN(int, Op_commutative, (MPI_Op op, int *commute))
ZMPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))

/* MPI-3 shared-memory windows and info objects (node-aware collectives issue). */
ZMPI_FN(int, Info_create, (MPI_Info *info))
ZMPI_FN(int, Info_set, (MPI_Info info, const char *key, const char *value))
ZMPI_FN(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
ZMPI_FN(int, Info_free, (MPI_Info *info))
ZMPI_FN(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
ZMPI_FN(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
ZMPI_FN(int, Win_sync, (MPI_Win win))
ZMPI_FN(int, Win_fence, (int assert, MPI_Win win))
ZMPI_FN(int, Win_lock_all, (int assert, MPI_Win win))
ZMPI_FN(int, Win_unlock_all, (MPI_Win win))
ZMPI_FN(int, Win_free, (MPI_Win *win))
ZMPI_FN(int, Win_get_attr, (MPI_Win win, int keyval, void *attribute_val, int *flag))

ZMPI_FN(int, Type_size, (MPI_Datatype datatype, int *size))
ZMPI_FN(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
ZMPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
ZMPI_FN(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
ZMPI_FN(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
ZMPI_FN(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
ZMPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
ZMPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_commit, (MPI_Datatype *datatype))
ZMPI_FN(int, Type_free, (MPI_Datatype *datatype))
ZMPI_FN(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
ZMPI_FN(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
ZMPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
ZMPI_FN(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
ZMPI_FN(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
ZMPI_FN(int, Get_address, (const void *location, MPI_Aint *address))
ZMPI_FN(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
ZMPI_FN(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
ZMPI_FN(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
ZMPI_FN(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
ZMPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
ZMPI_FN(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position))
ZMPI_FN(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype))
ZMPI_FN(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size))
/* Deprecated MPI-1 names (removed from MPI-3), kept for old codes such as
 * HPL and HPCC: each is its replacement under the old name. */
ZMPI_FN(int, Address, (void *location, MPI_Aint *address))
ZMPI_FN(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_hindexed, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_struct, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype))
ZMPI_FN(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
ZMPI_FN(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
ZMPI_FN(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
/* ---- end of datatypes ---- */

ZMPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
ZMPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
ZMPI_FN(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler))
ZMPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
ZMPI_FN(int, Errhandler_free, (MPI_Errhandler *errhandler))
ZMPI_FN(int, Error_string, (int errorcode, char *string, int *resultlen))
ZMPI_FN(int, Error_class, (int errorcode, int *errorclass))

/* ---- Attribute caching (attr.c) ---- */
/* Predefined attribute of MPI_COMM_WORLD (with MPI_TAG_UB ... MPI_APPNUM
 * above): the largest error code in use.  User keys are >= 65536. */
#define MPI_LASTUSEDCODE 7

/* Attribute callbacks.  A copy callback runs when the object is duplicated
 * and sets *flag to say whether the duplicate gets *(void **)attribute_val_out;
 * a delete callback runs when the attribute is deleted, replaced or its
 * object freed.  Returning anything but MPI_SUCCESS fails the MPI call. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
/* Deprecated MPI-1 names of the communicator callbacks. */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

/* Predefined callbacks: NULL_COPY leaves the attribute out of the
 * duplicate, DUP copies the value, NULL_DELETE does nothing. */
extern ZMPI_EXPORT MPI_Comm_copy_attr_function zmpi_comm_null_copy_fn, zmpi_comm_dup_fn;
extern ZMPI_EXPORT MPI_Comm_delete_attr_function zmpi_comm_null_delete_fn;
extern ZMPI_EXPORT MPI_Type_copy_attr_function zmpi_type_null_copy_fn, zmpi_type_dup_fn;
extern ZMPI_EXPORT MPI_Type_delete_attr_function zmpi_type_null_delete_fn;
extern ZMPI_EXPORT MPI_Win_copy_attr_function zmpi_win_null_copy_fn, zmpi_win_dup_fn;
extern ZMPI_EXPORT MPI_Win_delete_attr_function zmpi_win_null_delete_fn;
#define MPI_COMM_NULL_COPY_FN zmpi_comm_null_copy_fn
#define MPI_COMM_NULL_DELETE_FN zmpi_comm_null_delete_fn
#define MPI_COMM_DUP_FN zmpi_comm_dup_fn
#define MPI_TYPE_NULL_COPY_FN zmpi_type_null_copy_fn
#define MPI_TYPE_NULL_DELETE_FN zmpi_type_null_delete_fn
#define MPI_TYPE_DUP_FN zmpi_type_dup_fn
#define MPI_WIN_NULL_COPY_FN zmpi_win_null_copy_fn
#define MPI_WIN_NULL_DELETE_FN zmpi_win_null_delete_fn
#define MPI_WIN_DUP_FN zmpi_win_dup_fn
#define MPI_NULL_COPY_FN zmpi_comm_null_copy_fn
#define MPI_NULL_DELETE_FN zmpi_comm_null_delete_fn
#define MPI_DUP_FN zmpi_comm_dup_fn

ZMPI_FN(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state))
ZMPI_FN(int, Comm_free_keyval, (int *comm_keyval))
ZMPI_FN(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
ZMPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
ZMPI_FN(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state))
ZMPI_FN(int, Type_free_keyval, (int *type_keyval))
ZMPI_FN(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
ZMPI_FN(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
ZMPI_FN(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
ZMPI_FN(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state))
ZMPI_FN(int, Win_free_keyval, (int *win_keyval))
ZMPI_FN(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
ZMPI_FN(int, Win_delete_attr, (MPI_Win win, int win_keyval))
/* Deprecated MPI-1 names (still in MPI 4.1): the communicator calls. */
ZMPI_FN(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state))
ZMPI_FN(int, Keyval_free, (int *keyval))
ZMPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
ZMPI_FN(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
ZMPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval))
/* ---- end of attribute caching ---- */

/* ---- Info, environment, handle conversion, datatype extras (info.c, env.c, handle.c) ---- */
/* info and environment */
/* MPI_INFO_ENV: how the job was started (read-only: all ranks share it). */
extern ZMPI_EXPORT struct zmpi_info zmpi_info_env;
#define MPI_INFO_ENV (&zmpi_info_env)
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
/* MPI-1 name of MPI_Comm_errhandler_function (removed in MPI-3). */
typedef void MPI_Handler_function(MPI_Comm *, int *, ...);
ZMPI_FN(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
ZMPI_FN(int, Info_delete, (MPI_Info info, const char *key))
ZMPI_FN(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
ZMPI_FN(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
ZMPI_FN(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
ZMPI_FN(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
ZMPI_FN(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))
ZMPI_FN(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
ZMPI_FN(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
ZMPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
ZMPI_FN(int, Free_mem, (void *base))
ZMPI_FN(int, Pcontrol, (const int level, ...))
ZMPI_FN(int, Get_hw_resource_info, (MPI_Info *hw_info))
ZMPI_FN(int, Add_error_class, (int *errorclass))
ZMPI_FN(int, Add_error_code, (int errorclass, int *errorcode))
ZMPI_FN(int, Add_error_string, (int errorcode, const char *string))
ZMPI_FN(int, Remove_error_class, (int errorclass))
ZMPI_FN(int, Remove_error_code, (int errorcode))
ZMPI_FN(int, Remove_error_string, (int errorcode))
ZMPI_FN(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
ZMPI_FN(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
ZMPI_FN(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
ZMPI_FN(int, Win_call_errhandler, (MPI_Win win, int errorcode))
ZMPI_FN(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
ZMPI_FN(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
ZMPI_FN(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
/* handle conversion and datatype extras */
/* Fortran handles (MPI 4.1 section 19.3.4) are MPI_Fint indices into a
 * job-wide table per kind of handle.  0 is the kind's NULL handle; the
 * predefined handles have fixed values 1, 2, ...: MPI_COMM_WORLD 1,
 * MPI_COMM_SELF 2; MPI_GROUP_EMPTY 1; MPI_ERRORS_ARE_FATAL 1,
 * MPI_ERRORS_RETURN 2, MPI_ERRORS_ABORT 3; MPI_INFO_ENV 1;
 * MPI_MESSAGE_NO_PROC 1; the datatypes and operations in the order of
 * ZMPI_DT_LIST and ZMPI_OP_LIST (MPI_CHAR 1, ..., MPI_MAX 1, ...).  Other
 * handles get the next free index on their first c2f.  f2c of an unknown
 * index, or of a handle the library can tell was freed, returns the NULL
 * handle. */
ZMPI_FN(MPI_Fint, Comm_c2f, (MPI_Comm comm))
ZMPI_FN(MPI_Comm, Comm_f2c, (MPI_Fint comm))
ZMPI_FN(MPI_Fint, Group_c2f, (MPI_Group group))
ZMPI_FN(MPI_Group, Group_f2c, (MPI_Fint group))
ZMPI_FN(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
ZMPI_FN(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
ZMPI_FN(MPI_Fint, Request_c2f, (MPI_Request request))
ZMPI_FN(MPI_Request, Request_f2c, (MPI_Fint request))
ZMPI_FN(MPI_Fint, Op_c2f, (MPI_Op op))
ZMPI_FN(MPI_Op, Op_f2c, (MPI_Fint op))
ZMPI_FN(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
ZMPI_FN(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
ZMPI_FN(MPI_Fint, Info_c2f, (MPI_Info info))
ZMPI_FN(MPI_Info, Info_f2c, (MPI_Fint info))
ZMPI_FN(MPI_Fint, Win_c2f, (MPI_Win win))
ZMPI_FN(MPI_Win, Win_f2c, (MPI_Fint win))
ZMPI_FN(MPI_Fint, Message_c2f, (MPI_Message message))
ZMPI_FN(MPI_Message, Message_f2c, (MPI_Fint message))

/* Fortran statuses.  A Fortran status is MPI_STATUS_SIZE MPI_Fint:
 *   [0] MPI_SOURCE, [1] MPI_TAG, [2] MPI_ERROR (Fortran indices
 *   MPI_SOURCE = 1, MPI_TAG = 2, MPI_ERROR = 3),
 *   [3] the cancelled flag, [4] and [5] the low and high 32 bits of the
 *   received byte count (the rest of the C status).
 * An MPI_F08_status holds the same MPI_STATUS_SIZE integers in the same
 * order.  The IGNORE constants are the addresses of library objects, so
 * the conversions recognise them (converting from or to them is an
 * error, MPI_ERR_ARG). */
#define MPI_STATUS_SIZE 6
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint zmpi_internal[MPI_STATUS_SIZE - 3]; /* cancelled, bytes low, bytes high */
} MPI_F08_status;
extern ZMPI_EXPORT MPI_Fint zmpi_f_status_ignore[MPI_STATUS_SIZE];
extern ZMPI_EXPORT MPI_Fint zmpi_f_statuses_ignore[MPI_STATUS_SIZE];
extern ZMPI_EXPORT MPI_F08_status zmpi_f08_status_ignore;
extern ZMPI_EXPORT MPI_F08_status zmpi_f08_statuses_ignore;
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)zmpi_f_status_ignore)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)zmpi_f_statuses_ignore)
#define MPI_F08_STATUS_IGNORE (&zmpi_f08_status_ignore)
#define MPI_F08_STATUSES_IGNORE (&zmpi_f08_statuses_ignore)
ZMPI_FN(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
ZMPI_FN(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
ZMPI_FN(int, Status_c2f08, (const MPI_Status *c_status, MPI_F08_status *f08_status))
ZMPI_FN(int, Status_f082c, (const MPI_F08_status *f08_status, MPI_Status *c_status))
ZMPI_FN(int, Status_f2f08, (const MPI_Fint *f_status, MPI_F08_status *f08_status))
ZMPI_FN(int, Status_f082f, (const MPI_F08_status *f08_status, MPI_Fint *f_status))

/* Datatype extras (type_extra.c).  The Fortran 90 parameterised types are
 * predefined: the same (p, r) gives the same handle on every call and
 * rank, and MPI_Type_get_envelope answers these combiners with p and r. */
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
ZMPI_FN(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
ZMPI_FN(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
ZMPI_FN(int, Type_get_value_index, (MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type))
/* ---- end of info, environment, handle conversion ---- */

/* ---- Process topologies and neighbourhood collectives (topo.c, neighbor.c) ---- */
/* Topology kinds answered by MPI_Topo_test (MPI_UNDEFINED: none). */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
/* Weight arguments of the distributed graph calls: no weights at all, and
 * an empty weight list (degree 0).  Addresses of objects in libzmpi, so
 * that compilers checking array arguments see real arrays. */
extern ZMPI_EXPORT int zmpi_unweighted[1];
extern ZMPI_EXPORT int zmpi_weights_empty[1];
#define MPI_UNWEIGHTED (zmpi_unweighted)
#define MPI_WEIGHTS_EMPTY (zmpi_weights_empty)

ZMPI_FN(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
ZMPI_FN(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
ZMPI_FN(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
ZMPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
ZMPI_FN(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
ZMPI_FN(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
ZMPI_FN(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
ZMPI_FN(int, Cartdim_get, (MPI_Comm comm, int *ndims))
ZMPI_FN(int, Dims_create, (int nnodes, int ndims, int dims[]))
ZMPI_FN(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
ZMPI_FN(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
ZMPI_FN(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
ZMPI_FN(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
ZMPI_FN(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
ZMPI_FN(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
ZMPI_FN(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
ZMPI_FN(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
ZMPI_FN(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]))
ZMPI_FN(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
ZMPI_FN(int, Topo_test, (MPI_Comm comm, int *status))

ZMPI_FN(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
ZMPI_FN(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoallw_init, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
/* ---- end of process topologies ---- */

/* ---- Communicators and intercommunicators (comm.c, intercomm.c, inter_coll.c) ---- */
/* Split types besides MPI_COMM_TYPE_SHARED (MPI 4.1 section 7.4.2). */
#define MPI_COMM_TYPE_HW_GUIDED 2
#define MPI_COMM_TYPE_HW_UNGUIDED 3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4
ZMPI_FN(int, Comm_test_inter, (MPI_Comm comm, int *flag))
ZMPI_FN(int, Comm_remote_size, (MPI_Comm comm, int *size))
ZMPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
ZMPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
ZMPI_FN(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request))
ZMPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_disconnect, (MPI_Comm *comm))
ZMPI_FN(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
ZMPI_FN(int, Intercomm_create_from_groups, (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm))
ZMPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
ZMPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
/* ---- end of communicators and intercommunicators ---- */

/* ---- Requests, persistent collectives (pt2pt_more.c, grequest.c, coll_persist.c) ---- */
/* Generalized requests (MPI 4.1 section 13.2). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
ZMPI_FN(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
ZMPI_FN(int, Grequest_complete, (MPI_Request request))
/* Status objects. */
ZMPI_FN(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
ZMPI_FN(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
ZMPI_FN(int, Status_set_cancelled, (MPI_Status *status, int flag))
ZMPI_FN(int, Status_set_source, (MPI_Status *status, int source))
ZMPI_FN(int, Status_set_tag, (MPI_Status *status, int tag))
ZMPI_FN(int, Status_set_error, (MPI_Status *status, int err))
ZMPI_FN(int, Status_get_source, (const MPI_Status *status, int *source))
ZMPI_FN(int, Status_get_tag, (const MPI_Status *status, int *tag))
ZMPI_FN(int, Status_get_error, (const MPI_Status *status, int *err))
/* Status queries that free nothing. */
ZMPI_FN(int, Request_get_status_any, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status))
ZMPI_FN(int, Request_get_status_all, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]))
ZMPI_FN(int, Request_get_status_some, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
/* Send and receive in one request. */
ZMPI_FN(int, Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
/* Non-blocking Alltoallw. */
ZMPI_FN(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
/* Persistent collectives (MPI 4.1 section 6.13). */
ZMPI_FN(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Gatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Scatterv_init, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Alltoallw_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Allreduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_scatter_block_init, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
/* ---- end of requests, persistent collectives ---- */

/* ---- Partitioned communication and per-communicator buffers (part.c, bsend) ---- */
ZMPI_FN(int, Psend_init, (const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Precv_init, (void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Pready, (int partition, MPI_Request request))
ZMPI_FN(int, Pready_range, (int partition_low, int partition_high, MPI_Request request))
ZMPI_FN(int, Pready_list, (int length, const int array_of_partitions[], MPI_Request request))
ZMPI_FN(int, Parrived, (MPI_Request request, int partition, int *flag))
/* MPI_Buffer_attach / MPI_Comm_attach_buffer: a buffer that grows as
 * needed (each buffered message gets memory of its own). */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)
ZMPI_FN(int, Buffer_flush, (void))
ZMPI_FN(int, Buffer_iflush, (MPI_Request *request))
ZMPI_FN(int, Comm_attach_buffer, (MPI_Comm comm, void *buffer, int size))
ZMPI_FN(int, Comm_detach_buffer, (MPI_Comm comm, void *buffer_addr, int *size))
ZMPI_FN(int, Comm_flush_buffer, (MPI_Comm comm))
ZMPI_FN(int, Comm_iflush_buffer, (MPI_Comm comm, MPI_Request *request))
/* ---- end of partitioned communication ---- */

/* ---- MPI_T tool information interface (mpit.c) ---- */
/* Error classes of the MPI_T calls (MPI 4.1 section 15.3.10).  MPI_T
 * calls return them and never call an error handler. */
#define MPI_T_ERR_MEMORY 64
#define MPI_T_ERR_NOT_INITIALIZED 65
#define MPI_T_ERR_CANNOT_INIT 66
#define MPI_T_ERR_INVALID_INDEX 67
#define MPI_T_ERR_INVALID_ITEM 68
#define MPI_T_ERR_INVALID_HANDLE 69
#define MPI_T_ERR_OUT_OF_HANDLES 70
#define MPI_T_ERR_OUT_OF_SESSIONS 71
#define MPI_T_ERR_INVALID_SESSION 72
#define MPI_T_ERR_CVAR_SET_NOT_NOW 73
#define MPI_T_ERR_CVAR_SET_NEVER 74
#define MPI_T_ERR_PVAR_NO_STARTSTOP 75
#define MPI_T_ERR_PVAR_NO_WRITE 76
#define MPI_T_ERR_PVAR_NO_ATOMIC 77
#define MPI_T_ERR_INVALID_NAME 78
#define MPI_T_ERR_INVALID 79
#define MPI_T_ERR_NOT_SUPPORTED 80
#define MPI_T_ERR_NOT_ACCESSIBLE 81
/* Verbosity of a variable: audience (user, tuner, MPI developer) times
 * detail (basic, detail, all). */
#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9
/* The MPI object a variable is bound to. */
#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11
/* Who may change a control variable, and when. */
#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL 2
#define MPI_T_SCOPE_GROUP 3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL 5
#define MPI_T_SCOPE_ALL_EQ 6
/* Classes of performance variables. */
#define MPI_T_PVAR_CLASS_STATE 0
#define MPI_T_PVAR_CLASS_LEVEL 1
#define MPI_T_PVAR_CLASS_SIZE 2
#define MPI_T_PVAR_CLASS_PERCENTAGE 3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK 5
#define MPI_T_PVAR_CLASS_COUNTER 6
#define MPI_T_PVAR_CLASS_AGGREGATE 7
#define MPI_T_PVAR_CLASS_TIMER 8
#define MPI_T_PVAR_CLASS_GENERIC 9
typedef struct zmpi_t_enum *MPI_T_enum;
typedef struct zmpi_t_cvar_handle *MPI_T_cvar_handle;
typedef struct zmpi_t_pvar_handle *MPI_T_pvar_handle;
typedef struct zmpi_t_pvar_session *MPI_T_pvar_session;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)
ZMPI_FN(int, T_init_thread, (int required, int *provided))
ZMPI_FN(int, T_finalize, (void))
ZMPI_FN(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
ZMPI_FN(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
ZMPI_FN(int, T_cvar_get_num, (int *num_cvar))
ZMPI_FN(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope))
ZMPI_FN(int, T_cvar_get_index, (const char *name, int *cvar_index))
ZMPI_FN(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
ZMPI_FN(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
ZMPI_FN(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
ZMPI_FN(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
ZMPI_FN(int, T_pvar_get_num, (int *num_pvar))
ZMPI_FN(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic))
ZMPI_FN(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
ZMPI_FN(int, T_pvar_session_create, (MPI_T_pvar_session *session))
ZMPI_FN(int, T_pvar_session_free, (MPI_T_pvar_session *session))
ZMPI_FN(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle, int *count))
ZMPI_FN(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
ZMPI_FN(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
ZMPI_FN(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
ZMPI_FN(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
ZMPI_FN(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
ZMPI_FN(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
ZMPI_FN(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
ZMPI_FN(int, T_category_get_num, (int *num_cat))
ZMPI_FN(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories))
ZMPI_FN(int, T_category_get_index, (const char *name, int *cat_index))
ZMPI_FN(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
ZMPI_FN(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
ZMPI_FN(int, T_category_get_categories, (int cat_index, int len, int indices[]))
ZMPI_FN(int, T_category_changed, (int *update_number))
/* Events and their sources (MPI 4.1 sections 15.3.8, mpit_events.c).
 * Callback safety requirements, from least to most restrictive. */
typedef struct zmpi_t_event_instance *MPI_T_event_instance;
typedef struct zmpi_t_event_registration *MPI_T_event_registration;
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 0,
    MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance, MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration, int source_index, MPI_T_cb_safety cb_safety, void *user_data);
ZMPI_FN(int, T_source_get_num, (int *num_sources))
ZMPI_FN(int, T_source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len, MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info))
ZMPI_FN(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp))
ZMPI_FN(int, T_event_get_num, (int *num_events))
ZMPI_FN(int, T_event_get_info, (int event_index, char *name, int *name_len, int *verbosity, MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind))
ZMPI_FN(int, T_event_get_index, (const char *name, int *event_index))
ZMPI_FN(int, T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info, MPI_T_event_registration *event_registration))
ZMPI_FN(int, T_event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info))
ZMPI_FN(int, T_event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used))
ZMPI_FN(int, T_event_register_callback, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function))
ZMPI_FN(int, T_event_callback_set_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info))
ZMPI_FN(int, T_event_callback_get_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info *info_used))
ZMPI_FN(int, T_event_handle_free, (MPI_T_event_registration event_registration, void *user_data, MPI_T_event_free_cb_function free_cb_function))
ZMPI_FN(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration, MPI_T_event_dropped_cb_function dropped_cb_function))
ZMPI_FN(int, T_event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer))
ZMPI_FN(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer))
ZMPI_FN(int, T_event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp))
ZMPI_FN(int, T_event_get_source, (MPI_T_event_instance event_instance, int *source_index))
ZMPI_FN(int, T_category_get_num_events, (int cat_index, int *num_events))
ZMPI_FN(int, T_category_get_events, (int cat_index, int len, int indices[]))
/* ---- end of MPI_T ---- */

/* ---- Sessions (session.c) ---- */
/* The sessions model (MPI 4.1 section 11.3): a session is a handle to MPI
 * that needs no MPI_Init; its process sets "mpi://WORLD" and "mpi://SELF"
 * give groups, and MPI_Comm_create_from_group makes communicators. */
typedef struct zmpi_session *MPI_Session;
typedef void MPI_Session_errhandler_function(MPI_Session *, int *, ...);
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#ifndef MPI_MAX_STRINGTAG_LEN
#define MPI_MAX_STRINGTAG_LEN 256
#endif
ZMPI_FN(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session))
ZMPI_FN(int, Session_finalize, (MPI_Session *session))
ZMPI_FN(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names))
ZMPI_FN(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name))
ZMPI_FN(int, Session_get_pset_info, (MPI_Session session, const char *pset_name, MPI_Info *info))
ZMPI_FN(int, Session_get_info, (MPI_Session session, MPI_Info *info_used))
ZMPI_FN(int, Group_from_session_pset, (MPI_Session session, const char *pset_name, MPI_Group *newgroup))
ZMPI_FN(int, Comm_create_from_group, (MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm))
ZMPI_FN(int, Session_create_errhandler, (MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler))
ZMPI_FN(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler))
ZMPI_FN(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler))
ZMPI_FN(int, Session_call_errhandler, (MPI_Session session, int errorcode))
ZMPI_FN(MPI_Fint, Session_c2f, (MPI_Session session))
ZMPI_FN(MPI_Session, Session_f2c, (MPI_Fint session))
/* ---- end of sessions ---- */

/* ---- MPI-IO (src/io/, file_api.c) ---- */
typedef struct zmpi_file *MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)
typedef void MPI_File_errhandler_function(MPI_File *, int *, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position,
                                            void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void *filebuf,
                                              MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
/* Access modes of MPI_File_open (bits). */
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
/* Whence of MPI_File_seek. */
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

ZMPI_FN(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
ZMPI_FN(int, File_close, (MPI_File *fh))
ZMPI_FN(int, File_delete, (const char *filename, MPI_Info info))
ZMPI_FN(int, File_set_size, (MPI_File fh, MPI_Offset size))
ZMPI_FN(int, File_preallocate, (MPI_File fh, MPI_Offset size))
ZMPI_FN(int, File_get_size, (MPI_File fh, MPI_Offset *size))
ZMPI_FN(int, File_get_group, (MPI_File fh, MPI_Group *group))
ZMPI_FN(int, File_get_amode, (MPI_File fh, int *amode))
ZMPI_FN(int, File_set_info, (MPI_File fh, MPI_Info info))
ZMPI_FN(int, File_get_info, (MPI_File fh, MPI_Info *info_used))
ZMPI_FN(int, File_sync, (MPI_File fh))
ZMPI_FN(int, File_set_atomicity, (MPI_File fh, int flag))
ZMPI_FN(int, File_get_atomicity, (MPI_File fh, int *flag))
ZMPI_FN(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info))
ZMPI_FN(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep))
ZMPI_FN(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
ZMPI_FN(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
ZMPI_FN(int, File_get_position, (MPI_File fh, MPI_Offset *offset))
ZMPI_FN(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
ZMPI_FN(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
ZMPI_FN(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
ZMPI_FN(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype))
ZMPI_FN(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
ZMPI_FN(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype))
ZMPI_FN(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
ZMPI_FN(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
ZMPI_FN(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
ZMPI_FN(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
ZMPI_FN(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
ZMPI_FN(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
ZMPI_FN(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
ZMPI_FN(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
ZMPI_FN(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
ZMPI_FN(int, File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler))
ZMPI_FN(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
ZMPI_FN(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
ZMPI_FN(int, File_call_errhandler, (MPI_File fh, int errorcode))
/* Large-count forms. */
ZMPI_FN(int, File_read_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_read_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_iread_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iread_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_read_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_read_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_iread_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iread_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_read_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_iread_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_iwrite_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
ZMPI_FN(int, File_read_ordered_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_write_ordered_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
ZMPI_FN(int, File_read_at_all_begin_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype))
ZMPI_FN(int, File_write_at_all_begin_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype))
ZMPI_FN(int, File_read_all_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype))
ZMPI_FN(int, File_write_all_begin_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype))
ZMPI_FN(int, File_read_ordered_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype))
ZMPI_FN(int, File_write_ordered_begin_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype))
ZMPI_FN(int, File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype, MPI_Count *extent))
ZMPI_FN(int, Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
ZMPI_FN(int, Register_datarep_c, (const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn, MPI_Datarep_conversion_function_c *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
ZMPI_FN(MPI_Fint, File_c2f, (MPI_File file))
ZMPI_FN(MPI_File, File_f2c, (MPI_Fint file))
/* ---- end of MPI-IO ---- */

/* ---- One-sided communication (src/rma/, win.c, rma_api.c) ---- */
/* Lock types of MPI_Win_lock. */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
ZMPI_FN(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
ZMPI_FN(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
ZMPI_FN(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
ZMPI_FN(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
ZMPI_FN(int, Win_detach, (MPI_Win win, const void *base))
ZMPI_FN(int, Win_get_group, (MPI_Win win, MPI_Group *group))
ZMPI_FN(int, Win_set_name, (MPI_Win win, const char *win_name))
ZMPI_FN(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
ZMPI_FN(int, Win_set_info, (MPI_Win win, MPI_Info info))
ZMPI_FN(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
ZMPI_FN(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
ZMPI_FN(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
ZMPI_FN(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
ZMPI_FN(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
ZMPI_FN(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
ZMPI_FN(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
ZMPI_FN(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
ZMPI_FN(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
ZMPI_FN(int, Win_complete, (MPI_Win win))
ZMPI_FN(int, Win_wait, (MPI_Win win))
ZMPI_FN(int, Win_test, (MPI_Win win, int *flag))
ZMPI_FN(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
ZMPI_FN(int, Win_unlock, (int rank, MPI_Win win))
ZMPI_FN(int, Win_flush, (int rank, MPI_Win win))
ZMPI_FN(int, Win_flush_local, (int rank, MPI_Win win))
ZMPI_FN(int, Win_flush_all, (MPI_Win win))
ZMPI_FN(int, Win_flush_local_all, (MPI_Win win))
/* ---- end of one-sided communication ---- */

/* ---- Dynamic processes (spawn.c, port.c; docs/spawn.md) ---- */
/* Spawned ranks are new virtual ranks (user-level threads) of the running
 * job.  Ports and published names are job-wide. */
#define MPI_MAX_PORT_NAME 256
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
ZMPI_FN(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
ZMPI_FN(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
ZMPI_FN(int, Comm_get_parent, (MPI_Comm *parent))
ZMPI_FN(int, Open_port, (MPI_Info info, char *port_name))
ZMPI_FN(int, Close_port, (const char *port_name))
ZMPI_FN(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
ZMPI_FN(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
ZMPI_FN(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
ZMPI_FN(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))
ZMPI_FN(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))
ZMPI_FN(int, Comm_join, (int fd, MPI_Comm *intercomm))
/* ---- end of dynamic processes ---- */

/* ---- zmpi extensions: rank migration (src/mpi/migrate.c; docs/migrate.md) ----
 * Not MPI: programs test ZMPI_HAS_MIGRATE so that they still build with
 * other MPIs.  ZMPI_Migrate (collective over MPI_COMM_WORLD) lets the load
 * balancer move ranks between the worker threads of their process; hints
 * "zmpi_lb" (greedy, refine, rotate, none) and "zmpi_lb_tolerance".
 * ZMPI_Set_load states the caller's load for the next ZMPI_Migrate
 * instead of its measured busy time. */
#define ZMPI_HAS_MIGRATE 1
ZMPI_EXPORT int ZMPI_Migrate(MPI_Info hints);
ZMPI_EXPORT int PZMPI_Migrate(MPI_Info hints);
ZMPI_EXPORT int ZMPI_Set_load(double load);
ZMPI_EXPORT int PZMPI_Set_load(double load);
/* ---- end of zmpi extensions: rank migration ---- */

/* ---- zmpi extension: checkpoint/restart (src/mpi/checkpoint.c;
 * docs/checkpoint.md) ----
 * ZMPI_Checkpoint (collective over MPI_COMM_WORLD) writes every rank's
 * state to files in `dir`; `zmpirun --restart dir` resumes the job there,
 * each rank returning from this call.  The job must run under
 * `zmpirun --checkpoint`. */
#define ZMPI_HAS_CHECKPOINT 1
ZMPI_EXPORT int ZMPI_Checkpoint(const char *dir);
ZMPI_EXPORT int PZMPI_Checkpoint(const char *dir);

/* ---- Large counts (generated by scripts/gen_large_count.py) ---- */
/* Every _c call below has its int twin declared above; both do the same
 * work (src/mpi/large.h).  Do not edit: change the table of
 * scripts/gen_large_count.py and run it. */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype);
ZMPI_FN(int, Session_attach_buffer, (MPI_Session session, void *buffer, int size))
ZMPI_FN(int, Session_detach_buffer, (MPI_Session session, void *buffer_addr, int *size))
ZMPI_FN(int, Session_flush_buffer, (MPI_Session session))
ZMPI_FN(int, Session_iflush_buffer, (MPI_Session session, MPI_Request *request))
ZMPI_FN(int, Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
ZMPI_FN(int, Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Sendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Sendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
ZMPI_FN(int, Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
ZMPI_FN(int, Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
ZMPI_FN(int, Isendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Isendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
ZMPI_FN(int, Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
ZMPI_FN(int, Status_set_elements_c, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
ZMPI_FN(int, Buffer_attach_c, (void *buffer, MPI_Count size))
ZMPI_FN(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size))
ZMPI_FN(int, Comm_attach_buffer_c, (MPI_Comm comm, void *buffer, MPI_Count size))
ZMPI_FN(int, Comm_detach_buffer_c, (MPI_Comm comm, void *buffer_addr, MPI_Count *size))
ZMPI_FN(int, Session_attach_buffer_c, (MPI_Session session, void *buffer, MPI_Count size))
ZMPI_FN(int, Session_detach_buffer_c, (MPI_Session session, void *buffer_addr, MPI_Count *size))
ZMPI_FN(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_indexed_block_c, (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_hindexed_block_c, (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_subarray_c, (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_darray_c, (int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
ZMPI_FN(int, Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype))
ZMPI_FN(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size))
ZMPI_FN(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
ZMPI_FN(int, Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
ZMPI_FN(int, Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm))
ZMPI_FN(int, Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm))
ZMPI_FN(int, Pack_size_c, (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size))
ZMPI_FN(int, Pack_external_c, (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position))
ZMPI_FN(int, Unpack_external_c, (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype))
ZMPI_FN(int, Pack_external_size_c, (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size))
ZMPI_FN(int, Type_get_envelope_c, (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses, MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner))
ZMPI_FN(int, Type_get_contents_c, (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]))
ZMPI_FN(int, Bcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm))
ZMPI_FN(int, Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Bcast_init_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Gather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Gather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Gatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Scatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Scatter_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
ZMPI_FN(int, Iscatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Scatterv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Iallgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Ialltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
ZMPI_FN(int, Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
ZMPI_FN(int, Ireduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Reduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Iallreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Allreduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Ireduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Reduce_scatter_init_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Ireduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Reduce_scatter_block_init_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Scan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
ZMPI_FN(int, Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Exscan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op))
ZMPI_FN(int, Op_create_c, (MPI_User_function_c *user_fn, int commute, MPI_Op *op))
ZMPI_FN(int, Neighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Ineighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Neighbor_allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Ineighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Neighbor_allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Ineighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
ZMPI_FN(int, Ineighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
ZMPI_FN(int, Ineighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
ZMPI_FN(int, Neighbor_alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
ZMPI_FN(int, Put_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win))
ZMPI_FN(int, Get_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win))
ZMPI_FN(int, Rput_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Rget_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
ZMPI_FN(int, Get_accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
ZMPI_FN(int, Raccumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Rget_accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
ZMPI_FN(int, Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
ZMPI_FN(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
ZMPI_FN(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
ZMPI_FN(int, Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr))
/* ---- end of large counts ---- */

#undef ZMPI_FN

#ifdef __cplusplus
}
#endif

#endif /* ZMPI_MPI_H */
