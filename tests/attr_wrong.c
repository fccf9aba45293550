/*
 * attr_wrong.c: erroneous uses of attributes under the default handler
 * MPI_ERRORS_ARE_FATAL; each must end the job with a message naming the
 * call and the key.  argv[1] names the mistake:
 *   set_tag_ub       MPI_Comm_set_attr on the predefined MPI_TAG_UB
 *   freed_key        MPI_Comm_set_attr with a key already freed
 *   type_key_on_comm MPI_Comm_get_attr with a datatype key
 *   delete_fails     MPI_Comm_free where a delete callback fails
 */
#include "zt.h"

static int failing_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    const char *mistake = argc > 1 ? argv[1] : "";
    int kv, flag, rank;
    void *v;
    MPI_Comm c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1 && strcmp(mistake, "set_tag_ub") == 0) {
        MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &kv);
    } else if (rank == 1 && strcmp(mistake, "freed_key") == 0) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
        int saved = kv;
        MPI_Comm_free_keyval(&kv);
        MPI_Comm_set_attr(MPI_COMM_WORLD, saved, NULL);
    } else if (rank == 1 && strcmp(mistake, "type_key_on_comm") == 0) {
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv, NULL);
        MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &v, &flag);
    } else if (rank == 1 && strcmp(mistake, "delete_fails") == 0) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &kv, NULL);
        MPI_Comm_dup(MPI_COMM_SELF, &c);
        MPI_Comm_set_attr(c, kv, NULL);
        MPI_Comm_free(&c);
    } else if (rank == 1) {
        fprintf(stderr, "attr_wrong: unknown mistake '%s'\n", mistake);
        return 2;
    }
    /* Reached only if the mistake was not caught. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
