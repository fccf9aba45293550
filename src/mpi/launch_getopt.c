/*
 * launch_getopt.c: getopt, getopt_long and getopt_long_only with per-rank
 * state (libzmpi_priv.a).
 *
 * libc's getopt keeps its state in optind, optarg, opterr, optopt and a
 * hidden scan position, all inside libc, which every rank of the process
 * shares: ranks parsing their command lines at the same time on different
 * workers step on each other's optind, and a program whose code was built
 * without -fPIC reads a per-copy optarg that libc never writes.  This file
 * is linked into privatized programs with hidden visibility, so the
 * program's references to these names bind to the definitions below at
 * link time, and their state is privatized with the program's other
 * globals: every rank parses exactly as a process would, with GNU's rules
 * (argument permutation, "+", "-" and ":" prefixes, "::" optional
 * arguments, POSIXLY_CORRECT, long options with unique prefixes, "W;").
 * System libraries that call getopt themselves still use libc's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *optarg;
int optind = 1;
int opterr = 1;
int optopt;

int __posix_getopt(int argc, char *const *argv, const char *spec);

/* Every definition here is hidden (the library builds this file with
 * -fvisibility=hidden), so that the program binds to it at link time. */

/* How non-options are treated: moved behind the options (GNU's default),
 * ending the scan (POSIX), or returned as arguments of option 1. */
enum { PERMUTE, REQUIRE_ORDER, RETURN_IN_ORDER };

/* The scan: skipped non-options are argv[first, last), the options
 * handled since then argv[last, optind); `next` is the rest of a group
 * of short options ("-abc"), or NULL. */
static struct {
    char *next;
    int first, last;
    int started;
} S;

/* One parse: the caller's arguments plus what the option string says. */
typedef struct {
    int argc;
    char **argv;
    const char *spec;            /* short options, prefixes removed */
    const struct option *lopts;  /* long options or NULL */
    int *lidx;
    int long_only;
    int colon;                   /* leading ':': no messages, ':' for a missing argument */
} parse_t;

static void reverse(char **v, int a, int b)
{
    for (b--; a < b; a++, b--) {
        char *t = v[a];
        v[a] = v[b];
        v[b] = t;
    }
}

/* Swap the blocks argv[a, b) and argv[b, c), keeping each block's order. */
static void rotate(char **v, int a, int b, int c)
{
    if (a == b || b == c)
        return;
    reverse(v, a, b);
    reverse(v, b, c);
    reverse(v, a, c);
}

static int is_option(const char *s)
{
    return s[0] == '-' && s[1] != '\0';
}

static void complain(const parse_t *p, const char *fmt, const char *dashes, const char *name,
                     int len)
{
    if (opterr && !p->colon)
        fprintf(stderr, fmt, p->argv[0], dashes, len, name);
}

/* Finds the long option `name` (len characters): an exact match, else the
 * only option it is a prefix of (several identical ones count as one).
 * Returns its index, -1 if none, -2 if ambiguous. */
static int find_long(const struct option *o, const char *name, size_t len)
{
    int found = -1;
    for (int i = 0; o[i].name; i++) {
        if (strncmp(o[i].name, name, len))
            continue;
        if (strlen(o[i].name) == len)
            return i;
        if (found < 0)
            found = i;
        else if (o[i].has_arg != o[found].has_arg || o[i].flag != o[found].flag ||
                 o[i].val != o[found].val)
            return -2;
    }
    return found;
}

/* Handles argv[optind] as a long option whose name starts at `s`.  Returns
 * the result for the caller, or -2 when a long_only single-dash word
 * matches no long option and should be read as short options. */
static int parse_long(parse_t *p, const char *s, const char *dashes)
{
    size_t len = strcspn(s, "=");
    int i = find_long(p->lopts, s, len);
    if (i == -1 && dashes[1] == '\0' && strchr(p->spec, s[0]))
        return -2;
    optind++;
    optarg = NULL;
    if (i == -1) {
        optopt = 0;
        complain(p, "%s: unrecognized option '%s%.*s'\n", dashes, s, (int)strlen(s));
        return '?';
    }
    if (i == -2) {
        optopt = 0;
        if (opterr && !p->colon) {
            fprintf(stderr, "%s: option '%s%.*s' is ambiguous; possibilities:", p->argv[0],
                    dashes, (int)len, s);
            for (const struct option *o = p->lopts; o->name; o++)
                if (strncmp(o->name, s, len) == 0)
                    fprintf(stderr, " '%s%s'", dashes, o->name);
            fputc('\n', stderr);
        }
        return '?';
    }
    const struct option *o = &p->lopts[i];
    if (s[len] == '=') {
        if (o->has_arg == no_argument) {
            optopt = o->val;
            complain(p, "%s: option '%s%.*s' doesn't allow an argument\n", dashes, o->name,
                     (int)strlen(o->name));
            return '?';
        }
        optarg = (char *)s + len + 1;
    } else if (o->has_arg == required_argument) {
        if (optind >= p->argc) {
            optopt = o->val;
            complain(p, "%s: option '%s%.*s' requires an argument\n", dashes, o->name,
                     (int)strlen(o->name));
            return p->colon ? ':' : '?';
        }
        optarg = p->argv[optind++];
    }
    if (p->lidx)
        *p->lidx = i;
    if (o->flag) {
        *o->flag = o->val;
        return 0;
    }
    return o->val;
}

/* Handles the next short option of the group S.next. */
static int parse_short(parse_t *p)
{
    char c = *S.next++;
    char *rest = S.next;
    const char *d = c == ':' || c == ';' ? NULL : strchr(p->spec, c);
    char one[2] = {c, '\0'};
    /* "W;" in the option string: "-W name" means "--name". */
    int w_long = d && c == 'W' && d[1] == ';' && p->lopts;
    int takes = d && (d[1] == ':' || w_long);
    if (*rest == '\0' || takes) {
        /* This word is used up: the option ends it or takes the rest. */
        S.next = NULL;
        optind++;
    }
    if (!d) {
        optopt = c;
        complain(p, "%s: invalid option -- '%s%.*s'\n", "", one, 1);
        return '?';
    }
    if (!takes)
        return c;
    if (*rest) {
        optarg = rest;
    } else if (w_long || d[2] != ':') {
        /* A required argument is the next word. */
        if (optind >= p->argc) {
            optopt = c;
            complain(p, "%s: option requires an argument -- '%s%.*s'\n", "", one, 1);
            return p->colon ? ':' : '?';
        }
        optarg = p->argv[optind++];
    }
    if (w_long) {
        /* parse_long counts the word holding the name itself. */
        optind--;
        return parse_long(p, optarg, "-W ");
    }
    return c;
}

/* Moves the skipped non-options behind the options handled since, then
 * skips the non-options ahead; returns 0 when argv[optind] is an option
 * to parse, or -1 when the scan is over (optind then points at the first
 * non-option). */
static int advance(parse_t *p, int mode)
{
    if (S.last > optind || S.first > optind)
        S.first = S.last = optind;
    if (mode == PERMUTE) {
        rotate(p->argv, S.first, S.last, optind);
        S.first += optind - S.last;
        while (optind < p->argc && !is_option(p->argv[optind]))
            optind++;
        S.last = optind;
    }
    if (optind < p->argc && strcmp(p->argv[optind], "--") == 0) {
        optind++;
        rotate(p->argv, S.first, S.last, optind);
        S.first += optind - S.last;
        S.last = optind = p->argc;
    }
    if (optind >= p->argc) {
        optind = S.first < S.last ? S.first : optind;
        S.first = S.last = optind;
        return -1;
    }
    return 0;
}

static int scan(int argc, char *const *argv, const char *spec, const struct option *lopts,
                int *lidx, int long_only, int posix)
{
    parse_t p = {argc, (char **)argv, spec, lopts, lidx, long_only, 0};
    int mode = posix || getenv("POSIXLY_CORRECT") ? REQUIRE_ORDER : PERMUTE;
    if (*p.spec == '-' || *p.spec == '+')
        mode = *p.spec++ == '-' ? RETURN_IN_ORDER : REQUIRE_ORDER;
    if (*p.spec == ':')
        p.colon = 1, p.spec++;
    if (optind == 0 || !S.started) {
        if (optind == 0)
            optind = 1;
        S.next = NULL;
        S.first = S.last = optind;
        S.started = 1;
    }
    optarg = NULL;
    if (S.next && *S.next)
        return parse_short(&p);
    S.next = NULL;
    if (argc < 1 || advance(&p, mode) < 0)
        return -1;
    char *w = p.argv[optind];
    if (!is_option(w)) {
        if (mode == REQUIRE_ORDER)
            return -1;
        optarg = p.argv[optind++];
        return 1;
    }
    if (lopts && w[1] == '-') {
        return parse_long(&p, w + 2, "--");
    }
    if (lopts && long_only && (w[2] || !strchr(p.spec, w[1]))) {
        int r = parse_long(&p, w + 1, "-");
        if (r != -2)
            return r;
    }
    S.next = w + 1;
    return parse_short(&p);
}

/* The standard getopt family, on the calling rank's own state.  Any
 * rank; the strings returned in optarg belong to argv. */
int getopt(int argc, char *const *argv, const char *spec)
{
    return scan(argc, argv, spec, NULL, NULL, 0, 0);
}

int __posix_getopt(int argc, char *const *argv, const char *spec)
{
    return scan(argc, argv, spec, NULL, NULL, 0, 1);
}

int getopt_long(int argc, char *const *argv, const char *spec, const struct option *lopts,
                int *lidx)
{
    return scan(argc, argv, spec, lopts, lidx, 0, 0);
}

int getopt_long_only(int argc, char *const *argv, const char *spec,
                     const struct option *lopts, int *lidx)
{
    return scan(argc, argv, spec, lopts, lidx, 1, 0);
}
