#!/usr/bin/env python3
"""Compare zmpi with MPICH and Open MPI on the derived-datatype benchmarks.

The script builds dt_latency.c and dt_pack.c with zmpicc, mpicc.mpich and
mpicc.openmpi, runs every kernel of dt_latency (2 ranks) and the pack probe
dt_pack (1 rank) under every configuration, alternating the configurations
within each round so that slow drifts of the machine hit all of them alike,
and keeps per size the best and the median value across rounds.  It prints
the tables and writes results/dt.md, results/dt.json, results/dt.png (one
subplot per kernel) and results/dt_pack.png.

A family whose compiler cannot build the programs (zmpi before its datatype
engine exists) is reported and left out; the others still run.  Shares the
tool discovery, launch and formatting code of run_p2p.py.  See README.md.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_p2p as p2p  # noqa: E402  (after the path is set)

REPO = p2p.REPO
SOURCES = ["dt_common.c", "dt_floor.c", "bench_common.c"]
PROGRAMS = ["dt_latency", "dt_pack"]

# The kernels of dt_latency (its -k values) and the pack probe.
KERNELS = ["milc", "wrf", "mg", "stencil", "vector"]
ITEMS = KERNELS + ["pack"]

CONFIGS = p2p.CONFIGS
PEERS = p2p.PEERS
# dt_pack runs on one rank; zmpi's worker count does not matter for it.
PACK_CONFIGS = ["zmpi-w1", "mpich", "openmpi"]
# dt_latency -F and dt_pack -F on one rank: the memory floor (dt_floor.c),
# run with the first of these builds that exists.
FLOOR = "floor"
FLOOR_FAMILIES = ["mpich", "openmpi", "zmpi"]

# The goals: at payloads of 64 KiB and more zmpi takes at most half
# the latency of the better peer, and at no size more than the peer; pack
# and unpack reach 80 % of memcpy for blocks of 256 B and more.
BIG_PAYLOAD = 64 << 10
BIG_RATIO = 0.5
ANY_RATIO = 1.0
PACK_MIN_BLOCK = 256
PACK_RATIO = 0.8


def parse_args(argv):
    """Returns the parsed command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p2p.add_run_options(p, "largest payload, passed as -m (default 16M)",
                        "smallest payload, passed as -M (default 1K; "
                        "dt_pack 64K)")
    p.add_argument("--only", default=",".join(ITEMS),
                   help="comma-separated subset of " + ",".join(ITEMS))
    p.add_argument("--configs", default=",".join(CONFIGS),
                   help="comma-separated subset of " + ",".join(CONFIGS))
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds before one run is killed (default 300)")
    p.add_argument("--out", default=os.path.join(HERE, "results"),
                   help="output directory (default bench/results)")
    p.add_argument("--build-dir", help="where binaries go (default: a "
                   "temporary directory, removed at the end)")
    p.add_argument("--note", help="a remark printed at the top of dt.md "
                   "(e.g. on the machine's load)")
    p.add_argument("--report-from", metavar="JSON", help="write dt.md and "
                   "the plots again from an earlier dt.json, without "
                   "running anything (--note replaces its remark)")
    p.add_argument("--plot-from", metavar="JSON", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.only = p2p.choice_list(p, args.only, ITEMS, "kernel")
    args.configs = p2p.choice_list(p, args.configs, CONFIGS, "configuration")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    p2p.quick_defaults(args)
    return args


def first_error(text):
    """Returns the most telling line of failed compiler output: the first
    compile error, else the first undefined reference, else the first
    line."""
    lines = [x.strip().replace(HERE + os.sep, "")
             for x in text.splitlines() if x.strip()]
    for wanted in ("error:", "undefined reference"):
        for line in lines:
            if wanted in line and not line.startswith("collect2"):
                return line
    return lines[0] if lines else "no output"


def build_all(tools, reasons, build_dir):
    """Builds both programs with every available family.  Returns
    {(family, program): exe} and the list of build commands; a family that
    fails gets the reason in reasons and no executables."""
    exes, commands = {}, []
    for fam, pair in tools.items():
        if pair is None:
            continue
        os.makedirs(os.path.join(build_dir, fam), exist_ok=True)
        for prog in PROGRAMS:
            exe = os.path.join(build_dir, fam, prog)
            cmd = [pair[0], "-O2", "-pthread", "-o", exe,
                   os.path.join(HERE, prog + ".c")]
            cmd += [os.path.join(HERE, s) for s in SOURCES]
            commands.append(cmd)
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            if res.returncode != 0:
                why = "build of %s failed: %s" % (prog,
                                                  first_error(res.stdout))
                print("note: %s: %s" % (fam, why), file=sys.stderr)
                reasons[fam] = "; ".join(x for x in (reasons[fam], why) if x)
                continue
            if res.stdout.strip():
                print(res.stdout, file=sys.stderr)
            exes[(fam, prog)] = exe
    return exes, commands


def bench_args(args, item):
    """Returns the options passed to one run of item."""
    out = [] if item == "pack" else ["-k", item]
    if args.min:
        out += ["-M", args.min]
    if args.max:
        out += ["-m", args.max]
    if args.factor is not None:
        out += ["-x", repr(args.factor)]
    return out


def run_command(config, launcher, exe, extra, nranks):
    """Returns (argv, extra environment) to run exe on nranks ranks."""
    n = str(nranks)
    if config in p2p.ZMPI_CONFIGS:
        workers = min(p2p.ZMPI_CONFIGS[config], nranks)
        return [launcher, "-n", n, "-w", str(workers), exe] + extra, {}
    if config == "mpich":
        return [launcher, "-n", n, exe] + extra, {}
    return ([launcher, "--oversubscribe", "-n", n] + p2p.OPENMPI_MCA +
            [exe] + extra, dict(p2p.OPENMPI_ENV))


def parse_latency(text):
    """Returns {series: {payload: [usec, shape]}} from dt_latency output."""
    data = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith("#"):
            continue
        try:
            payload, usec = int(fields[1]), float(fields[2])
        except ValueError:
            continue
        shape = fields[3] if len(fields) > 3 else ""
        data.setdefault(fields[0], {})[payload] = [usec, shape]
    return data


def parse_pack(text):
    """Returns {total: {block: [memcpy, pack, unpack]}} (GB/s) from dt_pack
    output."""
    data = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 6 or fields[0] != "pack":
            continue
        try:
            total, block = int(fields[1]), int(fields[2])
            values = [float(v) for v in fields[3:]]
        except ValueError:
            continue
        data.setdefault(total, {})[block] = values
    return data


def run_rounds(args, tools, exes):
    """Runs all rounds, alternating the configurations of each kernel, and
    returns the list of run records."""
    runs = []
    for rnd in range(1, args.rounds + 1):
        for item in args.only:
            pack = item == "pack"
            prog = "dt_pack" if pack else "dt_latency"
            for config in args.configs:
                if pack and config not in PACK_CONFIGS:
                    continue
                fam = p2p.family_of(config)
                exe = exes.get((fam, prog))
                if exe is None:
                    continue
                cmd, env = run_command(config, tools[fam][1], exe,
                                       bench_args(args, item),
                                       1 if pack else 2)
                rec = p2p.run_once(cmd, env, args.timeout,
                                   parse_pack if pack else parse_latency)
                rec.update({"round": rnd, "item": item, "config": config,
                            "command": p2p.env_prefix(env) + shlex.join(cmd)})
                runs.append(rec)
                npoints = sum(len(v) for v in rec["data"].values())
                print("round %d %-8s %-8s %-7s %6.1fs, %d points" % (
                    rnd, item, config, rec["status"], rec["seconds"],
                    npoints), flush=True)
                if rec["status"] != "ok" and rec.get("stderr"):
                    print("  " + rec["stderr"].strip().replace(
                        "\n", "\n  ")[-600:], file=sys.stderr)
            run_floor(args, tools, exes, item, rnd, runs)
    return runs


def run_floor(args, tools, exes, item, rnd, runs):
    """Runs dt_latency -F (dt_pack -F for the pack probe) for item on one
    rank with the first family that built it, and appends the record
    (config "floor") to runs."""
    pack = item == "pack"
    for fam in FLOOR_FAMILIES:
        exe = exes.get((fam, "dt_pack" if pack else "dt_latency"))
        if exe is None:
            continue
        config = "zmpi-w1" if fam == "zmpi" else fam
        cmd, env = run_command(config, tools[fam][1], exe,
                               bench_args(args, item) + ["-F"], 1)
        rec = p2p.run_once(cmd, env, args.timeout,
                           parse_pack if pack else parse_latency)
        rec.update({"round": rnd, "item": item, "config": FLOOR,
                    "command": p2p.env_prefix(env) + shlex.join(cmd)})
        runs.append(rec)
        print("round %d %-8s %-8s %-7s %6.1fs" % (
            rnd, item, FLOOR, rec["status"], rec["seconds"]), flush=True)
        return


def aggregate_latency(runs):
    """Returns (best, median, shapes): best and median are {series:
    {config: {payload: usec}}}, shapes {series: {payload: shape}}."""
    samples, shapes = {}, {}
    for rec in runs:
        if rec["item"] == "pack":
            continue
        for series, points in rec["data"].items():
            per_config = samples.setdefault(series, {}).setdefault(
                rec["config"], {})
            for payload, (usec, shape) in points.items():
                per_config.setdefault(int(payload), []).append(usec)
                shapes.setdefault(series, {})[int(payload)] = shape
    best = {s: {c: {p: min(v) for p, v in d.items()}
                for c, d in per.items()} for s, per in samples.items()}
    median = {s: {c: {p: statistics.median(v) for p, v in d.items()}
                  for c, d in per.items()} for s, per in samples.items()}
    return best, median, shapes


def aggregate_pack(runs):
    """Returns {total: {config: {block: [memcpy, pack, unpack]}}}, each the
    best (highest) across rounds."""
    best = {}
    for rec in runs:
        if rec["item"] != "pack":
            continue
        for total, blocks in rec["data"].items():
            per = best.setdefault(int(total), {}).setdefault(rec["config"],
                                                             {})
            for block, values in blocks.items():
                old = per.get(int(block))
                per[int(block)] = values if old is None else [
                    max(a, b) for a, b in zip(old, values)]
    return best


def series_order(names):
    """Returns the series in kernel order, vector blocks ascending."""
    def key(name):
        if name.startswith("vec-b"):
            return (len(KERNELS), int(name[5:]))
        base = name if name in KERNELS else "vector"
        return (KERNELS.index(base), 0)
    return sorted(names, key=key)


def bytes_label(size):
    """Returns a short label: 968, 3.8K, 64K, 15.2M (K = 1024)."""
    for shift, suffix in ((20, "M"), (10, "K")):
        # 1048352 reads better as 1.0M than as 1024K.
        if size >= 0.95 * (1 << shift):
            value = size / float(1 << shift)
            text = "%d" % value if value == int(value) else (
                "%.1f" % value if value < 100 else "%d" % round(value))
            return text + suffix
    return str(size)


def target_for(payload):
    """Returns the largest zmpi / best-peer ratio the issue allows."""
    return BIG_RATIO if payload >= BIG_PAYLOAD else ANY_RATIO


def latency_ratio(values, config, payload):
    """Returns zmpi / best peer at one payload, or None."""
    return p2p.ratio(values, config, payload, True)


def below_floor(values, payload):
    """True when the target time at payload (the allowed ratio times the
    better peer) is below the measured memory floor: no MPI that copies
    this way can meet it on this machine."""
    f = values.get(FLOOR, {}).get(payload)
    peers = [values.get(p, {}).get(payload) for p in PEERS]
    peers = [v for v in peers if v is not None]
    return f is not None and bool(peers) and \
        f >= target_for(payload) * min(peers)


def latency_rows(values, shapes, markdown):
    """Returns the header and rows of one kernel's latency table."""
    columns = CONFIGS + ([FLOOR] if FLOOR in values else [])
    header = (["payload", "shape"] + columns +
              ["w2/best-peer", "w1/best-peer", "target"])
    payloads = sorted({p for c, d in values.items() if c != FLOOR
                       for p in d})
    rows = []
    for payload in payloads:
        row = [bytes_label(payload), shapes.get(payload, "")]
        for config in columns:
            v = values.get(config, {}).get(payload)
            row.append("missing" if v is None else "%.3f" % v)
        for config in ("zmpi-w2", "zmpi-w1"):
            r = latency_ratio(values, config, payload)
            if r is None:
                row.append("-")
            elif r <= target_for(payload):
                row.append("%.2f ok" % r)
            else:
                miss = "**MISS**" if markdown else "MISS"
                if below_floor(values, payload):
                    miss += " (floor)"
                row.append("%.2f %s" % (r, miss))
        row.append("<= %g" % target_for(payload))
        rows.append(row)
    return header, rows


def latency_verdict(values, config):
    """Returns a sentence on whether config meets the targets."""
    payloads = sorted({p for d in values.values() for p in d})
    ratios = [(p, latency_ratio(values, config, p)) for p in payloads]
    measured = [(p, r) for p, r in ratios if r is not None]
    if not measured:
        return "not measured"
    missed = [p for p, r in measured if r > target_for(p)]
    if not missed:
        return "met at all %d sizes" % len(measured)
    text = "missed at %d of %d sizes (%s)" % (
        len(missed), len(measured), ", ".join(bytes_label(p)
                                              for p in missed))
    floor = [p for p in missed if below_floor(values, p)]
    if floor:
        text += "; %s below the memory floor" % (
            "all" if len(floor) == len(missed) else
            ", ".join(bytes_label(p) for p in floor))
    return text


def pack_ratio(per_config, config, block, i):
    """Returns pack (i = 1) or unpack (i = 2) over memcpy of the same run
    for config at block, or None when not measured."""
    values = per_config.get(config, {}).get(block)
    if values is None:
        return None
    return values[i] / values[0] if values[0] > 0 else 0.0


def pack_floor_bound(per_config, block, i):
    """True when even the floor's bare loops (dt_pack -F) stay under the
    pack goal at block: no copy we know of meets it there."""
    r = pack_ratio(per_config, FLOOR, block, i)
    return r is not None and r < PACK_RATIO


def pack_rows(per_config, markdown):
    """Returns the header and rows of the pack table of one total."""
    header = ["block", "memcpy"]
    columns = PACK_CONFIGS + ([FLOOR] if FLOOR in per_config else [])
    for config in columns:
        name = "zmpi" if config.startswith("zmpi") else config
        header += [name + " pack", name + " unpack"]
    blocks = sorted({b for d in per_config.values() for b in d})
    rows = []
    for block in blocks:
        copies = [d[block][0] for d in per_config.values() if block in d]
        row = [bytes_label(block), "%.2f" % max(copies)]
        for config in columns:
            values = per_config.get(config, {}).get(block)
            for i in (1, 2):
                if values is None:
                    row.append("missing" if config != FLOOR else "-")
                    continue
                r = pack_ratio(per_config, config, block, i)
                cell = "%.2f (%.2f)" % (values[i], r)
                if config.startswith("zmpi") and block >= PACK_MIN_BLOCK:
                    cell += " ok" if r >= PACK_RATIO else (
                        " **MISS**" if markdown else " MISS")
                    if r < PACK_RATIO and pack_floor_bound(per_config, block,
                                                           i):
                        cell += " (floor)"
                row.append(cell)
        rows.append(row)
    return header, rows


def pack_verdict(pack_best):
    """Returns a sentence on the pack goal for zmpi."""
    checked = missed = floor = 0
    for per_config in pack_best.values():
        for block, values in per_config.get("zmpi-w1", {}).items():
            if block < PACK_MIN_BLOCK or values[0] <= 0:
                continue
            for i in (1, 2):
                checked += 1
                if values[i] / values[0] < PACK_RATIO:
                    missed += 1
                    floor += pack_floor_bound(per_config, block, i)
    if not checked:
        return "not measured"
    if not missed:
        return "met for all %d measurements" % checked
    text = "missed in %d of %d measurements" % (missed, checked)
    if floor:
        text += "; %s where the floor's bare loops miss it too" % (
            "all" if floor == missed else "%d" % floor)
    return text


def summary_lines(meta, best, pack_best):
    """Returns the Markdown lines of the goal summary."""
    out = ["## Goals of issue 3", "",
           "Latency: zmpi <= %g x the better of MPICH and Open MPI at "
           "payloads >= %s, and <= %g x at every size.  Pack and unpack: "
           ">= %d %% of memcpy for blocks >= %d B." % (
               BIG_RATIO, bytes_label(BIG_PAYLOAD), ANY_RATIO,
               int(PACK_RATIO * 100), PACK_MIN_BLOCK), ""]
    why = meta["missing"].get("zmpi")
    if why:
        out += ["**zmpi was not measured** (%s).  The tables below hold "
                "MPICH and Open MPI only; the zmpi columns and the "
                "verdicts come once zmpi builds these programs (after the "
                "datatype engine of issue 3 is merged)." % why, ""]
    out += ["| kernel | zmpi-w2 | zmpi-w1 |", "|---|---|---|"]
    for series in series_order(best):
        out.append("| %s | %s | %s |" % (
            series, latency_verdict(best[series], "zmpi-w2"),
            latency_verdict(best[series], "zmpi-w1")))
    if pack_best:
        out.append("| pack/unpack | %s | |" % pack_verdict(pack_best))
    return out + [""]


def header_lines(meta):
    """Returns the Markdown lines describing the machine and the run."""
    m = meta["machine"]
    out = ["# Derived-datatype benchmarks: zmpi against MPICH and Open MPI",
           "",
           "- date: %s" % m["date"],
           "- machine: `nproc` = %s, %s, Linux %s" % (m["nproc"], m["cpu"],
                                                       m["kernel"]),
           "- MPICH: %s" % m.get("mpich", "missing"),
           "- Open MPI: %s" % m.get("openmpi", "missing"),
           "- rounds: %d, configurations alternated within each round; "
           "dt_latency on 2 ranks, dt_pack on 1" % meta["rounds"],
           "- script: `%s`" % meta["script_command"]]
    for fam, why in meta["missing"].items():
        if why:
            out.append("- %s missing: %s" % (fam, why))
    if meta.get("note"):
        out.append("- note: %s" % meta["note"])
    return out + [""]


def markdown_report(meta, best, median, shapes, pack_best, build_cmds,
                    runs):
    """Returns the whole Markdown report."""
    out = header_lines(meta) + summary_lines(meta, best, pack_best)
    out += ["Latency: microseconds, half the average round trip; the "
            "payload is the data bytes of one direction of a round (the "
            "stencil's six faces together).  Ratios: zmpi divided by the "
            "better of MPICH and Open MPI at that payload, `ok` when within "
            "the target.  The floor column (`dt_latency -F`, "
            "bench/dt_floor.c) is the time two threads of one process take "
            "to copy the same messages layout to layout between the same "
            "four buffers, with no MPI at all, with ordinary or streaming "
            "stores, whichever is faster: a bound in practice (static "
            "halves; zmpi's balanced copy can come out up to ~10 % below "
            "it).  `MISS (floor)` marks a missed target whose time lies "
            "below that floor.", ""]
    for series in series_order(best):
        for kind, values in (("best across rounds", best),
                             ("median across rounds", median)):
            out += ["## %s (latency_us, %s)" % (series, kind), "",
                    p2p.format_markdown(*latency_rows(
                        values[series], shapes.get(series, {}), True)), ""]
    for total in sorted(pack_best):
        out += ["## pack/unpack, vector of %s (GB/s, best across rounds)"
                % bytes_label(total), "",
                "Cells: GB/s (ratio to memcpy in the same run).  Floor: the "
                "fastest bare copy loops on the same buffers (`dt_pack -F`, "
                "bench/dt_floor.c: 64-byte moves, a memcpy per block, "
                "streaming stores with and without prefetching); `MISS "
                "(floor)` where the floor stays under 80 % of memcpy too.  "
                "Totals from 4 MiB are timed from memory (caches evicted "
                "before every call, memcpy's too), smaller ones back to "
                "back in cache.", "",
                p2p.format_markdown(*pack_rows(pack_best[total], True)), ""]
    out += ["## Commands", "", "Build:", "", "```"]
    out += [shlex.join(c) for c in build_cmds]
    out += ["```", "", "Run (round 1; later rounds repeat these):", "", "```"]
    out += [r["command"] for r in runs if r["round"] == 1]
    out += ["```", ""]
    return "\n".join(out)


def plot_latency(plt, results, out_dir):
    """Draws dt.png: one log-log subplot per kernel series."""
    best = results["best"]
    names = series_order(best)
    if not names:
        return
    ncols = 3
    nrows = (len(names) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5 * ncols, 3.8 * nrows),
                             squeeze=False)
    for ax, series in zip(axes.flat, names):
        for config in CONFIGS + [FLOOR]:
            points = sorted((int(p), v) for p, v in
                            best[series].get(config, {}).items() if v > 0)
            style = {"color": "black", "linestyle": "--"} \
                if config == FLOOR else {"marker": "o", "markersize": 3}
            if points:
                ax.plot([q[0] for q in points], [q[1] for q in points],
                        label=config, **style)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(series)
        ax.set_xlabel("payload (bytes)")
        ax.set_ylabel("latency (us, half round trip)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    fig.suptitle("dt_latency, 2 ranks, best of %d rounds"
                 % results["meta"]["rounds"])
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "dt.png"), dpi=100)
    plt.close(fig)


def plot_pack(plt, results, out_dir):
    """Draws dt_pack.png: GB/s against block size, one subplot per total."""
    pack = results["pack"]
    totals = sorted(pack, key=int)
    if not totals:
        return
    fig, axes = plt.subplots(1, len(totals), figsize=(5.5 * len(totals), 4),
                             squeeze=False)
    for ax, total in zip(axes.flat, totals):
        copies = {}
        for config in PACK_CONFIGS:
            blocks = sorted((int(b), v) for b, v in
                            pack[total].get(config, {}).items())
            if not blocks:
                continue
            for b, v in blocks:
                copies[b] = max(copies.get(b, 0.0), v[0])
            line, = ax.plot([b for b, _ in blocks], [v[1] for _, v in blocks],
                            marker="o", markersize=3, label=config + " pack")
            ax.plot([b for b, _ in blocks], [v[2] for _, v in blocks],
                    marker="x", markersize=3, linestyle="--",
                    color=line.get_color(), label=config + " unpack")
        floor = sorted((int(b), v) for b, v in
                       pack[total].get(FLOOR, {}).items())
        if floor:
            ax.plot([b for b, _ in floor], [v[1] for _, v in floor],
                    color="grey", linestyle=":", label="floor pack")
        if copies:
            ax.plot(sorted(copies), [copies[b] for b in sorted(copies)],
                    color="black", label="memcpy")
        ax.set_xscale("log", base=2)
        ax.set_title("vector of %s" % bytes_label(int(total)))
        ax.set_xlabel("block (bytes, stride 2 blocks)")
        ax.set_ylabel("GB/s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "dt_pack.png"), dpi=100)
    plt.close(fig)


def plot_results(results, out_dir):
    """Draws the plots; returns False when matplotlib cannot be imported."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    plot_latency(plt, results, out_dir)
    plot_pack(plt, results, out_dir)
    return True


def plot_elsewhere(json_path, out_dir):
    """Plots with another python3 (p2p.plot_with_other_python)."""
    return p2p.plot_with_other_python(__file__, ["--plot-from", json_path, "--out", out_dir])


def print_tables(best, shapes, pack_best):
    """Prints the best-value tables."""
    for series in series_order(best):
        print("\n== %s (latency_us, best across rounds; ratio = zmpi / "
              "best peer)" % series)
        print(p2p.format_text(*latency_rows(best[series],
                                            shapes.get(series, {}), False)))
    for total in sorted(pack_best):
        print("\n== pack/unpack, vector of %s (GB/s (ratio to memcpy))"
              % bytes_label(total))
        print(p2p.format_text(*pack_rows(pack_best[total], False)))


def write_results(args, meta, runs, build_cmds):
    """Writes dt.json, dt.md and the plots; prints the tables."""
    os.makedirs(args.out, exist_ok=True)
    meta["build_commands"] = build_cmds
    best, median, shapes = aggregate_latency(runs)
    pack_best = aggregate_pack(runs)
    results = {"meta": meta, "best": best, "median": median,
               "shapes": shapes, "pack": pack_best, "runs": runs}
    json_path = os.path.join(args.out, "dt.json")
    with open(json_path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "dt.md"), "w") as f:
        f.write(markdown_report(meta, best, median, shapes, pack_best,
                                build_cmds, runs))
    if not plot_results(json.loads(json.dumps(results)), args.out) and \
            not plot_elsewhere(json_path, args.out):
        print("warning: matplotlib not found, no plots written",
              file=sys.stderr)
    print_tables(best, shapes, pack_best)
    print("\n" + "\n".join(summary_lines(meta, best, pack_best)))


def report_only(args):
    """The --report-from mode: rewrites dt.md, dt.json and the plots from
    the runs recorded in an earlier dt.json."""
    with open(args.report_from) as f:
        old = json.load(f)
    meta = old["meta"]
    if args.note is not None:
        meta["note"] = args.note
    runs = old["runs"]
    for rec in runs:
        # JSON turned the integer keys into strings.
        rec["data"] = {k: {int(p): v for p, v in d.items()}
                       for k, d in rec["data"].items()}
        if rec["item"] == "pack":
            rec["data"] = {int(k): d for k, d in rec["data"].items()}
    write_results(args, meta, runs, meta.get("build_commands", []))
    return 0


def plot_only(args):
    """The --plot-from mode: draws the plots of an existing JSON file."""
    with open(args.plot_from) as f:
        results = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    return 0 if plot_results(results, args.out) else 1


def main(argv):
    args = parse_args(argv)
    if args.plot_from:
        return plot_only(args)
    if args.report_from:
        return report_only(args)
    tools, reasons = p2p.family_tools(args)
    wanted = {p2p.family_of(c) for c in args.configs}
    tools = {f: t for f, t in tools.items() if f in wanted}
    for fam in sorted(wanted):
        if tools.get(fam) is None:
            print("note: %s missing (%s); its columns stay empty"
                  % (fam, reasons[fam]), file=sys.stderr)
    build_dir = args.build_dir or tempfile.mkdtemp(prefix="zmpi-dtbench-")
    try:
        exes, build_cmds = build_all(tools, reasons, build_dir)
        runs = run_rounds(args, tools, exes)
    finally:
        if not args.build_dir:
            shutil.rmtree(build_dir, ignore_errors=True)
    meta = {"machine": p2p.machine_info(tools), "rounds": args.rounds,
            "configs": args.configs, "items": args.only,
            "missing": {f: reasons[f] for f in sorted(wanted)},
            "openmpi_mca": p2p.OPENMPI_MCA, "note": args.note or "",
            "script_command": shlex.join([os.path.relpath(__file__, REPO)]
                                         + argv)}
    write_results(args, meta, runs, build_cmds)
    print("\nwritten to %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
