/*
 * mpit_impl.h: what the MPI_T interface (mpit.c) exposes, as tables
 * defined in mpit_vars.c: categories, control variables with their
 * getters and setters, performance variables and how to read them.
 */
#ifndef ZM_MPIT_IMPL_H
#define ZM_MPIT_IMPL_H

#include "mpi/mpi_impl.h"

/* An enumeration (MPI_T_enum) and its items. */
struct zmpi_t_enum_item {
    int value;                        /* value of the item */
    const char *name;                 /* its name */
};

struct zmpi_t_enum {
    const char *name;                 /* enumeration name */
    int num;                          /* items */
    const struct zmpi_t_enum_item *items;
};

/* Categories, by index. */
enum { ZM_MPIT_CAT_ROOT, ZM_MPIT_CAT_P2P, ZM_MPIT_CAT_COLL, ZM_MPIT_CAT_JOB,
       ZM_MPIT_NCATS };

typedef struct zm_mpit_cat {
    const char *name, *desc;
    int parent;                       /* enclosing category, -1 for the root */
} zm_mpit_cat_t;

/* Value types of control variables: MPI_INT, MPI_UNSIGNED_LONG_LONG, and
 * strings (MPI_CHAR, count = length + 1). */
enum { ZM_MPIT_INT, ZM_MPIT_ULL, ZM_MPIT_STR };

typedef struct zm_mpit_cvar {
    const char *name, *desc;
    int verbosity;                    /* MPI_T_VERBOSITY_* */
    int scope;                        /* MPI_T_SCOPE_* */
    int type;                         /* ZM_MPIT_INT/ULL/STR */
    struct zmpi_t_enum *en;           /* enumeration of a ZM_MPIT_INT, or NULL */
    int cat;                          /* ZM_MPIT_CAT_* */
    void (*get)(void *buf);           /* write the value to buf */
    int (*set)(const void *buf);      /* change it: MPI_SUCCESS or MPI_T_ERR_*;
                                       * NULL if it never changes */
    int (*count)(void);               /* elements of a string; NULL: 1 */
} zm_mpit_cvar_t;

/* What a performance variable measures. */
enum { ZM_MPIT_PV_MSGS, ZM_MPIT_PV_BYTES, ZM_MPIT_PV_UNEXP_LEN, ZM_MPIT_PV_UNEXP_HWM,
       ZM_MPIT_PV_COLL_FAST, ZM_MPIT_PV_IO_PWRITES, ZM_MPIT_PV_IO_PREADS };

typedef struct zm_mpit_pvar {
    const char *name, *desc;
    int verbosity;                    /* MPI_T_VERBOSITY_* */
    int cls;                          /* MPI_T_PVAR_CLASS_* */
    int cat;                          /* ZM_MPIT_CAT_* */
    int kind;                         /* ZM_MPIT_PV_* */
    int proto;                        /* ZM_PROTO_* of PV_MSGS and PV_BYTES */
    int continuous;                   /* always active, no start/stop */
    int readonly;                     /* no write, no reset */
} zm_mpit_pvar_t;

extern const zm_mpit_cat_t zm_mpit_cats[ZM_MPIT_NCATS];
extern const zm_mpit_cvar_t zm_mpit_cvars[];
extern const int zm_mpit_ncvars;
extern const zm_mpit_pvar_t zm_mpit_pvars[];
extern const int zm_mpit_npvars;

/* Whether e is one of the enumerations.  Any thread. */
int zm_mpit_enum_valid(MPI_T_enum e);

/* Whether the job's point-to-point state exists (a program that is not
 * run by zmpirun has none before MPI_Init).  Any thread. */
int zm_mpit_job_up(void);

/* World rank `rank`'s current value of performance variable d (as
 * counted since the job started).  Any thread, with the job up. */
uint64_t zm_mpit_pvar_raw(const zm_mpit_pvar_t *d, int rank);

/* ---- Shared by mpit.c and mpit_events.c ---- */

/* Take the MPI_T lock if MPI_T is initialized for the caller (its rank,
 * or any thread that is not a rank): MPI_SUCCESS with the lock held, else
 * MPI_T_ERR_NOT_INITIALIZED.  Any thread. */
int zm_mpit_lock(void);

/* Drop the lock taken by zm_mpit_lock and return rc. */
int zm_mpit_unlock_ret(int rc);

/* Copy string s out by MPI_T's convention: *len is buf's size on entry
 * (0 or a NULL buf: only ask the length) and the length stored,
 * terminator included, on return.  NULL len: nothing. */
void zm_mpit_put_str(const char *s, char *buf, int *len);

/* The calling rank as MPI_T sees it (an event callback's owner while one
 * runs), or -1 for a thread that is not a rank.  Any thread. */
int zm_mpit_caller_rank(void);

/* World rank `rank` acts as inside an event callback it runs for another
 * rank, else `rank` itself (mpit_events.c).  Any thread. */
int zm_mpit_event_acting_for(int rank);

/* Whether e is the protocol enumeration of the events (mpit_events.c). */
int zm_mpit_event_enum_valid(MPI_T_enum e);

#endif /* ZM_MPIT_IMPL_H */
