#!/usr/bin/env python3
"""Compare zmpi with MPICH and Open MPI on collectives and the MPI+MPI examples.

The script builds the collective latency programs (coll_*.c) and the two
examples (examples/summa.c, examples/jacobi2d.c, each run as pure MPI and
as MPI+MPI with -hy) with zmpicc, mpicc.mpich and mpicc.openmpi.  It runs
them at 2, 16 and 64 ranks on this machine, alternating the MPIs run by
run so that slow drifts hit all of them alike, keeps the best value of
each size across rounds, and writes results/coll.md (tables of
zmpi / better peer with the targets of issue 4), results/coll.json and
results/coll.png.  A program that does not build with an MPI (zmpi before
its collectives exist) is reported and left out; a run that fails or times
out is recorded as such and the rounds go on.

Only the standard library is needed; matplotlib draws the plot when this
interpreter or /usr/bin/python3 has it.  See README.md.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_p2p as p2p  # noqa: E402  (shared tool discovery and tables)

REPO = p2p.REPO
COLLS = ["barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
         "hy_bcast", "hy_allreduce", "hy_allgather"]
# Collectives with a target in issue 4 (reduce is measured, not targeted).
TARGETED = ["barrier", "bcast", "allreduce", "allgather", "alltoall"]
# Issue 4: faster at every size with 2 ranks, >= 10x faster with 16.
TARGET_RATIO = {2: 1.0, 16: 0.1}
FAMILIES = ["zmpi", "mpich", "openmpi"]
PEERS = ["mpich", "openmpi"]
# Fixed colours, so that a family keeps its colour in panels it is missing from.
COLORS = {"zmpi": "tab:blue", "mpich": "tab:orange", "openmpi": "tab:green"}
EXAMPLES = {"summa": ("examples/summa.c", []),
            "jacobi2d": ("examples/jacobi2d.c", ["-lm"])}
HY_SOURCE = os.path.join(REPO, "hy", "zmpi_hy.c")
# Collectives whose bare data movement coll_floor.c measures: the memory
# floor under any in-process implementation, shown beside zmpi.
FLOORED = ["bcast", "allreduce", "allgather", "alltoall"]
FLOOR_SOURCE = os.path.join(HERE, "coll_floor.c")


def parse_args(argv):
    """Returns the parsed command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--zmpicc", help="zmpi compiler wrapper (default: "
                   "build/tools/zmpicc, then PATH)")
    p.add_argument("--zmpirun", help="zmpi launcher (default: beside zmpicc)")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds over all runs (default 3)")
    p.add_argument("--ranks", default="2,16,64",
                   help="comma-separated rank counts (default 2,16,64)")
    p.add_argument("--workers", type=int, default=2,
                   help="zmpi workers (zmpirun -w, default 2 = cores)")
    p.add_argument("--only", default=",".join(COLLS),
                   help="comma-separated subset of " + ",".join(COLLS))
    p.add_argument("--families", default=",".join(FAMILIES),
                   help="comma-separated subset of " + ",".join(FAMILIES))
    p.add_argument("--no-examples", action="store_true",
                   help="skip the summa and jacobi2d runs")
    p.add_argument("--max", default=None, help="largest size (default 1M)")
    p.add_argument("--factor", type=float, default=None,
                   help="iteration factor, passed as -x")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds per size, passed as -t (default 0.5)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: one round, 2 and 16 ranks, max 64K, "
                   "-x 0.1 -t 0.1, small examples")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds before one run is killed (default 180, "
                   "quick 60)")
    p.add_argument("--out", default=os.path.join(HERE, "results"),
                   help="output directory (default bench/results)")
    p.add_argument("--name", default="coll",
                   help="base name of the outputs (default coll: coll.md, "
                   "coll.json, coll.png)")
    p.add_argument("--build-dir", help="keep binaries here")
    p.add_argument("--plot-from", metavar="JSON", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    a.only = p2p.choice_list(p, a.only, COLLS, "collective")
    a.families = p2p.choice_list(p, a.families, FAMILIES, "MPI")
    if a.quick:
        a.rounds = 1 if "--rounds" not in " ".join(argv) else a.rounds
        a.ranks = a.ranks if "--ranks" in " ".join(argv) else "2,16"
        a.max = a.max or "64K"
        a.factor = a.factor if a.factor is not None else 0.1
        a.budget = a.budget if a.budget is not None else 0.1
    a.timeout = a.timeout or (60.0 if a.quick else 180.0)
    a.ranks = [int(n) for n in a.ranks.split(",") if n]
    if a.rounds < 1 or not a.ranks:
        p.error("need at least one round and one rank count")
    return a


def example_args(name, nranks, quick):
    """Returns the options of an example run (sizes divisible by the
    process grids of 2, 16 and 64 ranks)."""
    if name == "summa":
        # n = 256 keeps the broadcasts a visible share of the run time (at
        # 512 the multiply hides them within the noise); the best of 30.
        return ["-n", "256", "-reps", "5" if quick else "30"]
    # n = 128: at 256 one sweep hides the 2-rank halo exchange in the noise
    # (hy and pure MPI then differ by under 1 %).  Best of 10 solves where
    # ranks have cores of their own; MPICH needs ~0.1 s per iteration at 16
    # ranks on 2 cores, so oversubscribed runs solve once.
    reps = "1" if quick or nranks > 2 else "10"
    return ["-n", "128", "-iters", "100" if quick else "300", "-reps", reps]


def build_all(args, tools, build_dir):
    """Builds every program with every family.  Returns {(family, prog):
    exe}, the build commands and {family: [programs that failed]}."""
    exes, commands, failed = {}, [], {}
    for fam, pair in tools.items():
        if pair is None:
            continue
        out = os.path.join(build_dir, fam)
        os.makedirs(out, exist_ok=True)
        jobs = []
        for c in args.only:
            srcs = [os.path.join(HERE, "coll_%s.c" % c),
                    os.path.join(HERE, "coll_common.c"),
                    os.path.join(HERE, "bench_common.c")]
            if c.startswith("hy_"):
                # The one-copy primitives of hy/zmpi_hy.h.
                srcs = ["-I", os.path.join(REPO, "hy")] + srcs + [HY_SOURCE]
            jobs.append(("coll_" + c, srcs))
        if not args.no_examples:
            for name, (src, libs) in EXAMPLES.items():
                jobs.append((name, ["-I", os.path.join(REPO, "hy"),
                                    os.path.join(REPO, src), HY_SOURCE]
                             + libs))
        for prog, srcs in jobs:
            exe = os.path.join(out, prog)
            cmd = [pair[0], "-std=c11", "-O2", "-o", exe] + srcs
            commands.append(cmd)
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            if res.returncode != 0:
                failed.setdefault(fam, []).append(prog)
                first = [l for l in res.stdout.splitlines()
                         if "error" in l or "undefined" in l][:2]
                print("build failed (%s, %s): %s" % (fam, prog,
                      " | ".join(first)), file=sys.stderr)
                continue
            exes[(fam, prog)] = exe
    floor = build_floor(build_dir, commands)
    if floor:
        exes[("floor", "coll_floor")] = floor
    return exes, commands, failed


def build_floor(build_dir, commands):
    """Builds coll_floor.c with the system C compiler, for this CPU when
    the compiler can; returns the program or None."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    exe = os.path.join(build_dir, "coll_floor")
    for arch in (["-march=native"], []):
        cmd = [cc, "-O3"] + arch + ["-pthread", "-o", exe, FLOOR_SOURCE]
        if subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            commands.append(cmd)
            return exe
    print("note: coll_floor.c did not build; no floor column",
          file=sys.stderr)
    return None


def launch(fam, launcher, nranks, workers):
    """Returns (argv prefix, extra environment) to start nranks ranks."""
    if fam == "zmpi":
        return [launcher, "-n", str(nranks), "-w", str(workers)], {}
    if fam == "mpich":
        return [launcher, "-n", str(nranks)], {}
    return ([launcher, "--oversubscribe", "-n", str(nranks)] +
            p2p.OPENMPI_MCA, dict(p2p.OPENMPI_ENV))


def parse_coll(text):
    """Returns {size: max-over-ranks latency in us} from a coll_* output."""
    data = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and not f[0].startswith("#"):
            try:
                data[int(f[0])] = float(f[1])
            except ValueError:
                pass
    return data


def parse_example(text):
    """Returns {"time_s": t, "check": "OK"/...} from an example's line."""
    for line in text.splitlines():
        f = line.split()
        if "time_s" in f and "check" in f:
            return {"time_s": float(f[f.index("time_s") + 1]),
                    "check": f[f.index("check") + 1]}
    return {}


def plan(args, exes):
    """Returns the list of runs of one round: (kind, prog, variant, extra
    args, nranks, family) in alternating order."""
    bench = []
    if args.max:
        bench += ["-m", args.max]
    if args.factor is not None:
        bench += ["-x", repr(args.factor)]
    if args.budget is not None:
        bench += ["-t", repr(args.budget)]
    runs = []
    top = args.max or "1M"
    for n in args.ranks:
        for c in args.only:
            for fam in args.families:
                if (fam, "coll_" + c) in exes:
                    runs.append(("coll", c, "", bench, n, fam))
            if c in FLOORED and ("floor", "coll_floor") in exes:
                runs.append(("floor", c, "", [c, str(n), str(args.workers),
                                              "4", top], n, "floor"))
        if args.no_examples:
            continue
        for name in EXAMPLES:
            for variant in ("mpi", "hy"):
                for fam in args.families:
                    if (fam, name) in exes:
                        extra = example_args(name, n, args.quick)
                        if variant == "hy":
                            extra = extra + ["-hy"]
                        runs.append(("example", name, variant, extra, n, fam))
    return runs


def run_rounds(args, tools, exes, after_round):
    """Runs every round and returns the run records; after_round(records)
    is called after each round, so that an interrupted comparison still
    leaves the rounds it finished."""
    records = []
    for rnd in range(1, args.rounds + 1):
        if rnd > 1:
            after_round(records)
        for kind, prog, variant, extra, n, fam in plan(args, exes):
            if kind == "floor":
                exe, (pre, env) = exes[(fam, "coll_floor")], ([], {})
                kind = "coll"  # a column of the collective's table
            else:
                exe = exes[(fam, prog if kind == "example"
                            else "coll_" + prog)]
                pre, env = launch(fam, tools[fam][1], n, args.workers)
            cmd = pre + [exe] + extra
            parse = parse_coll if kind == "coll" else parse_example
            rec = p2p.run_once(cmd, env, args.timeout, parse)
            rec.update({"round": rnd, "kind": kind, "prog": prog,
                        "variant": variant, "ranks": n, "family": fam,
                        "command": p2p.env_prefix(env) + shlex.join(cmd)})
            if (kind == "example" and rec["status"] == "ok" and
                    rec["data"].get("check") != "OK"):
                rec["status"] = "failed"
            label = prog + ("-" + variant if variant else "")
            print("round %d %3d ranks %-13s %-7s %-7s %6.1fs" % (
                rnd, n, label, fam, rec["status"], rec["seconds"]),
                flush=True)
            if rec["status"] != "ok" and rec.get("stderr", "").strip():
                print("  " + rec["stderr"].strip()[-400:].replace(
                    "\n", "\n  "), file=sys.stderr)
            records.append(rec)
    return records


def best_values(records):
    """Returns best[(kind, prog, variant, ranks)][family] = {size: value}
    (lowest latency per size; for examples size 0 = lowest time) and the
    statuses seen per key and family."""
    best, statuses = {}, {}
    for r in records:
        key = "%s|%s|%s|%d" % (r["kind"], r["prog"], r["variant"], r["ranks"])
        statuses.setdefault(key, {}).setdefault(r["family"], []).append(
            r["status"])
        if r["kind"] == "coll":
            values = r["data"]
        else:
            values = ({0: r["data"]["time_s"]} if r["status"] == "ok"
                      else {})
        slot = best.setdefault(key, {}).setdefault(r["family"], {})
        for size, v in values.items():
            size = int(size)
            if size not in slot or v < slot[size]:
                slot[size] = v
    return best, statuses


def cell(values, fam, size, statuses):
    """Formats one value, or why it is missing."""
    v = values.get(fam, {}).get(size)
    if v is not None:
        return "%.4g" % v if v < 10000 else "%.0f" % v
    seen = statuses.get(fam, [])
    if "timeout" in seen:
        return "timeout"
    if "failed" in seen:
        return "failed"
    return "missing"


def ratio_to_peer(values, size):
    """Returns zmpi / the better peer at size, or None."""
    mine = values.get("zmpi", {}).get(size)
    peers = [values.get(p, {}).get(size) for p in PEERS]
    peers = [v for v in peers if v]
    if mine is None or not peers:
        return None
    return mine / min(peers)


def below_floor(values, size, ratio, target):
    """Returns " (floor)" when the target time at size lies below the
    measured memory floor, i.e. no in-process implementation that copies
    this way can meet it on this machine; else ""."""
    f = values.get("floor", {}).get(size)
    mine = values.get("zmpi", {}).get(size)
    if f is None or not mine:
        return ""
    return " (floor)" if f >= mine / ratio * target else ""


def coll_table(values, statuses, n):
    """Returns the header, rows and target verdict of one collective at n
    ranks.  verdict: None (no target or no data), True or False."""
    header = ["size", "zmpi", "mpich", "openmpi", "zmpi/best-peer"]
    floor = values.get("floor")
    if floor:
        header.insert(4, "floor")
    target = TARGET_RATIO.get(n)
    if target is not None:
        header.append("target <%g" % target)
    sizes = sorted({s for f, d in values.items() if f != "floor" for s in d})
    rows, verdict = [], None
    for size in sizes:
        row = [p2p.size_label(size)]
        row += [cell(values, f, size, statuses) for f in FAMILIES]
        if floor:
            row.append(cell(values, "floor", size, statuses))
        r = ratio_to_peer(values, size)
        row.append("-" if r is None else "%.3f" % r)
        if target is not None:
            if r is None:
                row.append("-")
            else:
                ok = r < target
                row.append("yes" if ok else "NO" + below_floor(
                    values, size, r, target))
                verdict = ok if verdict is None else (verdict and ok)
        rows.append(row)
    if target is not None and values.get("zmpi") is not None:
        # A missing zmpi size counts against the target.
        peer_sizes = {s for p in PEERS for s in values.get(p, {})}
        if peer_sizes - set(values["zmpi"]):
            verdict = False
    return header, rows, verdict


def example_table(best, statuses, ranks):
    """Returns the header and rows of the examples' times and a list of
    (example, ranks, family, hy faster) verdicts."""
    header = ["example", "ranks"]
    for fam in FAMILIES:
        header += [fam + " mpi", fam + " hy", fam + " hy/mpi"]
    rows, verdicts = [], []
    for name in EXAMPLES:
        for n in ranks:
            row = [name, str(n)]
            for fam in FAMILIES:
                t = {}
                for variant in ("mpi", "hy"):
                    key = "example|%s|%s|%d" % (name, variant, n)
                    t[variant] = best.get(key, {}).get(fam, {}).get(0)
                    row.append(cell(best.get(key, {}), fam, 0,
                                    statuses.get(key, {})))
                if t["mpi"] and t["hy"]:
                    row.append("%.3f" % (t["hy"] / t["mpi"]))
                    verdicts.append((name, n, fam, t["hy"] < t["mpi"]))
                else:
                    row.append("-")
            rows.append(row)
    return header, rows, verdicts


def target_summary(verdict, rows):
    """One cell of the targets table: met, or at how many sizes it was
    missed and how many of those lie below the memory floor."""
    if verdict is None:
        return "no zmpi data"
    if verdict:
        return "met"
    misses = [r[0] for r in rows if r[-1].startswith("NO")]
    if not misses:
        return "NOT met (sizes without zmpi data)"
    floor = [r[0] for r in rows if r[-1] == "NO (floor)"]
    text = "NOT met at %s" % ", ".join(misses)
    if floor:
        text += " (%s below the memory floor)" % (
            "all" if len(floor) == len(misses) else ", ".join(floor))
    return text


def markdown(meta, best, statuses, args):
    """Returns the report."""
    m = meta["machine"]
    out = ["# Collective benchmarks: zmpi against MPICH and Open MPI", "",
           "- date: %s" % m["date"],
           "- machine: `nproc` = %s, %s, Linux %s" % (m["nproc"], m["cpu"],
                                                     m["kernel"]),
           "- MPICH: %s" % m.get("mpich", "missing"),
           "- Open MPI: %s" % m.get("openmpi", "missing"),
           "- ranks: %s; zmpi with %d workers; MPICH and Open MPI "
           "oversubscribed (Open MPI: %s)" % (
               ", ".join(map(str, args.ranks)), args.workers,
               " ".join(p2p.OPENMPI_MCA)),
           "- rounds: %d, runs alternated between the MPIs; best value "
           "across rounds" % meta["rounds"],
           "- script: `%s`" % meta["script_command"], ""]
    for fam, why in meta["missing"].items():
        out.append("- %s: %s" % (fam, why))
    out += ["", "The hy_* rows measure the one-copy-per-node primitives of "
            "hy/zmpi_hy.h (one result per node, read through a pointer) "
            "over each MPI: they show what the MPI+MPI approach saves "
            "against the same MPI's standard collective and have no "
            "target.  Inside one node zmpi_hy_bcast only waits for the "
            "root's flag: no data moves at all."]
    out += ["", "Latency in microseconds: for each size the largest over "
            "the ranks of their average time per call (OSU style).  The "
            "ratio is zmpi divided by the better of MPICH and Open MPI; "
            "below 1 zmpi is faster.  Targets of issue 4: below 1 at every "
            "size with 2 ranks, below 0.1 (10x faster) with 16 ranks, for "
            "barrier, bcast, allreduce, allgather and alltoall.",
            "",
            "The floor column (bench/coll_floor.c, not an MPI program) is "
            "the time the bare data movement of one call takes on one "
            "thread per zmpi worker with the ranks' buffers in one address "
            "space: copies with glibc's memcpy and vectorized sums, one "
            "spin barrier per call whose own time is taken off.  It is a "
            "bound in practice (the best copies we know, split statically "
            "between the threads), not a proof.  `NO (floor)` marks a "
            "missed target whose time lies below that floor.", ""]
    summary, sections = [], []
    for n in args.ranks:
        for c in args.only:
            key = "coll|%s||%d" % (c, n)
            header, rows, verdict = coll_table(best.get(key, {}),
                                               statuses.get(key, {}), n)
            if n in TARGET_RATIO and c in TARGETED:
                summary.append([c, str(n), target_summary(verdict, rows)])
            sections += ["### %s, %d ranks" % (c, n), "",
                         p2p.format_markdown(header, rows), ""]
    if summary:
        out += ["## Targets", "",
                p2p.format_markdown(["collective", "ranks", "target"],
                                    summary), ""]
    if not args.no_examples:
        header, rows, verdicts = example_table(best, statuses, args.ranks)
        out += ["## Examples (seconds, best across rounds)", "",
                "Issue 4 wants the MPI+MPI variant (hy) faster than pure "
                "MPI with every MPI.  summa: %s; jacobi2d: %s (above 2 "
                "ranks: %s)." % (
                    " ".join(example_args("summa", 2, args.quick)),
                    " ".join(example_args("jacobi2d", 2, args.quick)),
                    " ".join(example_args("jacobi2d", 16, args.quick))), "",
                p2p.format_markdown(header, rows), ""]
        slower = ["%s at %d ranks with %s" % (e, n, f)
                  for e, n, f, ok in verdicts if not ok]
        out += ["hy slower than pure MPI: " + (", ".join(slower) or "never"),
                ""]
    out += ["## Latency tables", ""] + sections
    out += ["## Commands", "", "Build:", "", "```"]
    out += [shlex.join(c) for c in meta["build_commands"]]
    out += ["```", "", "Runs of round 1:", "", "```"]
    out += meta["round1_commands"] + ["```", ""]
    return "\n".join(out)


def plot(results, out_dir, name="coll"):
    """Draws <name>.png (one panel per collective and rank count); returns
    False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    colls = results["meta"]["colls"]
    ranks = results["meta"]["ranks"]
    fig, axes = plt.subplots(len(colls), len(ranks), squeeze=False,
                             figsize=(4.2 * len(ranks), 2.8 * len(colls)))
    for i, c in enumerate(colls):
        for j, n in enumerate(ranks):
            ax = axes[i][j]
            per_fam = results["best"].get("coll|%s||%d" % (c, n), {})
            for fam in FAMILIES:
                pts = sorted((int(s), v) for s, v in
                             per_fam.get(fam, {}).items() if v > 0)
                if not pts:
                    continue
                xs = [max(p[0], 1) for p in pts]
                ax.plot(xs, [p[1] for p in pts], marker="o", markersize=2,
                        color=COLORS[fam])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title("%s, %d ranks" % (c, n), fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.tick_params(labelsize=7)
            if i == len(colls) - 1:
                ax.set_xlabel("bytes", fontsize=8)
            if j == 0:
                ax.set_ylabel("latency (us)", fontsize=8)
            if i == 0 and j == 0:
                for fam in FAMILIES:
                    ax.plot([], [], color=COLORS[fam], label=fam)
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, name + ".png"), dpi=90)
    plt.close(fig)
    return True


def plot_elsewhere(json_path, out_dir, name):
    """Plots with another python3 (p2p.plot_with_other_python)."""
    return p2p.plot_with_other_python(
        __file__, ["--plot-from", json_path, "--out", out_dir, "--name", name])


def write_outputs(args, argv, tools, reasons, failed, build_cmds, records):
    """Writes <name>.json, <name>.md and <name>.png from the runs so far."""
    missing = {}
    for fam in args.families:
        if tools.get(fam) is None:
            missing[fam] = "missing: " + reasons[fam]
        elif failed.get(fam):
            missing[fam] = "did not build: " + ", ".join(failed[fam])
    best, statuses = best_values(records)
    rounds = max([r["round"] for r in records] or [0])
    meta = {"machine": p2p.machine_info(tools), "rounds": rounds,
            "ranks": args.ranks, "colls": args.only,
            "workers": args.workers, "missing": missing,
            "build_commands": build_cmds,
            "round1_commands": [r["command"] for r in records
                                if r["round"] == 1],
            "script_command": shlex.join(
                [os.path.relpath(__file__, REPO)] + argv)}
    results = {"meta": meta, "best": best, "statuses": statuses,
               "runs": records}
    os.makedirs(args.out, exist_ok=True)
    json_path = os.path.join(args.out, args.name + ".json")
    with open(json_path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    report = markdown(meta, best, statuses, args)
    with open(os.path.join(args.out, args.name + ".md"), "w") as f:
        f.write(report)
    if not plot(json.loads(json.dumps(results)), args.out, args.name) and \
            not plot_elsewhere(json_path, args.out, args.name):
        print("warning: matplotlib not found, no plot written",
              file=sys.stderr)


def main(argv):
    args = parse_args(argv)
    if args.plot_from:
        with open(args.plot_from) as f:
            return 0 if plot(json.load(f), args.out, args.name) else 1
    tools, reasons = p2p.family_tools(args)
    tools = {f: t for f, t in tools.items() if f in args.families}
    for fam in args.families:
        if tools.get(fam) is None:
            print("note: %s missing (%s)" % (fam, reasons[fam]),
                  file=sys.stderr)
    build_dir = args.build_dir or tempfile.mkdtemp(prefix="zmpi-coll-")
    try:
        exes, build_cmds, failed = build_all(args, tools, build_dir)
        records = run_rounds(
            args, tools, exes,
            lambda recs: write_outputs(args, argv, tools, reasons, failed,
                                       build_cmds, recs))
    finally:
        if not args.build_dir:
            shutil.rmtree(build_dir, ignore_errors=True)
    write_outputs(args, argv, tools, reasons, failed, build_cmds, records)
    print("\nwritten to %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
