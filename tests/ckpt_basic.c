/*
 * ckpt_basic.c: a rank's whole state survives ZMPI_Checkpoint and a
 * restart (tests/ckpt_restart.sh): globals, locals on its stack, memory
 * from malloc, calloc, realloc, posix_memalign, strdup and getline, its
 * argv, its error handler, its attribute keys and the attributes it cached
 * on MPI_COMM_WORLD and MPI_COMM_SELF, the name it gave MPI_INT, and where
 * it was in its loop.  Each iteration exchanges messages
 * around a ring and reduces a checksum (integers, so the result is exact
 * whatever the number of workers).  At iteration CK_AT the ranks take a
 * checkpoint in the directory argv[1]; with CK_STOP=1 in the environment
 * they end right after it (a restart does not see it: the environment is
 * not part of the checkpoint).  Rank 0 prints the final checksum.
 * CK_MODE=spawnkeep has rank 0 keep the intercommunicator to a rank it
 * spawned over the checkpoint, CK_MODE=window a window on
 * MPI_COMM_SELF in rank 1, CK_MODE=thread a duplicate of MPI_COMM_SELF
 * that a thread rank 1 started made (in libc's memory), CK_MODE=threadop
 * a user operation such a thread made, CK_MODE=session
 * an open session in rank 1, CK_MODE=unreceived leaves a message from
 * rank 0 to the last rank unreceived, CK_MODE=persistent keeps an
 * active persistent request in rank 1 (started, not completed: an
 * inactive one is saved, tests/ckpt_persist.c): ZMPI_Checkpoint must
 * refuse all seven.  Built with CK_REBUILT, it is the "rebuilt program" a
 * restart must refuse (tests/ckpt_rebuilt.sh).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK_AT 3
#define ITERS 7

/* CK_REBUILT: the build tests/ckpt_rebuilt.sh restarts a checkpoint of
 * the plain build with; its table is larger, so every global after it
 * sits elsewhere. */
#ifdef CK_REBUILT
static int64_t table[1024];
#else
static int64_t table[512];
#endif
static int64_t bss_counter;

/* CK_MODE=thread: what rank 1's thread does. */
static void *dup_self(void *out)
{
    MPI_Comm_dup(MPI_COMM_SELF, out);
    return NULL;
}

static void max_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int64_t *)in)[i] > ((int64_t *)inout)[i])
            ((int64_t *)inout)[i] = ((int64_t *)in)[i];
}

/* CK_MODE=threadop: rank 1's thread makes a user operation. */
static void *make_op(void *out)
{
    MPI_Op_create(max_fn, 1, out);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    const char *tmode = getenv("CK_MODE");
    if (tmode && (strcmp(tmode, "thread") == 0 || strcmp(tmode, "threadop") == 0))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc < 2) {
        fprintf(stderr, "usage: ckpt_basic DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* CK_MODE=spawned: rank 0 spawns one rank of this program, which
     * goes on below and whose checkpoint is refused (spawned ranks have
     * no fixed-address memory); it tells rank 0 its result. */
    MPI_Comm parent = MPI_COMM_NULL;
    MPI_Comm_get_parent(&parent);
    const char *smode = getenv("CK_MODE");
    if (smode && strcmp(smode, "spawned") == 0 && parent == MPI_COMM_NULL) {
        MPI_Comm ic;
        int child_rc = MPI_SUCCESS;
        char *args[] = { argv[1], NULL };
        MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic,
                       MPI_ERRCODES_IGNORE);
        MPI_Recv(&child_rc, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE);
        MPI_Comm_disconnect(&ic);
        MPI_Finalize();
        return child_rc == MPI_SUCCESS ? 0 : 4;
    }
    /* CK_MODE=spawnkeep: the spawned rank waits for its parent's word
     * after the parent's checkpoint; the parent keeps the
     * intercommunicator (`kept_ic`) until then. */
    MPI_Comm kept_ic = MPI_COMM_NULL;
    if (smode && strcmp(smode, "spawnkeep") == 0) {
        int word = 0;
        if (parent != MPI_COMM_NULL) {
            MPI_Recv(&word, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE);
            MPI_Comm_disconnect(&parent);
            MPI_Finalize();
            return 0;
        }
        if (rank == 0)
            MPI_Comm_spawn(argv[0], (char *[]){ argv[1], NULL }, 1, MPI_INFO_NULL, 0,
                           MPI_COMM_SELF, &kept_ic, MPI_ERRCODES_IGNORE);
    }
    int64_t local[64];
    int64_t *heap = malloc(1000 * sizeof *heap);
    int64_t *zeros = calloc(300000, sizeof *zeros);
    char *grown = malloc(16);
    void *aligned = NULL;
    char *name = strdup(argv[0]);
    char *line = NULL;
    size_t cap = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        getline(&line, &cap, f);
        fclose(f);
    }
    if (!heap || !zeros || !grown || posix_memalign(&aligned, 256, 4096) != 0 || !name) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    grown = realloc(grown, 100000);
    memset(grown, rank & 0x7f, 100000);
    for (int i = 0; i < 64; i++)
        local[i] = rank * 64 + i;
    for (int i = 0; i < 1000; i++)
        heap[i] = (int64_t)rank * 1000 + i;
    for (int i = 0; i < 512; i++)
        table[i] = i * (rank + 1);
    /* Attributes and a type name the restarted rank must find again
     * (checked at the end, in the first run and after a restart). */
    int key_w = MPI_KEYVAL_INVALID, key_s = MPI_KEYVAL_INVALID;
    int64_t *attr_w = malloc(sizeof *attr_w), attr_s = 7000 + rank;
    *attr_w = 5000 + rank;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_w, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_s, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key_w, attr_w);
    MPI_Comm_set_attr(MPI_COMM_SELF, key_s, &attr_s);
    char tname[MPI_MAX_OBJECT_NAME];
    snprintf(tname, sizeof tname, "rank %d's int", rank);
    MPI_Type_set_name(MPI_INT, tname);
    int64_t check = 0;
    for (int it = 0; it < ITERS; it++) {
        int64_t out = heap[it] + local[it] + table[it] + bss_counter + zeros[it * 1000], in = 0;
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        MPI_Sendrecv(&out, 1, MPI_INT64_T, next, it, &in, 1, MPI_INT64_T, prev, it,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int64_t mine = in * 3 + out + grown[it * 1000] + ((char *)aligned)[it] +
                       (int64_t)strlen(name) + (int64_t)strlen(argv[1]), sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        check = check * 31 + sum;
        bss_counter += it;
        heap[it + 1] += sum % 1000;
        zeros[it * 1000 + 1000] = it;
        if (it == CK_AT) {
            const char *mode = getenv("CK_MODE");
            static MPI_Comm thread_comm = MPI_COMM_NULL;
            pthread_t th;
            if (mode && strcmp(mode, "thread") == 0 && rank == 1 &&
                pthread_create(&th, NULL, dup_self, &thread_comm) == 0)
                pthread_join(th, NULL);
            static MPI_Op thread_op = MPI_OP_NULL;
            if (mode && strcmp(mode, "threadop") == 0 && rank == 1 &&
                pthread_create(&th, NULL, make_op, &thread_op) == 0)
                pthread_join(th, NULL);
            MPI_Session session = MPI_SESSION_NULL;
            if (mode && strcmp(mode, "session") == 0 && rank == 1)
                MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
            static int64_t exposed[4];
            MPI_Win win = MPI_WIN_NULL;
            if (mode && strcmp(mode, "window") == 0 && rank == 1)
                MPI_Win_create(exposed, sizeof exposed, 8, MPI_INFO_NULL, MPI_COMM_SELF, &win);
            if (mode && strcmp(mode, "unreceived") == 0 && rank == 0 && size > 1)
                MPI_Send(&out, 1, MPI_INT64_T, size - 1, 999, MPI_COMM_WORLD);
            MPI_Request kept = MPI_REQUEST_NULL;
            if (mode && strcmp(mode, "persistent") == 0 && rank == 1) {
                MPI_Send_init(&out, 1, MPI_INT64_T, 0, 5, MPI_COMM_WORLD, &kept);
                MPI_Start(&kept);
            }
            int rc = ZMPI_Checkpoint(argv[1]);
            if (kept_ic != MPI_COMM_NULL) {
                MPI_Send(&rc, 1, MPI_INT, 0, 2, kept_ic);
                MPI_Comm_disconnect(&kept_ic);
            }
            if (parent != MPI_COMM_NULL) {
                MPI_Send(&rc, 1, MPI_INT, 0, 1, parent);
                MPI_Comm_disconnect(&parent);
            }
            if (rc != MPI_SUCCESS) {
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0;
                MPI_Error_string(rc, msg, &len);
                printf("rank %d: checkpoint refused: %s\n", rank, msg);
                MPI_Finalize();
                return 4;
            }
            /* MPI_ERRORS_RETURN, set at the start, still holds. */
            if (MPI_Send(&out, 1, MPI_INT64_T, size + 5, 0, MPI_COMM_WORLD) == MPI_SUCCESS)
                printf("rank %d: a send to rank %d succeeded\n", rank, size + 5);
            if (getenv("CK_STOP")) {
                MPI_Finalize();
                if (rank == 0)
                    printf("stopped after the checkpoint\n");
                return 0;
            }
        }
    }
    int64_t *got_w = NULL, *got_s = NULL;
    int flag_w = 0, flag_s = 0, nlen = 0;
    char nbuf[MPI_MAX_OBJECT_NAME] = "";
    int rc_w = MPI_Comm_get_attr(MPI_COMM_WORLD, key_w, &got_w, &flag_w);
    int rc_s = MPI_Comm_get_attr(MPI_COMM_SELF, key_s, &got_s, &flag_s);
    MPI_Type_get_name(MPI_INT, nbuf, &nlen);
    if (rc_w != MPI_SUCCESS || rc_s != MPI_SUCCESS || !flag_w || !flag_s || got_w != attr_w ||
        got_s != &attr_s || *got_w != 5000 + rank || *got_s != 7000 + rank ||
        strcmp(nbuf, tname) != 0) {
        printf("rank %d: attributes or type name lost (get %d/%d, flags %d/%d, name '%s')\n",
               rank, rc_w, rc_s, flag_w, flag_s, nbuf);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key_w);
    MPI_Comm_delete_attr(MPI_COMM_SELF, key_s);
    MPI_Comm_free_keyval(&key_w);
    MPI_Comm_free_keyval(&key_s);
    free(attr_w);
    if (rank == 0)
        printf("checksum %lld of %d ranks (%s)\n", (long long)check, size,
               line && strstr(line, "ckpt") ? "cmdline ok" : "cmdline lost");
    free(heap);
    free(zeros);
    free(grown);
    free(aligned);
    free(name);
    free(line);
    MPI_Finalize();
    return 0;
}
