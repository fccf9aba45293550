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

/* zmpi implements the parts of MPI listed in README.md; it claims the lowest
 * standard level because no full level is complete yet.  Feature macros and
 * MPI_Get_library_version say what is there. */
#define MPI_VERSION 1
#define MPI_SUBVERSION 0

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

/* Datatypes.  Each is the address of a constant object in libzmpi. */
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
    X(MPI_2INT) X(MPI_SHORT_INT) X(MPI_LONG_DOUBLE_INT)

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
#define MPI_MAX_LIBRARY_VERSION_STRING 256
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
#define MPI_ERR_LASTCODE 63

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
/* ---- end of attribute caching ---- */

/* ---- Info, environment, handle conversion, datatype extras (info.c, env.c, handle.c) ---- */
/* ---- end of info, environment, handle conversion ---- */

/* ---- Process topologies and neighbourhood collectives (topo.c, neighbor.c) ---- */
/* ---- end of process topologies ---- */

/* ---- Communicators and intercommunicators (comm.c, intercomm.c, inter_coll.c) ---- */
/* ---- end of communicators and intercommunicators ---- */

#undef ZMPI_FN

#ifdef __cplusplus
}
#endif

#endif /* ZMPI_MPI_H */
