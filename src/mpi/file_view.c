/*
 * file_view.c: file views and file pointer positioning (MPI 4.1 sections
 * 14.3, 14.4.3 and 14.4.4): MPI_File_set_view/get_view,
 * MPI_File_get_type_extent, seek and position queries for the individual
 * and the shared file pointer.
 *
 * Positions are counted in etypes of the current view; the flattened
 * filetype (src/io/io_view.c) turns them into byte offsets.
 */
#include "file_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Nonzero if `rep` names a data representation zmpi implements:
 * "native"; "internal", which zmpi writes exactly as native (the standard
 * lets an implementation choose internal's format); and "external32". */
static int datarep_known(const char *rep)
{
    return strcmp(rep, "native") == 0 || strcmp(rep, "internal") == 0 ||
           strcmp(rep, "external32") == 0;
}

int zm_mpi_file_ext32_same_size(MPI_Datatype dt)
{
    int ok = 0;
    size_t n = zm_dt_ext32_size(dt, 1, &ok);
    return ok && n == dt->size;
}

/* Check the arguments of MPI_File_set_view; MPI_SUCCESS or the raised
 * error. */
static int view_check(const char *fn, MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep)
{
    if (!zm_dt_usable(etype))
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(etype): %s",
                                 zm_dt_valid(etype) ? "not committed or freed"
                                                    : "not a datatype");
    if (!zm_dt_usable(filetype))
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(filetype): %s",
                                 zm_dt_valid(filetype) ? "not committed or freed"
                                                       : "not a datatype");
    if (etype->size == 0)
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(etype=%s): holds no data",
                                 etype->name);
    if (filetype->size % etype->size != 0)
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(filetype=%s): its size %zu is not a "
                                 "multiple of the etype's size %zu", filetype->name,
                                 filetype->size, etype->size);
    if (disp == MPI_DISPLACEMENT_CURRENT && !(fh->amode & MPI_MODE_SEQUENTIAL))
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(disp=MPI_DISPLACEMENT_CURRENT): only "
                                 "for files opened MPI_MODE_SEQUENTIAL");
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(disp=%lld): negative displacement",
                                 (long long)disp);
    if (!datarep)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(datarep=NULL): invalid argument");
    const struct zm_mpi_datarep *urep = zm_mpi_datarep_find(datarep);
    if (urep && (!zm_mpi_datarep_fits(urep, etype) || !zm_mpi_datarep_fits(urep, filetype)))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "(datarep=\"%s\"): the "
                                 "etype or filetype holds a type whose file extent differs "
                                 "from its size in memory; not supported", datarep);
    if (!urep && !datarep_known(datarep))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "(datarep=\"%s\"): not "
                                 "supported; use \"native\", \"internal\" or \"external32\"",
                                 datarep);
    /* external32 is supported for types whose elements have the same size
     * there as in memory (all predefined types of this ABI but MPI_LONG and
     * MPI_UNSIGNED_LONG, 4 bytes in external32): the view keeps its layout
     * and only the bytes of each element are converted. */
    if (strcmp(datarep, "external32") == 0 &&
        (!zm_mpi_file_ext32_same_size(etype) || !zm_mpi_file_ext32_same_size(filetype)))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                                 "(datarep=\"external32\"): the etype or filetype holds an "
                                 "element whose external32 size differs from its size in "
                                 "memory; not supported");
    if (fh->split)
        return zm_mpi_file_error(fh, MPI_ERR_OTHER, fn, "a split collective access is open");
    return MPI_SUCCESS;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    const char *fn = "MPI_File_set_view";
    ENTER_FILE(fn, fh);
    rc = view_check(fn, fh, disp, etype, filetype, datarep);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rc = zm_mpi_info_check(fn, info);
    if (disp == MPI_DISPLACEMENT_CURRENT)
        disp = zm_io_view_offset(&fh->view, zm_mpi_file_sp_load(fh) *
                                                (MPI_Offset)fh->etype->size);
    zm_io_view_t nv = { 0 };
    int err = rc == MPI_SUCCESS ? zm_io_view_set(&nv, disp, filetype) : 0;
    if (err != 0)
        rc = zm_mpi_file_error(fh, err == -EINVAL ? MPI_ERR_TYPE : MPI_ERR_NO_MEM, fn,
                               "(filetype=%s): %s", filetype->name, err == -EINVAL ?
                               "places data at negative or decreasing displacements" :
                               "out of memory");
    /* Collective: a rank with bad arguments fails the call everywhere
     * rather than leaving the others waiting. */
    int bad = rc != MPI_SUCCESS, anybad = 0;
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, fh->comm);
    if (rc != MPI_SUCCESS || anybad) {
        zm_io_view_free(&nv);
        return rc != MPI_SUCCESS ? rc : zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "another rank "
                                                          "gave invalid arguments");
    }
    zm_io_view_free(&fh->view);
    fh->view = nv;
    zm_dt_retain(etype);
    zm_dt_retain(filetype);
    zm_dt_release(fh->etype);
    zm_dt_release(fh->filetype);
    fh->etype = etype;
    fh->filetype = filetype;
    fh->disp = disp;
    snprintf(fh->datarep, sizeof(fh->datarep), "%s", datarep);
    fh->ext32 = strcmp(datarep, "external32") == 0;
    fh->urep = zm_mpi_datarep_find(datarep);
    fh->fp = 0;
    /* Collective: the shared pointer goes back to zero once every rank
     * is done with the old view. */
    PMPI_Barrier(fh->comm);
    if (fh->rank == 0)
        zm_mpi_file_sp_store(fh, 0);
    PMPI_Barrier(fh->comm);
    return MPI_SUCCESS;
}
ZM_WEAK(File_set_view)

/* The handle MPI_File_get_view returns for a view type: predefined types
 * as they are, derived ones as new handles the program frees. */
static MPI_Datatype view_type_out(MPI_Datatype t)
{
    MPI_Datatype out = t;
    if (t->d)
        PMPI_Type_dup(t, &out);
    return out;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
    const char *fn = "MPI_File_get_view";
    ENTER_FILE(fn, fh);
    if (!disp || !etype || !filetype || !datarep)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(%s=NULL): invalid argument",
                                 !disp ? "disp" : !etype ? "etype" : !filetype ? "filetype"
                                                                               : "datarep");
    *disp = fh->disp;
    *etype = view_type_out(fh->etype);
    *filetype = view_type_out(fh->filetype);
    strcpy(datarep, fh->datarep);
    return MPI_SUCCESS;
}
ZM_WEAK(File_get_view)

/* Body of MPI_File_get_type_extent and its large-count form. */
static int type_extent(const char *fn, MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    ENTER_FILE(fn, fh);
    if (!zm_dt_valid(datatype))
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(datatype): not a datatype");
    if (!extent)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(extent=NULL): invalid argument");
    /* Every representation zmpi writes keeps the memory layout (external32
     * only for types whose elements keep their sizes). */
    if ((fh->ext32 && !zm_mpi_file_ext32_same_size(datatype)) ||
        (fh->urep && !zm_mpi_datarep_fits(fh->urep, datatype)))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "(datatype=%s): its "
                                 "size in the file's representation differs from its size in "
                                 "memory; not supported", datatype->name);
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    return type_extent("MPI_File_get_type_extent", fh, datatype, extent);
}
ZM_WEAK(File_get_type_extent)

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    /* MPI_Count and MPI_Aint are both 64-bit here. */
    return type_extent("MPI_File_get_type_extent_c", fh, datatype, (MPI_Aint *)extent);
}
ZM_WEAK(File_get_type_extent_c)

/* The position, in etypes, that (offset, whence) names for pointer `cur`;
 * -1 after raising the error of a bad argument. */
static MPI_Offset seek_target(const char *fn, MPI_File fh, MPI_Offset cur, MPI_Offset offset,
                              int whence, int *rc)
{
    MPI_Offset base;
    *rc = MPI_SUCCESS;
    if (whence == MPI_SEEK_SET) {
        base = 0;
    } else if (whence == MPI_SEEK_CUR) {
        base = cur;
    } else if (whence == MPI_SEEK_END) {
        int64_t sz = zm_arch_file_size(fh->io->fd);
        if (sz < 0) {
            *rc = zm_mpi_file_error(fh, zm_mpi_file_errclass((int)sz), fn, "%s",
                                    strerror((int)-sz));
            return -1;
        }
        base = zm_io_view_pos_of(&fh->view, sz) / (MPI_Offset)fh->etype->size;
    } else {
        *rc = zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(whence=%d): not MPI_SEEK_SET, "
                                "MPI_SEEK_CUR or MPI_SEEK_END", whence);
        return -1;
    }
    if (base + offset < 0) {
        *rc = zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(offset=%lld): the position would be "
                                "negative (%lld)", (long long)offset,
                                (long long)(base + offset));
        return -1;
    }
    return base + offset;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek";
    ENTER_FILE(fn, fh);
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "not allowed on a "
                                 "file opened MPI_MODE_SEQUENTIAL");
    MPI_Offset pos = seek_target(fn, fh, fh->fp, offset, whence, &rc);
    if (rc != MPI_SUCCESS)
        return rc;
    fh->fp = pos;
    return MPI_SUCCESS;
}
ZM_WEAK(File_seek)

/* Body of MPI_File_get_position(_shared): the individual or the shared
 * file pointer, in etypes of the view. */
static int get_position(const char *fn, MPI_File fh, MPI_Offset *offset, int shared)
{
    ENTER_FILE(fn, fh);
    if (!offset)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(offset=NULL): invalid argument");
    *offset = shared ? zm_mpi_file_sp_load(fh) : fh->fp;
    return MPI_SUCCESS;
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    return get_position("MPI_File_get_position", fh, offset, 0);
}
ZM_WEAK(File_get_position)

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    const char *fn = "MPI_File_get_byte_offset";
    ENTER_FILE(fn, fh);
    if (offset < 0)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(offset=%lld): negative offset",
                                 (long long)offset);
    if (!disp)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(disp=NULL): invalid argument");
    *disp = zm_io_view_offset(&fh->view, offset * (MPI_Offset)fh->etype->size);
    return MPI_SUCCESS;
}
ZM_WEAK(File_get_byte_offset)

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek_shared";
    ENTER_FILE(fn, fh);
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "not allowed on a "
                                 "file opened MPI_MODE_SEQUENTIAL");
    /* Collective with the same arguments on every rank. */
    MPI_Offset mm[4] = { offset, -offset, whence, -whence }, rmm[4];
    PMPI_Allreduce(mm, rmm, 4, MPI_INT64_T, MPI_MAX, fh->comm);
    if (rmm[0] != -rmm[1] || rmm[2] != -rmm[3])
        return zm_mpi_file_error(fh, MPI_ERR_NOT_SAME, fn, "(offset=%lld, whence=%d): the "
                                 "ranks gave different arguments", (long long)offset, whence);
    MPI_Offset pos = seek_target(fn, fh, zm_mpi_file_sp_load(fh), offset, whence, &rc);
    /* Every rank computed the same target; rank 0 stores it once all
     * have read the old value. */
    PMPI_Barrier(fh->comm);
    if (rc == MPI_SUCCESS && fh->rank == 0)
        zm_mpi_file_sp_store(fh, pos);
    PMPI_Barrier(fh->comm);
    return rc;
}
ZM_WEAK(File_seek_shared)

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    return get_position("MPI_File_get_position_shared", fh, offset, 1);
}
ZM_WEAK(File_get_position_shared)
