#!/usr/bin/env python3
"""zmpi across processes against the bare system MPI it runs over (issue 17).

The same benchmark sources (p2p_latency.c, p2p_bw.c, p2p_bibw.c and the
coll_*.c programs) are built with zmpicc and with mpicc.mpich /
mpicc.openmpi, then run round by round, alternated:

- point-to-point between 2 processes: zmpi as `zmpirun -n 2 -p 2 --net X`
  against `mpirun.X -n 2`, for each system MPI X, on the node's shared
  memory and in "separate nodes" mode (the system MPI forced to TCP, and
  zmpi with --separate-nodes, which forces the same);
- collectives on P processes x R ranks: zmpi as `zmpirun -n P*R -p P --net X`
  against the system MPI on P*R processes.

Per size the best value over rounds is kept; the report gives zmpi / bare
for every pair (overhead for latencies, fraction for bandwidths) and writes
results/net.md, results/net.json and results/net_*.png (matplotlib when
available).  Uses run_p2p.py's helpers.  Example:

    python3 bench/run_net.py --rounds 3
    python3 bench/run_net.py --quick          # a smoke run
    python3 bench/run_net.py --p2p latency --colls '' --modes shm --max 64K \
        --rounds 5 --out /tmp/lat         # small-message latency only
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import run_coll
import run_p2p as common

HERE = common.HERE
P2P = {"latency": ("p2p_latency", True), "bw": ("p2p_bw", False),
       "bibw": ("p2p_bibw", False)}
COLLS = {"allreduce": True, "bcast": True, "alltoall": True, "allgather": True}
# Open MPI as root needs these; nothing else is set, so both sides use the
# system MPI's own defaults (the zmpi backend inherits the same variables).
OMPI_ENV = dict(common.OPENMPI_ENV)
# The system MPIs on TCP only, the same settings zmpirun --separate-nodes uses.
TCP = {"mpich": ({"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp,self"}, []),
       "openmpi": ({}, ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self"])}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--zmpicc", help="default: build/tools/zmpicc")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--mpis", default="mpich,openmpi")
    p.add_argument("--modes", default="shm,tcp", help="p2p modes")
    p.add_argument("--layouts", default="2x4,2x8",
                   help="collective layouts PxR (processes x ranks each)")
    p.add_argument("--p2p", default=",".join(P2P),
                   help="point-to-point benchmarks (latency,bw,bibw; '' for none)")
    p.add_argument("--colls", default=",".join(COLLS))
    p.add_argument("--max", default="4M", help="largest p2p size")
    p.add_argument("--coll-max", default="1M", help="largest collective size")
    p.add_argument("--factor", type=float, default=None)
    p.add_argument("--quick", action="store_true",
                   help="one round, small sizes and few iterations")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    p.add_argument("--plot-from", metavar="JSON", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.quick:
        a.rounds, a.max, a.coll_max, a.factor = 1, "64K", "64K", 0.05
        a.layouts = a.layouts.split(",")[0]
    for name in ("mpis", "modes", "layouts", "colls", "p2p"):
        setattr(a, name, [x for x in getattr(a, name).split(",") if x])
    return a


def build(cc, prog, out_dir, sources):
    """Builds bench/<prog>.c and sources with cc; returns the executable or
    None."""
    exe = os.path.join(out_dir, prog)
    cmd = [cc, "-O2", "-o", exe, os.path.join(HERE, prog + ".c")] + \
        [os.path.join(HERE, src) for src in sources]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if res.returncode != 0:
        print("build failed: %s\n%s" % (shlex.join(cmd), res.stdout),
              file=sys.stderr)
        return None
    return exe


def commands(a, zrun, exes, mpi):
    """Yields (table, column, argv, env) for one system MPI."""
    launcher = shutil.which("mpirun." + mpi)
    ompi = mpi == "openmpi"
    base = [launcher] + (["--oversubscribe"] if ompi else [])
    env = dict(OMPI_ENV) if ompi else {}
    p2p_opts = ["-m", a.max] + (["-x", repr(a.factor)] if a.factor else [])
    coll_opts = ["-m", a.coll_max] + (["-x", repr(a.factor)] if a.factor else [])
    for bench in a.p2p:
        for mode in a.modes:
            tcp_env, tcp_args = TCP[mpi] if mode == "tcp" else ({}, [])
            table = "%s %s %s" % (bench, mpi, mode)
            z = [zrun, "-n", "2", "-p", "2", "--net", mpi] + \
                (["--separate-nodes"] if mode == "tcp" else [])
            yield table, "zmpi", z + [exes[("zmpi", bench)]] + p2p_opts, env
            yield (table, mpi, base + ["-n", "2"] + tcp_args +
                   [exes[(mpi, bench)]] + p2p_opts, dict(env, **tcp_env))
    for coll in a.colls:
        for layout in a.layouts:
            procs, ranks = (int(x) for x in layout.split("x"))
            n = str(procs * ranks)
            table = "%s %s %s" % (coll, mpi, layout)
            yield (table, "zmpi", [zrun, "-n", n, "-p", str(procs), "--net", mpi,
                                   exes[("zmpi", coll)]] + coll_opts, env)
            yield (table, mpi, base + ["-n", n, exes[(mpi, coll)]] + coll_opts,
                   env)


def lower_better(table):
    kind = table.split()[0]
    return P2P[kind][1] if kind in P2P else COLLS[kind]


def report(a, runs, meta):
    """Best per size and column; returns {table: {column: {size: v}}}."""
    best = {}
    for r in runs:
        per = best.setdefault(r["table"], {}).setdefault(r["column"], {})
        pick = min if lower_better(r["table"]) else max
        for s, v in r["data"].items():
            per[s] = pick(per[s], v) if s in per else v
    lines = ["# zmpi across processes against the bare system MPI",
             "", "Generated by `bench/run_net.py` on %s (%s); best of %d rounds,"
             " alternated (load average at each round's start: %s)."
             " Latencies in microseconds (collectives: max over"
             " ranks of the average), bandwidths in MB/s. `zmpi / bare`: for"
             " times, above 1 is slower; for bandwidths, below 1 is slower."
             % (meta["date"], meta["host"], a.rounds, meta.get("load", "?")), ""]
    for table, cols in best.items():
        mpi = table.split()[1]
        lines += ["## " + table, "", "| size | zmpi | %s | zmpi / bare |" % mpi,
                  "|---:|---:|---:|---:|"]
        for s in sorted(set(cols.get("zmpi", {})) | set(cols.get(mpi, {}))):
            z, b = cols.get("zmpi", {}).get(s), cols.get(mpi, {}).get(s)
            r = "%.2f" % (z / b) if z and b else "-"
            fmt = lambda v: "-" if v is None else "%.3f" % v
            lines.append("| %s | %s | %s | %s |" % (common.size_label(s), fmt(z),
                                                    fmt(b), r))
        lines.append("")
    return best, "\n".join(lines)


def plot(best, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    kinds = sorted({t.split()[0] for t in best})
    cols = min(4, len(kinds))
    rows = (len(kinds) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4.5 * rows), squeeze=False)
    for ax in axes.flat[len(kinds):]:
        ax.set_visible(False)
    for ax, kind in zip(axes.flat, kinds):
        for table, cols in sorted(best.items()):
            if table.split()[0] != kind:
                continue
            for col, data in cols.items():
                pts = sorted((s, v) for s, v in data.items() if s > 0 and v > 0)
                if pts:
                    label = "%s (%s)" % (col, " ".join(table.split()[1:]))
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                            markersize=2, label=label,
                            linestyle="-" if col == "zmpi" else "--")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(kind)
        ax.set_xlabel("bytes")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "net.png"), dpi=100)
    return True


def plot_from(a):
    """Draws results/net.png from a net.json (for an interpreter that has
    matplotlib when the one that ran the benchmarks has not)."""
    with open(a.plot_from) as f:
        runs = json.load(f)["runs"]
    for r in runs:
        r["data"] = {int(s): v for s, v in r["data"].items()}
    best, _ = report(a, runs, {"date": "", "host": ""})
    return 0 if plot(best, a.out) else 1


def main(argv):
    a = parse_args(argv)
    if a.plot_from:
        return plot_from(a)
    zcc = a.zmpicc or os.path.join(common.REPO, "build", "tools", "zmpicc")
    zrun = os.path.join(os.path.dirname(os.path.abspath(zcc)), "zmpirun")
    work = tempfile.mkdtemp(prefix="zmpi-net-")
    exes = {}
    for fam, cc in [("zmpi", zcc)] + [(m, shutil.which("mpicc." + m)) for m in a.mpis]:
        os.makedirs(os.path.join(work, fam), exist_ok=True)
        for bench in a.p2p + a.colls:
            prog = P2P[bench][0] if bench in P2P else "coll_" + bench
            srcs = [common.COMMON_SOURCE] + ([] if bench in P2P else ["coll_common.c"])
            exes[(fam, bench)] = build(cc, prog, os.path.join(work, fam), srcs)
    runs = []
    loads = []
    for rnd in range(1, a.rounds + 1):
        # The machine's load: small-message times on a shared machine are
        # worth only as much as it was quiet.
        loads.append("%.2f" % os.getloadavg()[0])
        print("round %d: load average %s" % (rnd, loads[-1]), flush=True)
        for mpi in a.mpis:
            for table, col, cmd, env in commands(a, zrun, exes, mpi):
                if None in cmd:
                    continue
                env = dict(env, MPIEXEC_TIMEOUT=str(int(a.timeout)))
                rec = common.run_once(cmd, env, a.timeout, run_coll.parse_coll)
                rec.update(table=table, column=col, round=rnd,
                           command=common.env_prefix(env) + shlex.join(cmd))
                print("round %d %-26s %-8s %s %.1fs" % (rnd, table, col,
                                                        rec["status"], rec["seconds"]),
                      flush=True)
                runs.append(rec)
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "host": common.command_output(["uname", "-n"]) or "?",
            "load": ", ".join(loads)}
    best, md = report(a, runs, meta)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "net.md"), "w") as f:
        f.write(md + "\n")
    with open(os.path.join(a.out, "net.json"), "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1)
    print(md)
    if not plot(best, a.out) and subprocess.run(
            ["/usr/bin/python3", os.path.abspath(__file__), "--plot-from",
             os.path.join(a.out, "net.json"), "--out", a.out]).returncode != 0:
        print("(no matplotlib: no plot)", file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
