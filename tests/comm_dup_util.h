/*
 * comm_dup_util.h: the duplicate of MPI_COMM_WORLD that a library makes,
 * with a name and a hint, and the check that both are still there
 * (tests/ckpt_comm.c across a checkpoint and restart, tests/migrate_net.c
 * across moves between processes).
 */
#ifndef ZT_COMM_DUP_UTIL_H
#define ZT_COMM_DUP_UTIL_H

#include <mpi.h>
#include <string.h>

#define ZT_DUP_NAME "library dup"
#define ZT_DUP_HINT "mpi_assert_no_any_tag"

/* A duplicate of MPI_COMM_WORLD named ZT_DUP_NAME, with ZT_DUP_HINT set
 * to "true".  Collective over MPI_COMM_WORLD. */
static inline MPI_Comm zt_dup_named(void)
{
    MPI_Comm c;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, ZT_DUP_HINT, "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    MPI_Comm_set_name(c, ZT_DUP_NAME);
    return c;
}

/* NULL while c (made by zt_dup_named) still has its name and hint, else
 * which of them was lost. */
static inline const char *zt_dup_named_lost(MPI_Comm c)
{
    char name[MPI_MAX_OBJECT_NAME], val[64];
    int len, flag;
    MPI_Comm_get_name(c, name, &len);
    if (strcmp(name, ZT_DUP_NAME) != 0)
        return "name of the duplicate";
    MPI_Info info;
    MPI_Comm_get_info(c, &info);
    MPI_Info_get_string(info, ZT_DUP_HINT, &(int){ sizeof val }, val, &flag);
    MPI_Info_free(&info);
    if (!flag || strcmp(val, "true") != 0)
        return "hint of the duplicate";
    return NULL;
}

#endif
