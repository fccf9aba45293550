/*
 * priv_getopt.c: in a privatized program every rank parses its command
 * line with getopt_long as a process would, while the other ranks parse
 * theirs at the same time.  Each rank takes one option per step and then
 * enters a barrier, so the parses of all ranks interleave call by call; a
 * shared optind would make ranks skip or repeat options.  A second pass
 * gives each rank a command line of its own (values derived from the
 * rank) after resetting optind, as programs that parse twice do.
 *
 * Run with: -n 5 -v --size 7 extra
 */
#include "zt.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct option longopts[] = {
    {"size", required_argument, NULL, 's'},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0}};

typedef struct {
    int n, v, size;
} opts_t;

static opts_t parse(int argc, char **argv, MPI_Comm comm)
{
    opts_t o = {0, 0, 0};
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "n:v", longopts, NULL)) != -1) {
        if (c == 'n')
            o.n = atoi(optarg);
        else if (c == 'v')
            o.v = 1;
        else if (c == 's')
            o.size = atoi(optarg);
        else
            ZT_CHECK(0, "getopt_long returned unexpected %d", c);
        ZT_OK(MPI_Barrier(comm));
    }
    return o;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Every rank makes the same number of barrier calls per pass. */
    opts_t o = parse(argc, argv, MPI_COMM_WORLD);
    ZT_EQ(o.n, 5, "-n 5");
    ZT_EQ(o.v, 1, "-v");
    ZT_EQ(o.size, 7, "--size 7");
    ZT_CHECK(optind == argc - 1 && strcmp(argv[optind], "extra") == 0,
              "optind %d should point at the operand 'extra'", optind);

    char n[16], sz[32], prog[] = "prog", dn[] = "-n", dv[] = "-v", op[] = "operand";
    snprintf(n, sizeof n, "%d", rank + 100);
    snprintf(sz, sizeof sz, "--size=%d", 3 * rank);
    char *mine[] = {prog, op, dn, n, sz, NULL};
    opts_t m = parse(5, mine, MPI_COMM_WORLD);
    ZT_EQ(m.n, rank + 100, "-n of the rank's own command line");
    ZT_EQ(m.size, 3 * rank, "--size of the rank's own command line");
    ZT_EQ(m.v, 0, "no -v on the rank's own command line");
    ZT_CHECK(optind == 4 && mine[4] == op, "operand permuted to the end, optind %d", optind);
    (void)dv;
    (void)size;
    MPI_Finalize();
    return 0;
}
