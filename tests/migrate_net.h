/*
 * migrate_net.h: what tests/migrate_net.c and tests/migrate_net_req.c
 * share (one test program, zt_migrate_net).
 */
#ifndef ZT_MIGRATE_NET_H
#define ZT_MIGRATE_NET_H

#include <stdint.h>

#define ITERS 6

extern int me, np;              /* world rank and size */
extern int have_persist;        /* MIG_MODE=persist made its requests */

/* Report what went wrong and abort the job. */
void fail(const char *what, long at);
/* The rank's pattern value `i` of series `salt`. */
int64_t pat(int64_t salt, long i);

/* MIG_MODE=pending (migrate_net_req.c). */
int pend_holds(int r);
void pend_before(int iter);
void pend_after(int iter);
void pend_attach(int on);

/* MIG_MODE=persist (migrate_net_req.c). */
void persist_make(void);
void persist_round(int iter);
void persist_free(void);

#endif
