/*
 * info.c: info objects, ordered lists of key/value strings (MPI 4.1
 * chapter 10).
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

int zm_mpi_info_check(const char *fn, MPI_Info info)
{
    if (info && info->magic == ZM_INFO_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(info): invalid info object");
}

static struct zmpi_info_entry *info_find(MPI_Info info, const char *key)
{
    for (struct zmpi_info_entry *e = info->head; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

int PMPI_Info_create(MPI_Info *info)
{
    const char *fn = "MPI_Info_create";
    zm_mpi_enter(fn);
    if (!info)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(info=NULL): invalid argument");
    *info = calloc(1, sizeof(**info));
    if (!*info)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    (*info)->magic = ZM_INFO_MAGIC;
    return MPI_SUCCESS;
}
ZM_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *fn = "MPI_Info_set";
    zm_mpi_enter(fn);
    int rc = zm_mpi_info_check(fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!key || !*key || strlen(key) > MPI_MAX_INFO_KEY)
        return zm_mpi_error(NULL, MPI_ERR_INFO_KEY, fn, "(key): empty, NULL or too long");
    if (!value || strlen(value) > MPI_MAX_INFO_VAL)
        return zm_mpi_error(NULL, MPI_ERR_INFO_VALUE, fn, "(value): NULL or too long");
    struct zmpi_info_entry *e = info_find(info, key);
    char *v = strdup(value);
    if (!v)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    if (e) {
        free(e->value);
        e->value = v;
        return MPI_SUCCESS;
    }
    e = malloc(sizeof(*e));
    if (!e || !(e->key = strdup(key))) {
        free(e);
        free(v);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    e->value = v;
    e->next = info->head;
    info->head = e;
    return MPI_SUCCESS;
}
ZM_WEAK(Info_set)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get";
    zm_mpi_enter(fn);
    int rc = zm_mpi_info_check(fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!key || !value || !flag || valuelen < 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "invalid key, value, length or flag");
    struct zmpi_info_entry *e = info_find(info, key);
    *flag = e != NULL;
    if (e) {
        strncpy(value, e->value, (size_t)valuelen);
        value[valuelen] = '\0';
    }
    return MPI_SUCCESS;
}
ZM_WEAK(Info_get)

int PMPI_Info_free(MPI_Info *info)
{
    const char *fn = "MPI_Info_free";
    zm_mpi_enter(fn);
    int rc = info ? zm_mpi_info_check(fn, *info) : zm_mpi_info_check(fn, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_info_entry *e = (*info)->head;
    while (e) {
        struct zmpi_info_entry *next = e->next;
        free(e->key);
        free(e->value);
        free(e);
        e = next;
    }
    (*info)->magic = 0;
    free(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Info_free)

