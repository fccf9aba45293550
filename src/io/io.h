/*
 * io: the file side of MPI-IO, between the collectives and the API layer.
 *
 * A file opened by a communicator is one shared object (zm_io_file_t) that
 * every rank's MPI_File points to: one descriptor, one shared file pointer
 * (an atomic), and a table where the ranks of a collective access post
 * their pieces.  An access is described as a sorted list of segments
 * (file offset, length, position in the packed data) made from the rank's
 * file view; the independent calls issue one pread/pwrite per segment, and
 * the collective ones let a few aggregator ranks merge all ranks' segments
 * of a file region into few large system calls (two-phase I/O inside the
 * process, since all ranks share its memory).
 *
 * The API layer does the synchronisation (barriers on the file's
 * communicator) and maps the -errno results to MPI error classes.
 */
#ifndef ZM_IO_H
#define ZM_IO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "dt/dt.h"

/* One contiguous piece of an access: `len` bytes at file offset `off`,
 * which are bytes [pos, pos + len) of the packed data. */
typedef struct zm_io_seg {
    int64_t off;   /* file offset in bytes */
    size_t len;    /* bytes */
    size_t pos;    /* position in the packed data */
} zm_io_seg_t;

/* A growable list of segments in file order (adjacent ones merged). */
typedef struct zm_io_segs {
    zm_io_seg_t *v;   /* segments */
    size_t n;         /* used */
    size_t cap;       /* allocated */
    size_t bytes;     /* sum of the lengths */
} zm_io_segs_t;

/* A view's filetype flattened: the runs of one tile in data order. */
typedef struct zm_io_view {
    int64_t disp;        /* displacement of the first tile, bytes */
    size_t tile_size;    /* data bytes per tile (filetype size) */
    int64_t tile_extent; /* distance between tiles (filetype extent) */
    zm_io_seg_t *runs;   /* runs of one tile: offset from the tile, length, data position */
    size_t nruns;        /* entries of runs */
} zm_io_view_t;

/* One rank's part of a collective access, posted in the file's table. */
typedef struct zm_io_piece {
    const zm_io_seg_t *segs;  /* its segments, sorted by offset */
    size_t nsegs;             /* entries of segs */
    char *data;               /* packed data: the source of a write, the target of a read */
} zm_io_piece_t;

/* The object shared by all ranks that opened a file together. */
typedef struct zm_io_file {
    int fd;                     /* the descriptor all ranks use */
    _Atomic int refs;           /* ranks that have it open */
    char *path;                 /* the name given to open, owned */
    _Atomic int64_t shared_fp;  /* shared file pointer, in etypes of the view */
    atomic_flag lock;           /* serialises accesses in atomic mode */
    int procs_lock;             /* other processes may write the file too: atomic
                                 * mode also takes a whole-file record lock */
    int readable;               /* opened for reading too (read-modify-write possible) */
    int nranks;                 /* ranks of the opening communicator */
    zm_io_piece_t *pieces;      /* per rank: its part of the current collective access */
    int64_t cb_buffer_size;     /* bytes an aggregator moves per system call at most */
    int cb_nodes;               /* aggregators of a collective access */
    int cb_nodes_hint;          /* cb_nodes as the program gave it (0: not given): the
                                 * aggregating processes of a file that spans processes */
    int cb_write;               /* 0: collective writes go independent (romio_cb_write=disable) */
    int cb_read;                /* 0: collective reads go independent */
    int writeback;              /* start the write-back of each aggregated window at
                                 * once (hint zmpi_writeback, default on) */
    atomic_flag nbc_lock;       /* guards nbc_rounds */
    void *nbc_rounds;           /* non-blocking collectives under way (API layer's list) */
} zm_io_file_t;

/* Open `path` with ZM_ARCH_FILE_* flags for a communicator of `nranks`
 * ranks; returns the new shared object (refs = 1) with *err = 0, or NULL
 * with *err = -errno (-ENOMEM if out of memory).  ULT context, one rank;
 * the others get the pointer from it. */
zm_io_file_t *zm_io_file_open(const char *path, int flags, int nranks, int *err);

/* Drop one rank's reference; the last one closes the descriptor, after
 * unlinking the name if `unlink_it`, and frees the object.  Returns 0 or
 * the first -errno of sync/close/unlink (from the last reference only).
 * ULT context. */
int zm_io_file_release(zm_io_file_t *f, int unlink_it);

/* ---- Views and segments (io_view.c) ------------------------------------ */

/* Flatten filetype `ft` at displacement `disp` into `v` (previous content
 * freed).  Returns 0, -ENOMEM, or -EINVAL if the type places data at a
 * negative displacement or out of order (the standard requires filetype
 * displacements to be non-negative and non-decreasing).  Any thread. */
int zm_io_view_set(zm_io_view_t *v, int64_t disp, const zm_dt_t *ft);

/* Free a view's runs. */
void zm_io_view_free(zm_io_view_t *v);

/* Append the file segments that hold bytes [pos, pos + n) of the view's
 * data stream, mapped to packed positions from `data_pos` on.  Returns 0
 * or -ENOMEM.  Any thread. */
int zm_io_view_map(const zm_io_view_t *v, int64_t pos, size_t n, size_t data_pos,
                   zm_io_segs_t *out);

/* The file offset of byte `pos` of the view's data stream. */
int64_t zm_io_view_offset(const zm_io_view_t *v, int64_t pos);

/* The position in the view's data stream of the first data byte at or
 * after file offset `off` (how much of the view lies before `off`). */
int64_t zm_io_view_pos_of(const zm_io_view_t *v, int64_t off);

/* Free a segment list's storage and empty it. */
void zm_io_segs_free(zm_io_segs_t *s);

/* ---- Transfers (io_xfer.c) -------------------------------------------- */

/* Write / read every segment of `s` between the file and the packed
 * `data`, one system call per segment.  Write returns 0 or -errno; read
 * returns the bytes read before the end of the file (counted from the
 * start of the data, so a short read is a prefix) or -errno.  ULT
 * context; `atomic` holds the file's lock over the whole access. */
int64_t zm_io_write_segs(zm_io_file_t *f, const zm_io_segs_t *s, const char *data, int atomic);
int64_t zm_io_read_segs(zm_io_file_t *f, const zm_io_segs_t *s, char *data, int atomic);

/* Aggregator `a` of `naggr` of a collective access whose pieces (one per
 * rank of the file) are in `pieces`: write (or read) the part of the file region [lo, hi) that
 * falls in its domain, in windows of f->cb_buffer_size bytes, merging
 * adjacent segments of all ranks into single system calls.  Returns 0 or
 * -errno.  Every rank must have posted its piece and no rank may change
 * it until all aggregators are done (the caller's barriers).  ULT context. */
int zm_io_aggr_write(zm_io_file_t *f, const zm_io_piece_t *pieces, int a, int naggr,
                     int64_t lo, int64_t hi, int atomic);
int zm_io_aggr_read(zm_io_file_t *f, const zm_io_piece_t *pieces, int a, int naggr,
                    int64_t lo, int64_t hi, int atomic);

/* A piece of one rank's segment that falls in a window of the file. */
typedef struct zm_io_part {
    int64_t off;    /* file offset */
    size_t len;     /* bytes */
    char *data;     /* the rank's packed bytes for it */
} zm_io_part_t;

/* Append the parts of the `npieces` pieces that fall in [lo, hi), sorted
 * by offset, to the *n entries of *parts (grown with realloc, *cap its
 * allocated entries; the caller frees it).  Returns 0 or -ENOMEM.  Any
 * thread; the pieces must not change meanwhile. */
int zm_io_collect(const zm_io_piece_t *pieces, int npieces, int64_t lo, int64_t hi,
                  zm_io_part_t **parts, size_t *cap, size_t *n);

/* Nonzero if a segment of one of the `npieces` pieces overlaps [lo, hi).
 * Any thread. */
int zm_io_touches(const zm_io_piece_t *pieces, int npieces, int64_t lo, int64_t hi);

/* Move the window [lo, hi) of the file between it and `npieces` pieces
 * (whose segments may lie partly outside it), through `buf` of at least
 * hi - lo bytes: a write copies the parts into buf and writes each run of
 * covered bytes with one system call (a run that is one part goes straight
 * from that part's data); with `rmw`, on a file open for reading, a
 * window whose holes are no larger than its covered bytes is instead
 * read, filled and written whole with one pread and one pwrite
 * (read-modify-write, under the file's lock in atomic mode), and a read
 * of such a window is one pread of the whole extent.  A written
 * window of at least 1 MiB then starts its write-back to the storage
 * (f->writeback), so that the sync of MPI_File_sync or MPI_File_close
 * finds little left to write.  A read fills the parts, bytes past the
 * end of the file reading as zeros.  Returns 0 or -errno.  ULT context. */
int zm_io_window(zm_io_file_t *f, const zm_io_piece_t *pieces, int npieces, int write,
                 int64_t lo, int64_t hi, char *buf, int rmw, int atomic);

/* Data system calls (pwrite and pread) that MPI-IO issued in this process,
 * for the MPI_T performance variables zmpi_io_pwrites / zmpi_io_preads.
 * Relaxed atomic counters; any thread reads them. */
extern _Atomic uint64_t zm_io_pwrites, zm_io_preads;

/* Bytes of `s` that lie before the end of a file of `size` bytes, counted
 * from the start of the data up to the first byte past the end (what a
 * read of those segments returns). */
int64_t zm_io_segs_avail(const zm_io_segs_t *s, int64_t size);

#endif /* ZM_IO_H */
