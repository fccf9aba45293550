#!/usr/bin/env python3
"""Tables and plots of bench/apps_run.sh: results/apps.md, apps_<app>.png.

Reads the raw runs that apps_run.sh wrote (one tab-separated line per run:
round, app, ranks, MPI, status, us_per_iter, comm_us_per_iter, command),
takes per application, rank count and MPI the median time per iteration
over the rounds whose runs passed their check, with the smallest and
largest value as the spread, and writes the report and one plot per
application (time per iteration against ranks, one line per MPI), as
run_coll.py does for the collectives.  Only the standard library is
needed; matplotlib draws the plots when this interpreter or
/usr/bin/python3 has it.
"""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_p2p as p2p  # noqa: E402  (machine description, tables)

APPS = {"cg27": "CG, 3-D 27-point stencil (examples/cg27.c)",
        "isort": "integer bucket sort (examples/isort.c)"}
FAMILIES = ["zmpi", "mpich", "openmpi"]
NAMES = {"zmpi": "zmpi", "mpich": "MPICH", "openmpi": "Open MPI"}
COLORS = {"zmpi": "tab:blue", "mpich": "tab:orange", "openmpi": "tab:green"}


def parse_args(argv):
    """Returns the parsed command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--raw", required=True, help="apps_raw.txt of apps_run.sh")
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    p.add_argument("--elapsed", default="?", help="seconds the runs took")
    p.add_argument("--command", default="bench/apps_run.sh")
    p.add_argument("--workers", default="2")
    p.add_argument("--params", default="")
    p.add_argument("--ompi-mca", default="")
    p.add_argument("--builds", help="file with the build commands")
    p.add_argument("--load", default="", help="the host's load averages during the runs")
    p.add_argument("--plot-only", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def read_runs(path):
    """Returns the runs as dictionaries."""
    runs = []
    with open(path) as f:
        for line in f:
            f8 = line.rstrip("\n").split("\t")
            if len(f8) < 8:
                continue
            runs.append({"round": int(f8[0]), "app": f8[1], "ranks": int(f8[2]),
                         "mpi": f8[3], "status": f8[4],
                         "us": float(f8[5]) if f8[5] != "-" else None,
                         "comm": float(f8[6]) if f8[6] != "-" else None,
                         "command": f8[7],
                         "cpus": float(f8[8]) if len(f8) > 8 and f8[8] != "-" else None})
    return runs


def summarize(runs):
    """Returns stats[(app, ranks, mpi)] = {median, min, max, n, comm,
    bad}: the statistics of the passing runs and the statuses of the
    others."""
    stats = {}
    for r in runs:
        s = stats.setdefault((r["app"], r["ranks"], r["mpi"]),
                             {"us": [], "comm": [], "bad": []})
        if r["status"] == "ok" and r["us"] is not None:
            s["us"].append(r["us"])
            if r["comm"] is not None:
                s["comm"].append(r["comm"])
            if r.get("cpus") is not None:
                s.setdefault("cpus", []).append(r["cpus"])
        else:
            s["bad"].append(r["status"])
    for s in stats.values():
        if s["us"]:
            s["median"] = statistics.median(s["us"])
            s["min"], s["max"] = min(s["us"]), max(s["us"])
        if s["comm"]:
            s["comm_median"] = statistics.median(s["comm"])
        if s.get("cpus"):
            s["cpus_median"] = statistics.median(s["cpus"])
    return stats


def num(v):
    """A time in microseconds, to a useful precision."""
    return "%.0f" % v if v >= 100 else "%.1f" % v


def cell(s):
    """The median of one configuration, or why it is missing."""
    if s is None:
        return "-"
    if "median" not in s:
        return ", ".join(sorted(set(s["bad"]))) or "-"
    text = num(s["median"])
    if s["bad"]:
        text += " (%d bad)" % len(s["bad"])
    return text


def app_table(stats, app, ranks):
    """The Markdown table of one application."""
    header = ["ranks"] + [NAMES[f] for f in FAMILIES] + [
        "zmpi / best peer", "spread zmpi", "spread MPICH", "spread Open MPI",
        "zmpi MPI share", "CPUs used (zmpi, MPICH, Open MPI)"]
    rows = []
    for n in ranks:
        row = [str(n)] + [cell(stats.get((app, n, f))) for f in FAMILIES]
        z = stats.get((app, n, "zmpi"), {}).get("median")
        peers = [stats.get((app, n, f), {}).get("median") for f in FAMILIES[1:]]
        peers = [v for v in peers if v]
        row.append("%.2f" % (z / min(peers)) if z and peers else "-")
        for f in FAMILIES:
            s = stats.get((app, n, f), {})
            row.append(num(s["min"]) + "-" + num(s["max"]) if "min" in s else "-")
        zs = stats.get((app, n, "zmpi"), {})
        row.append("%.0f %%" % (100.0 * zs["comm_median"] / zs["median"])
                   if "comm_median" in zs and zs.get("median") else "-")
        cpus = [stats.get((app, n, f), {}).get("cpus_median") for f in FAMILIES]
        row.append(", ".join("-" if c is None else "%.2f" % c for c in cpus))
        rows.append(row)
    return p2p.format_markdown(header, rows)


def markdown(args, runs, stats, ranks):
    """The whole report."""
    m = p2p.machine_info({"mpich": ("mpicc.mpich", "mpiexec.mpich"),
                          "openmpi": ("mpicc.openmpi", "mpiexec.openmpi")})
    rounds = max([r["round"] for r in runs] or [0])
    out = ["# Application patterns: zmpi against MPICH and Open MPI", "",
           "- date: %s" % m["date"],
           "- machine: `nproc` = %s, %s, Linux %s" % (m["nproc"], m["cpu"], m["kernel"]),
           "- MPICH: %s" % m.get("mpich", "missing"),
           "- Open MPI: %s" % m.get("openmpi", "missing"),
           "- zmpi with %s workers; MPICH and Open MPI oversubscribed (Open MPI: "
           "`--oversubscribe %s`)" % (args.workers, args.ompi_mca),
           "- %d rounds, one run per configuration and round, MPIs alternated "
           "run by run (their order reversed every other round); %s s of runs"
           % (rounds, args.elapsed),
           "- host load average (1 min): %s; other jobs on the cores take "
           "CPU from zmpi's %s worker threads faster than from N processes "
           "(docs/apps_profile.md)" % (args.load or "not recorded", args.workers),
           "- parameters: %s" % args.params,
           "- script: `%s`" % args.command, "",
           "Time per iteration in microseconds, the median over the rounds "
           "(the slowest rank's time; cg27 reports the faster of its two "
           "solves per run).  `zmpi / best peer` divides zmpi's median by the "
           "better peer's: below 1 zmpi is faster.  The spread columns give "
           "the smallest and largest value over the rounds.  `zmpi MPI share` "
           "is the part of zmpi's iteration the slowest rank spent inside MPI "
           "calls (halo exchange and Allreduce, or Alltoall and Alltoallv), "
           "waits for other ranks included.  `CPUs used` is the median of "
           "each job's CPU time over its wall time (perf stat task-clock, "
           "setup included): on a busy host it shows how much of the 2 cores "
           "each MPI got.  Every run checks its own result "
           "(`wrong` marks a failed check, `failed(N)` an exit status, 124 a "
           "timeout).", ""]
    for app, title in APPS.items():
        if not any(k[0] == app for k in stats):
            continue
        out += ["## %s" % title, "", app_table(stats, app, ranks), "",
                "![%s](apps_%s.png)" % (app, app), ""]
    out += ["## Commands", "", "Build:", "", "```"]
    if args.builds and os.path.exists(args.builds):
        with open(args.builds) as f:
            out += [l.rstrip("\n") for l in f if l.strip()]
    out += ["```", "", "Runs of round 1:", "", "```"]
    out += [r["command"] for r in runs if r["round"] == 1]
    out += ["```", ""]
    return "\n".join(out)


def plot(stats, ranks, out_dir):
    """Draws apps_<app>.png; returns False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    for app, title in APPS.items():
        if not any(k[0] == app for k in stats):
            continue
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for fam in FAMILIES:
            pts = [(n, stats[(app, n, fam)]) for n in ranks
                   if "median" in stats.get((app, n, fam), {})]
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ax.errorbar(xs, [p[1]["median"] for p in pts],
                        yerr=[[p[1]["median"] - p[1]["min"] for p in pts],
                              [p[1]["max"] - p[1]["median"] for p in pts]],
                        marker="o", markersize=4, capsize=3, color=COLORS[fam],
                        label=NAMES[fam])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(n) for n in ranks])
        ax.set_xlabel("ranks (on 2 cores)")
        ax.set_ylabel("time per iteration (us)")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "apps_%s.png" % app), dpi=90)
        plt.close(fig)
    return True


def main(argv):
    args = parse_args(argv)
    runs = read_runs(args.raw)
    stats = summarize(runs)
    ranks = sorted({r["ranks"] for r in runs})
    if not args.plot_only:
        with open(os.path.join(args.out, "apps.md"), "w") as f:
            f.write(markdown(args, runs, stats, ranks))
    if not plot(stats, ranks, args.out):
        # Debian's python3-matplotlib lives with the system interpreter.
        py = "/usr/bin/python3"
        if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
            res = subprocess.run([py, os.path.abspath(__file__), "--raw", args.raw,
                                  "--out", args.out, "--plot-only"])
            if res.returncode == 0:
                return 0
        print("warning: matplotlib not found, no plot written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
