#!/usr/bin/python3
"""Tables and plot of bench/startup_run.sh: startup_table.md, startup.png.

Reads the tab-separated runs startup_run.sh printed, takes per variant and
rank count the median wall time and the median Pss per rank, writes the
tables (with the spread of the times) that results/startup.md quotes and
a plot of both against the rank
count (log-log), one line per variant.  matplotlib (Debian's
python3-matplotlib) draws the plot; without it only the table is written.
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {"own": "privatized, zmpi's loader (default)",
         "dl": "privatized, dlopen (ZMPI_LOADER=dl)",
         "shared": "not privatized (-zmpi-no-privatize)",
         "big": "50 MB program, privatized (zmpi's loader)",
         "big_shared": "50 MB program, not privatized"}
# Variants drawn (the 50 MB program has a table of its own).
PLOTTED = ("own", "dl", "shared")


def read(path):
    """Returns {(variant, ranks): [(seconds, pss_per_rank_kb, maps)]}."""
    runs = {}
    with open(path) as f:
        for line in f:
            v = line.rstrip("\n").split("\t")
            if len(v) != 7 or v[0] == "variant":
                continue
            runs.setdefault((v[0], int(v[1])), []).append(
                (float(v[3]), float(v[6]), int(v[5])))
    return runs


def table(runs, variants):
    """The markdown table rows, one per rank count."""
    ranks = sorted({n for v, n in runs if v in variants})
    head = ("| ranks | " + " | ".join("%s: s (min-max), kB/rank, maps" % k
                                      for k in variants) + " |")
    rows = [head, "|" + "---|" * (1 + len(variants))]
    for n in ranks:
        cells = []
        for k in variants:
            r = runs.get((k, n))
            if not r:
                cells.append("-")
                continue
            t = [x[0] for x in r]
            cells.append("%.3f (%.3f-%.3f), %.1f, %d" % (
                statistics.median(t), min(t), max(t),
                statistics.median(x[1] for x in r), r[0][2]))
        rows.append("| %d | %s |" % (n, " | ".join(cells)))
    return rows


def plot(runs, out):
    """Draws startup.png; returns False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for k in PLOTTED:
        name = NAMES[k]
        ns = sorted(n for v, n in runs if v == k)
        if not ns:
            continue
        a1.plot(ns, [statistics.median(x[0] for x in runs[(k, n)]) for n in ns],
                marker="o", label=name)
        a2.plot(ns, [statistics.median(x[1] for x in runs[(k, n)]) for n in ns],
                marker="o", label=name)
    a1.set(xscale="log", yscale="log", xlabel="ranks (one process, 2 workers)",
           ylabel="start to exit (s)", title="Start-up and end of a job")
    a2.set(xscale="log", xlabel="ranks", ylabel="Pss per rank (kB)",
           title="Memory per rank", ylim=(0, None))
    for a in (a1, a2):
        a.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return True


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--raw", required=True, help="output of startup_run.sh")
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    args = p.parse_args(argv)
    runs = read(args.raw)
    with open(os.path.join(args.out, "startup_table.md"), "w") as f:
        f.write("\n".join(table(runs, PLOTTED)) + "\n\n")
        f.write("\n".join(table(runs, ("big", "big_shared"))) + "\n")
    if not plot(runs, os.path.join(args.out, "startup.png")):
        print("warning: matplotlib not found, no plot written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
