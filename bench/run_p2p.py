#!/usr/bin/env python3
"""Compare zmpi with MPICH and Open MPI on the point-to-point benchmarks.

The script builds p2p_latency.c, p2p_bw.c and p2p_bibw.c with zmpicc,
mpicc.mpich and mpicc.openmpi, runs every configuration with 2 ranks,
alternating the configurations round by round so that slow drifts of the
machine hit all of them alike, and keeps per size the best and the median
value across rounds.  It prints one table per benchmark and writes
results/p2p.md, results/p2p.json and one PNG plot per benchmark.

Only the standard library is needed; matplotlib is used for the plots when
this interpreter or /usr/bin/python3 has it.  See README.md for details.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
COMMON_SOURCE = "bench_common.c"

# name -> (program, unit, True when lower is better)
BENCHES = {
    "latency": ("p2p_latency", "latency_us", True),
    "bw": ("p2p_bw", "MB/s", False),
    "bibw": ("p2p_bibw", "MB/s", False),
}

# The columns, in the order in which each round runs them.
CONFIGS = ["zmpi-w2", "zmpi-w1", "mpich", "openmpi"]
PEERS = ["mpich", "openmpi"]
ZMPI_CONFIGS = {"zmpi-w2": 2, "zmpi-w1": 1}

# Open MPI options.  Only the shared-memory transport is wanted, so the ob1
# PML with the self and vader BTLs is forced (no UCX, TCP or OFI probing).
# vader's default single-copy mechanism is CMA (process_vm_readv).  In this
# VM CMA works but is slower than copying through vader's shared-memory
# fragments: every large message pays system calls and page pinning, and
# one core does the whole copy, while the copy-in/copy-out path pipelines
# the two copies on both cores.  Measured here with 2 ranks: 1 MiB latency
# 58 us without CMA against 97 us with it, 4 MiB bi-directional bandwidth
# 26 GB/s against 21 GB/s.  So single copy is turned off, which gives Open
# MPI its best shared-memory numbers on this machine.
OPENMPI_MCA = ["--mca", "pml", "ob1", "--mca", "btl", "self,vader",
               "--mca", "btl_vader_single_copy_mechanism", "none"]
# Open MPI refuses to run as root unless told that it is intended.
OPENMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1",
               "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def choice_list(parser, text, allowed, what):
    """Splits a comma-separated option into a list, rejecting through
    parser.error (which exits) any item not in allowed; what names the kind
    of item in the message."""
    items = [x for x in text.split(",") if x]
    for name in items:
        if name not in allowed:
            parser.error("unknown %s %r (choose from %s)"
                         % (what, name, ",".join(allowed)))
    return items


def quick_defaults(args):
    """Applies the --quick defaults shared by the benchmark scripts:
    largest size 1M and iteration factor 0.1, unless given."""
    if args.quick:
        args.max = args.max or "1M"
        args.factor = args.factor if args.factor is not None else 0.1


def add_run_options(p, max_help, min_help):
    """Adds to parser p the options every comparison script shares: the
    zmpi tools, rounds, --quick (see quick_defaults) and the size range and
    iteration factor handed to the benchmark programs; max_help and
    min_help describe --max and --min for that script."""
    p.add_argument("--zmpicc", help="zmpi compiler wrapper (default: "
                   "build/tools/zmpicc in the repository, then PATH)")
    p.add_argument("--zmpirun", help="zmpi launcher (default: beside "
                   "zmpicc, then PATH)")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds over all configurations (default 3)")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: max 1M and -x 0.1 unless given")
    p.add_argument("--max", help=max_help)
    p.add_argument("--min", help=min_help)
    p.add_argument("--factor", type=float, default=None,
                   help="iteration factor, passed as -x")


def parse_args(argv):
    """Returns the parsed command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_options(p, "largest message size, passed as -m (e.g. 4M; "
                    "default 64M)", "smallest message size, passed as -M")
    p.add_argument("--only", default="latency,bw,bibw",
                   help="comma-separated subset of latency,bw,bibw")
    p.add_argument("--configs", default=",".join(CONFIGS),
                   help="comma-separated subset of " + ",".join(CONFIGS))
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds before one run is killed (default 120)")
    p.add_argument("--out", default=os.path.join(HERE, "results"),
                   help="output directory (default bench/results)")
    p.add_argument("--build-dir", help="where binaries go (default: a "
                   "temporary directory, removed at the end)")
    p.add_argument("--plot-from", metavar="JSON", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.only = choice_list(p, args.only, BENCHES, "benchmark")
    args.configs = choice_list(p, args.configs, CONFIGS, "configuration")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    quick_defaults(args)
    return args


def find_tool(given, candidates, name):
    """Returns the first existing executable among given, candidates and
    PATH's name, or None."""
    paths = [given] if given else list(candidates)
    for path in paths:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    if given:
        return None
    return shutil.which(name)


def zmpi_tools(args):
    """Returns (zmpicc, zmpirun, reason); the paths are None when missing."""
    cc = find_tool(args.zmpicc, [os.path.join(REPO, "build", "tools",
                                              "zmpicc")], "zmpicc")
    beside = [os.path.join(os.path.dirname(cc), "zmpirun")] if cc else []
    run = find_tool(args.zmpirun, beside, "zmpirun")
    if cc is None:
        return None, None, "zmpicc not found"
    if run is None:
        return None, None, "zmpirun not found"
    return cc, run, ""


def family_tools(args):
    """Returns {family: (compiler, launcher) or None} and {family: reason}
    for the families zmpi, mpich and openmpi."""
    tools, reasons = {}, {}
    cc, run, why = zmpi_tools(args)
    tools["zmpi"] = (cc, run) if cc else None
    reasons["zmpi"] = why
    for fam in ("mpich", "openmpi"):
        cc = shutil.which("mpicc." + fam)
        run = shutil.which("mpirun." + fam)
        tools[fam] = (cc, run) if cc and run else None
        reasons[fam] = "" if tools[fam] else "mpicc.%s or mpirun.%s not " \
            "found" % (fam, fam)
    return tools, reasons


def family_of(config):
    """Returns the compiler family of a configuration."""
    return "zmpi" if config in ZMPI_CONFIGS else config


def build_all(args, tools, reasons, build_dir):
    """Builds every benchmark with every available family.  Returns
    {(family, bench): exe} and a list of the build commands."""
    exes, commands = {}, []
    for fam, pair in tools.items():
        if pair is None:
            continue
        os.makedirs(os.path.join(build_dir, fam), exist_ok=True)
        for bench in args.only:
            prog = BENCHES[bench][0]
            exe = os.path.join(build_dir, fam, prog)
            cmd = [pair[0], "-O2", "-o", exe,
                   os.path.join(HERE, prog + ".c"),
                   os.path.join(HERE, COMMON_SOURCE)]
            commands.append(cmd)
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            if res.returncode != 0:
                print("build failed (%s, %s):\n%s" % (fam, prog, res.stdout),
                      file=sys.stderr)
                reasons[fam] = "build of %s failed" % prog
                continue
            if res.stdout.strip():
                print(res.stdout, file=sys.stderr)
            exes[(fam, bench)] = exe
    return exes, commands


def bench_args(args):
    """Returns the options passed to every benchmark run."""
    out = []
    if args.min:
        out += ["-M", args.min]
    if args.max:
        out += ["-m", args.max]
    if args.factor is not None:
        out += ["-x", repr(args.factor)]
    return out


def run_command(config, launcher, exe, extra):
    """Returns (argv, extra environment) to run exe under config."""
    if config in ZMPI_CONFIGS:
        return ([launcher, "-n", "2", "-w", str(ZMPI_CONFIGS[config]), exe]
                + extra, {})
    if config == "mpich":
        return [launcher, "-n", "2", exe] + extra, {}
    return ([launcher, "--oversubscribe", "-n", "2"] + OPENMPI_MCA + [exe]
            + extra, dict(OPENMPI_ENV))


def parse_output(text):
    """Returns {size: value} from a benchmark's standard output."""
    data = {}
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#") or len(fields) != 2:
            continue
        try:
            data[int(fields[0])] = float(fields[1])
        except ValueError:
            continue
    return data


def run_once(cmd, env_extra, timeout, parse=None):
    """Runs one benchmark in its own process group and returns a record with
    status ok, failed or timeout, the data parsed from its output by parse
    (default parse_output) and the elapsed time."""
    env = dict(os.environ)
    env.update(env_extra)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        status = "ok" if proc.returncode == 0 else "failed"
    except subprocess.TimeoutExpired:
        # Kill the launcher and the ranks it started: they share the new
        # process group whose id is the launcher's pid.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        status = "timeout"
    record = {"status": status, "returncode": proc.returncode,
              "seconds": round(time.monotonic() - start, 3),
              "data": (parse or parse_output)(out or "")}
    if status != "ok":
        record["stderr"] = (err or "")[-2000:]
    return record


def run_rounds(args, tools, exes):
    """Runs all rounds and returns the list of run records."""
    extra = bench_args(args)
    runs = []
    for rnd in range(1, args.rounds + 1):
        for bench in args.only:
            for config in args.configs:
                fam = family_of(config)
                exe = exes.get((fam, bench))
                if exe is None:
                    continue
                cmd, env = run_command(config, tools[fam][1], exe, extra)
                rec = run_once(cmd, env, args.timeout)
                rec.update({"round": rnd, "bench": bench, "config": config,
                            "command": env_prefix(env) + shlex.join(cmd)})
                runs.append(rec)
                print("round %d %-7s %-8s %-7s %6.1fs, %d sizes" % (
                    rnd, bench, config, rec["status"], rec["seconds"],
                    len(rec["data"])), flush=True)
                if rec["status"] != "ok" and rec.get("stderr"):
                    print("  " + rec["stderr"].strip().replace(
                        "\n", "\n  ")[-600:], file=sys.stderr)
    return runs


def env_prefix(env):
    """Returns the environment assignments of a command, for display."""
    return "".join("%s=%s " % (k, shlex.quote(v)) for k, v in env.items())


def aggregate(runs, bench, lower_better):
    """Returns (best, median): {config: {size: value}} across rounds."""
    samples = {}
    for rec in runs:
        if rec["bench"] != bench:
            continue
        per_size = samples.setdefault(rec["config"], {})
        for size, value in rec["data"].items():
            per_size.setdefault(int(size), []).append(value)
    pick = min if lower_better else max
    best = {c: {s: pick(v) for s, v in d.items()} for c, d in samples.items()}
    median = {c: {s: statistics.median(v) for s, v in d.items()}
              for c, d in samples.items()}
    return best, median


def ratio(values, config, size, lower_better):
    """Returns zmpi / best peer at one size, or None if either is missing."""
    mine = values.get(config, {}).get(size)
    peers = [values.get(p, {}).get(size) for p in PEERS]
    peers = [v for v in peers if v is not None]
    if mine is None or not peers:
        return None
    best_peer = min(peers) if lower_better else max(peers)
    if best_peer == 0:
        return None
    return mine / best_peer


def size_label(size):
    """Returns a short label such as 512, 4K or 64M."""
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if size >= (1 << shift) and size % (1 << shift) == 0:
            return "%d%s" % (size >> shift, suffix)
    return str(size)


def table_rows(values, lower_better):
    """Returns the header and the rows (lists of strings) of one table."""
    header = ["size"] + CONFIGS + ["w2/best-peer", "w1/best-peer"]
    sizes = sorted({s for d in values.values() for s in d})
    rows = []
    for size in sizes:
        row = [size_label(size)]
        for config in CONFIGS:
            v = values.get(config, {}).get(size)
            row.append("missing" if v is None else
                       ("%.3f" if lower_better else "%.1f") % v)
        for config in ("zmpi-w2", "zmpi-w1"):
            r = ratio(values, config, size, lower_better)
            row.append("-" if r is None else "%.2f" % r)
        rows.append(row)
    return header, rows


def format_text(header, rows):
    """Returns a table aligned for a terminal."""
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    lines = [" | ".join(h.rjust(w) for h, w in zip(header, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    for row in rows:
        lines.append(" | ".join(c.rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def format_markdown(header, rows):
    """Returns a Markdown table."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def command_output(cmd):
    """Returns the first line of a command's output, or '' if it fails."""
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = res.stdout.strip().splitlines()
    return lines[0].strip() if lines else ""


def mpich_version():
    """Returns MPICH's version and device, e.g. '4.0.2 (ch4:ucx)'."""
    try:
        res = subprocess.run(["mpichversion"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "?"
    fields = {}
    for line in res.stdout.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    version = fields.get("MPICH Version", "?")
    device = fields.get("MPICH Device")
    return "%s (%s)" % (version, device) if device else version


def machine_info(tools):
    """Returns a dictionary describing the machine and the MPIs."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {"date": datetime.datetime.now().astimezone().isoformat(
                timespec="seconds"),
            "nproc": command_output(["nproc"]) or str(os.cpu_count()),
            "cpu": cpu, "kernel": platform.release(),
            "python": platform.python_version()}
    if tools.get("mpich"):
        info["mpich"] = mpich_version()
    if tools.get("openmpi"):
        info["openmpi"] = command_output([tools["openmpi"][1], "--version"])
    return info


def markdown_report(meta, tables, build_cmds, runs):
    """Returns the whole Markdown report."""
    out = ["# Point-to-point benchmarks: zmpi against MPICH and Open MPI",
           "",
           "- date: %s" % meta["machine"]["date"],
           "- machine: `nproc` = %s, %s, Linux %s" % (
               meta["machine"]["nproc"], meta["machine"]["cpu"],
               meta["machine"]["kernel"]),
           "- MPICH: %s" % meta["machine"].get("mpich", "missing"),
           "- Open MPI: %s" % meta["machine"].get("openmpi", "missing"),
           "- rounds: %d, configurations alternated within each round; "
           "2 ranks everywhere" % meta["rounds"],
           "- script: `%s`" % meta["script_command"], ""]
    for fam, why in meta["missing"].items():
        if why:
            out.append("- %s missing: %s" % (fam, why))
    out += ["", "Latency in microseconds (half round trip), bandwidth in "
            "MB/s (1 MB = 1e6 bytes).  Ratios are zmpi divided by the best "
            "of MPICH and Open MPI at that size: below 1 is better for "
            "latency, above 1 is better for bandwidth.", ""]
    for bench, (best, median) in tables.items():
        for kind, rows in (("best across rounds", best),
                           ("median across rounds", median)):
            out += ["## %s (%s, %s)" % (bench, BENCHES[bench][1], kind), "",
                    format_markdown(*rows), ""]
    out += ["## Commands", "", "Build:", "", "```"]
    out += [shlex.join(c) for c in build_cmds]
    out += ["```", "", "Run (round 1; later rounds repeat these):", "", "```"]
    out += [r["command"] for r in runs if r["round"] == 1]
    out += ["```", ""]
    return "\n".join(out)


def plot_results(results, out_dir):
    """Draws one log-log PNG per benchmark from the best values; returns
    False when matplotlib cannot be imported."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    for bench, per_config in results["best"].items():
        prog = BENCHES[bench][0]
        fig, ax = plt.subplots(figsize=(8, 5))
        for config in CONFIGS:
            points = sorted((int(s), v) for s, v in
                            per_config.get(config, {}).items()
                            if int(s) > 0 and v > 0)
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points],
                        marker="o", markersize=3, label=config)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("latency (us, half round trip)" if bench == "latency"
                      else "bandwidth (MB/s, 1 MB = 1e6 B)")
        ax.set_title("%s, 2 ranks, best of %d rounds" % (
            prog, results["meta"]["rounds"]))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, prog + ".png"), dpi=110)
        plt.close(fig)
    return True


def plot_with_other_python(script, args):
    """Runs `script args` (a bench script's plot-only mode, which must not
    try again elsewhere) with another python3 when this interpreter has no
    matplotlib (e.g. a pyenv python next to Debian's python3-matplotlib);
    True when one of them drew the plots."""
    for python in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(python) or \
                os.path.realpath(python) == os.path.realpath(sys.executable):
            continue
        if subprocess.run([python, os.path.abspath(script)] + args).returncode == 0:
            return True
    return False


def plot_elsewhere(json_path, out_dir):
    """Plots with another python3 (plot_with_other_python)."""
    return plot_with_other_python(__file__, ["--plot-from", json_path, "--out", out_dir])


def print_tables(tables):
    """Prints the best-value table of every benchmark."""
    for bench, (best, _) in tables.items():
        print("\n== %s (%s, best across rounds; ratio = zmpi / best peer)"
              % (bench, BENCHES[bench][1]))
        print(format_text(*best))


def write_results(args, meta, runs, build_cmds):
    """Writes p2p.json, p2p.md and the plots; returns the tables."""
    os.makedirs(args.out, exist_ok=True)
    results = {"meta": meta, "best": {}, "median": {}, "runs": runs}
    tables = {}
    for bench in args.only:
        lower = BENCHES[bench][2]
        best, median = aggregate(runs, bench, lower)
        results["best"][bench] = best
        results["median"][bench] = median
        tables[bench] = (table_rows(best, lower), table_rows(median, lower))
    json_path = os.path.join(args.out, "p2p.json")
    with open(json_path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "p2p.md"), "w") as f:
        f.write(markdown_report(meta, tables, build_cmds, runs))
    if not plot_results(json.loads(json.dumps(results)), args.out) and \
            not plot_elsewhere(json_path, args.out):
        print("warning: matplotlib not found, no plots written",
              file=sys.stderr)
    return tables


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
    tools, reasons = family_tools(args)
    wanted = {family_of(c) for c in args.configs}
    for fam in sorted(wanted):
        if tools.get(fam) is None:
            print("note: %s missing (%s); its columns stay empty"
                  % (fam, reasons[fam]), file=sys.stderr)
    tools = {f: t for f, t in tools.items() if f in wanted}
    build_dir = args.build_dir or tempfile.mkdtemp(prefix="zmpi-bench-")
    try:
        exes, build_cmds = build_all(args, tools, reasons, build_dir)
        runs = run_rounds(args, tools, exes)
    finally:
        if not args.build_dir:
            shutil.rmtree(build_dir, ignore_errors=True)
    meta = {"machine": machine_info(tools), "rounds": args.rounds,
            "bench_args": bench_args(args), "configs": args.configs,
            "missing": {f: reasons[f] for f in sorted(wanted)},
            "openmpi_mca": OPENMPI_MCA,
            "script_command": shlex.join([os.path.relpath(__file__, REPO)]
                                         + argv)}
    tables = write_results(args, meta, runs, build_cmds)
    print_tables(tables)
    print("\nwritten to %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
