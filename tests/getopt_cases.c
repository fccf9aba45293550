/*
 * getopt_cases.c: runs getopt, getopt_long and getopt_long_only over a
 * table of option strings and command lines and prints every result
 * (return value, optarg, optind, optopt, long index, flag), the final
 * argument order (GNU permutes) and, on stderr, the messages.  Built once
 * against libc and once with zmpi's per-rank getopt (src/mpi/launch_getopt.c);
 * the test getopt_matches_glibc requires both outputs to be identical.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static int flag;
static const struct option L[] = {
    {"size", required_argument, NULL, 's'}, {"verbose", no_argument, &flag, 7},
    {"opt", optional_argument, NULL, 'o'}, {"verify", no_argument, NULL, 'V'},
    {"al", no_argument, NULL, 1001}, {"all", no_argument, NULL, 1002}, {NULL, 0, NULL, 0}};
static void run(const char *spec, int lng, const char *line)
{
    char buf[256], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    optind = 0;
    printf("[%s] %s:", spec, line);
    for (;;) {
        int li = -1;
        int c = lng == 0 ? getopt(argc, argv, spec)
              : lng == 1 ? getopt_long(argc, argv, spec, L, &li)
                         : getopt_long_only(argc, argv, spec, L, &li);
        if (c < 0) break;
        printf(" %d(%s,i%d,o%d,l%d,f%d)", c, optarg ? optarg : "-", optind, optopt, li, flag);
        flag = 0;
    }
    printf(" end%d:", optind);
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
}
int main(void)
{
    const char *specs[] = {"ab:c::", "+ab:c::", "-ab:c::", ":ab:c::", "ab:W;", "xs:o::"};
    const char *lines[] = {
        "p -a -b 1 -cfoo x y", "p x -a y -b z w", "p -ab1 -c -- -a q", "p -b", "p -z -a",
        "p a b c", "p -abc", "p --size 3 --verbose x --opt --opt=4", "p --si=2 --ver",
        "p --verb", "p --v", "p --al --all --a", "p --size", "p --verbose=1 --nope=3",
        "p -size 5 -verify -x", "p -W size=2 -Wverify", "p - -a -", "p x -- -a", "p -o -s",
        "p -s3 -x y", "p -xs", "p -c -- ", ""};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++)
        for (size_t l = 0; l < sizeof lines / sizeof *lines; l++)
            for (int lng = 0; lng < 3; lng++)
                if (*lines[l])
                    run(specs[s], lng, lines[l]);
    return 0;
}
