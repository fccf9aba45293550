/* fconst.c: prints the values of mpi.h's constants for the Fortran
 * bindings, one per line, as gen_fortran.py reads them (fconst.txt):
 *   KIND <name> <bytes>            integer kinds of the bindings
 *   INT <name> <value>             integer constants
 *   LONG <name> <value>            MPI_Aint / MPI_Offset / MPI_Count ones
 *   HANDLE <f08 type> <name> <i>   predefined handles as Fortran indices
 * Built and run at build time against the just-built libzmpi, so the
 * Fortran constants are the C library's own values, never a copy. */
#include <mpi.h>
#include <stdio.h>


/* One constant: its C type picks the line written. */
#define ZF_CONST(m) zf_print(#m, _Generic((m), \
    int: 'i', long: 'l', long long: 'l', unsigned: 'i', \
    MPI_Comm: 'c', MPI_Group: 'g', MPI_Datatype: 't', MPI_Request: 'r', \
    MPI_Op: 'o', MPI_Errhandler: 'e', MPI_Message: 'm', MPI_Info: 'n', \
    MPI_Win: 'w', MPI_File: 'f', MPI_Session: 's', default: '?'), \
    &(__typeof__((m))){(m)});

static void zf_print(const char *name, char kind, const void *p)
{
    switch (kind) {
    case 'i': printf("INT %s %d\n", name, *(const int *)p); break;
    case 'l': printf("LONG %s %lld\n", name, (long long)*(const int64_t *)p); break;
    case 'c': printf("HANDLE MPI_Comm %s %d\n", name, (int)PMPI_Comm_c2f(*(MPI_Comm *)p)); break;
    case 'g': printf("HANDLE MPI_Group %s %d\n", name, (int)PMPI_Group_c2f(*(MPI_Group *)p)); break;
    case 't': printf("HANDLE MPI_Datatype %s %d\n", name,
                     (int)PMPI_Type_c2f(*(MPI_Datatype *)p)); break;
    case 'r': printf("HANDLE MPI_Request %s %d\n", name,
                     (int)PMPI_Request_c2f(*(MPI_Request *)p)); break;
    case 'o': printf("HANDLE MPI_Op %s %d\n", name, (int)PMPI_Op_c2f(*(MPI_Op *)p)); break;
    case 'e': printf("HANDLE MPI_Errhandler %s %d\n", name,
                     (int)PMPI_Errhandler_c2f(*(MPI_Errhandler *)p)); break;
    case 'm': printf("HANDLE MPI_Message %s %d\n", name,
                     (int)PMPI_Message_c2f(*(MPI_Message *)p)); break;
    case 'n': printf("HANDLE MPI_Info %s %d\n", name, (int)PMPI_Info_c2f(*(MPI_Info *)p)); break;
    case 'w': printf("HANDLE MPI_Win %s %d\n", name, (int)PMPI_Win_c2f(*(MPI_Win *)p)); break;
    case 'f': printf("HANDLE MPI_File %s %d\n", name, (int)PMPI_File_c2f(*(MPI_File *)p)); break;
    case 's': printf("HANDLE MPI_Session %s %d\n", name,
                     (int)PMPI_Session_c2f(*(MPI_Session *)p)); break;
    default: break; /* not a Fortran constant (pointers, strings) */
    }
}

int main(void)
{
    printf("KIND MPI_INTEGER_KIND %d\n", (int)sizeof(MPI_Fint));
    printf("KIND MPI_ADDRESS_KIND %d\n", (int)sizeof(MPI_Aint));
    printf("KIND MPI_OFFSET_KIND %d\n", (int)sizeof(MPI_Offset));
    printf("KIND MPI_COUNT_KIND %d\n", (int)sizeof(MPI_Count));
    /* The positions of MPI_SOURCE, MPI_TAG and MPI_ERROR in a Fortran
     * status (1-based; mpi.h's Fortran status layout). */
    printf("INT MPI_SOURCE 1\nINT MPI_TAG 2\nINT MPI_ERROR 3\n");
#include "fconst_names.h"
    return 0;
}
