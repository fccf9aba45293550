# zmpi.py: gdb commands for zmpi's virtual ranks (docs/debugging.md).
#
#   zmpi ranks            list the ranks: id, worker, state, where each is
#   zmpi rank N           show rank N: bt, frame, print then see its stack
#                         and its own copy of the program's globals
#   zmpi rank none        undo `zmpi rank N` (also done before resuming)
#   zmpi apply N|all CMD  run a gdb command in rank N's context (or every
#                         rank's), undoing the switch right after
#
# Load it with `source <prefix>/share/zmpi/gdb/zmpi.py`, or let gdb load it
# with libzmpi (it is installed as <libdir>/libzmpi.so.<version>-gdb.py;
# gdb's `add-auto-load-safe-path <libdir>` allows that).
#
# Ranks are user-level threads: many share one worker thread, and only the
# rank a worker runs is in that thread's registers.  The others are parked
# (waiting in an MPI call) or ready, their registers saved on their own
# stacks by the context switch (src/arch/ctx_*.S).  To show such a rank,
# the commands load its saved registers into the selected OS thread, and
# put the thread's own back before gdb lets the program run again.
#
# What they read is the library's debugger interface, described in
# docs/debugging.md: the global `zm_ult_job` (src/ult/ult_impl.h; its
# `ults` array holds one record per rank, src/ult/ult.h), each worker
# thread's `zm_ult_tl_worker`, and the saved frame layout of ctx_*.S.  They
# need libzmpi's debug information (any build type but Release has it).

import re
import struct

import gdb

STATES = {0: "new", 1: "ready", 2: "parked", 3: "done"}
ST_READY, ST_PARKED, ST_DONE = 1, 2, 3

# The context switch's saved frame, from the saved stack pointer upwards:
# (register, byte offset) pairs, the offset of the return address, and
# how far the stack pointer moves when the switch returns.
FRAMES = {
    "i386:x86-64": {
        "regs": [("r15", 8), ("r14", 16), ("r13", 24), ("r12", 32), ("rbx", 40), ("rbp", 48)],
        "pc": 56, "sp_reg": "rsp", "pc_reg": "rip", "size": 64,
    },
    "aarch64": {
        "regs": [("x%d" % (19 + i), 8 * i) for i in range(10)] + [("x29", 80), ("x30", 88)],
        "pc": 88, "sp_reg": "sp", "pc_reg": "pc", "size": 176,
    },
}


def _layout():
    arch = gdb.selected_frame().architecture().name()
    if arch not in FRAMES:
        raise gdb.GdbError("zmpi: no saved-context layout for architecture %s" % arch)
    return FRAMES[arch]


def _job():
    try:
        return gdb.parse_and_eval("zm_ult_job")
    except gdb.error:
        raise gdb.GdbError("zmpi: zm_ult_job not found: the program has not loaded libzmpi "
                           "yet, or libzmpi has no debug information")


def _ranks():
    """The ULT records of the ranks this process runs, by rank id."""
    job = _job()
    if int(job["ults"]) == 0:
        if int(job["adopted"]):
            return [job["adopted_ult"]]
        return []
    n = min(max(int(job["nids"]), int(job["cfg"]["nults"])), int(job["capacity"]))
    out = []
    for i in range(n):
        u = job["ults"][i]
        if int(u["stack"]["map"]) or int(u["state"]) == ST_DONE:
            out.append(u)
    return out


def _worker_threads():
    """Map worker record address -> the gdb thread running that worker."""
    res = {}
    place = _Place()
    try:
        for t in gdb.selected_inferior().threads():
            t.switch()
            try:
                w = int(gdb.parse_and_eval("zm_ult_tl_worker"))
            except gdb.error:
                continue
            if w:
                res[w] = t
    finally:
        place.back()
    return res


def _running(u, workers):
    """The thread running rank u, or None when u is not running."""
    job = _job()
    if int(job["ults"]) == 0:
        # A one-rank job runs on the thread that called MPI_Init: the first.
        threads = sorted(gdb.selected_inferior().threads(), key=lambda t: t.num)
        return threads[0] if int(job["adopted"]) and threads else None
    if int(u["state"]) != ST_READY:
        return None
    w = int(u["worker"])
    t = workers.get(w)
    if t is None or int(u["worker"]["current"]) != int(u.address):
        return None
    return t


class _Saved:
    """Registers of one OS thread, put aside while a rank's are loaded."""

    def __init__(self, thread, values):
        self.thread = thread
        self.values = values


_selected = None   # (_Saved, rank id) while `zmpi rank N` shows a parked rank
_home = None       # _Place from before the first `zmpi rank N`


class _Place:
    """The selected thread and frame level, to come back to after the
    registers changed (gdb's frame objects do not survive that)."""

    def __init__(self):
        self.thread = gdb.selected_thread()
        f, self.level = gdb.selected_frame(), 0
        while f.newer() is not None:
            f, self.level = f.newer(), self.level + 1

    def back(self):
        if self.thread is None or not self.thread.is_valid():
            return
        self.thread.switch()
        f = gdb.newest_frame()
        for _ in range(self.level):
            if f.older() is None:
                break
            f = f.older()
        f.select()


def _read_regs(names):
    f = gdb.newest_frame()
    return [(r, int(f.read_register(r))) for r in names]


def _write_regs(pairs):
    gdb.newest_frame().select()
    for r, v in pairs:
        gdb.execute("set $%s = %d" % (r, v), to_string=True)


def _load_context(u):
    """Load parked/ready rank u's saved registers into the selected thread;
    returns what to restore."""
    lay = _layout()
    names = [r for r, _ in lay["regs"]] + [lay["sp_reg"], lay["pc_reg"]]
    saved = _Saved(gdb.selected_thread(), _read_regs(names))
    sp = int(u["ctx"]["sp"])
    mem = gdb.selected_inferior().read_memory(sp, lay["size"]).tobytes()
    word = lambda off: struct.unpack_from("<Q", mem, off)[0]
    pairs = [(r, word(off)) for r, off in lay["regs"]]
    pairs += [(lay["sp_reg"], sp + lay["size"]), (lay["pc_reg"], word(lay["pc"]))]
    _write_regs(pairs)
    return saved


def _restore(saved):
    cur = gdb.selected_thread()
    if saved.thread.is_valid():
        saved.thread.switch()
        _write_regs(saved.values)
    if cur is not None and cur.is_valid():
        cur.switch()


def _forget_selection(quiet=False, go_home=True):
    """Put back the registers `zmpi rank N` replaced, and (go_home) select
    the thread and frame from before the first `zmpi rank`."""
    global _selected, _home
    home = _home
    if go_home:
        _home = None
    if _selected is not None:
        saved, rank = _selected
        _selected = None
        try:
            _restore(saved)
        except gdb.error:
            return      # the process is gone: nothing to restore
        if not quiet:
            print("zmpi: thread %d has its own registers again (was showing rank %d)"
                  % (saved.thread.num, rank))
    if go_home and home is not None:
        try:
            home.back()
        except gdb.error:
            pass


# A privatized rank's copy of the program, as src/arch/image_linux.c names it.
COPY_NAME = re.compile(r"/zmpi-[0-9]+-[0-9]+\.so$")


def _in_program(frame):
    """Whether frame runs the program's own code: in the main executable
    (a program linked without privatization) or in a rank's copy."""
    so = gdb.solib_name(frame.pc())
    return so is None or COPY_NAME.search(so) is not None


def _user_frame(newest):
    """The innermost frame of the rank's own program, or None."""
    f = newest
    while f is not None:
        if _in_program(f) and f.find_sal().symtab is not None:
            return f
        f = f.older()
    return None


def _loc(frame):
    sal = frame.find_sal()
    name = frame.name() or "??"
    if sal.symtab is None:
        return "%s (%s)" % (name, gdb.solib_name(frame.pc()) or "?")
    return "%s (%s:%d)" % (name, sal.symtab.filename.rsplit("/", 1)[-1], sal.line)


def _where(newest):
    """Where a stack stands: its MPI call and the caller, or its innermost
    frame of the program."""
    f, mpi = newest, None
    while f is not None:
        name = f.name() or ""
        if name.startswith(("MPI_", "PMPI_")):
            mpi = f
        elif mpi is not None:
            return "%s, called from %s" % (mpi.name().lstrip("P"), _loc(f))
        f = f.older()
    user = _user_frame(newest)
    return _loc(user if user is not None else newest)


def _describe(u, workers):
    t = _running(u, workers)
    state = int(u["state"])
    if state == ST_DONE and t is None:
        return "done", ""
    place = _Place()
    try:
        if t is not None:
            t.switch()
            return "running", "thread %d: %s" % (t.num, _where(gdb.newest_frame()))
        saved = _load_context(u)
        try:
            return STATES.get(state, str(state)), _where(gdb.newest_frame())
        finally:
            _restore(saved)
    finally:
        place.back()


def _find(rank):
    for u in _ranks():
        if int(u["id"]) == rank:
            return u
    raise gdb.GdbError("zmpi: rank %d does not run in this process" % rank)


def _select(rank):
    """Make rank `rank` the one bt, frame and print look at."""
    global _selected, _home
    _forget_selection(quiet=True, go_home=False)
    u = _find(rank)
    if _home is None:
        _home = _Place()
    workers = _worker_threads()
    t = _running(u, workers)
    if t is not None:
        t.switch()
        how = "running on thread %d" % t.num
    elif int(u["state"]) == ST_DONE:
        raise gdb.GdbError("zmpi: rank %d has finished" % rank)
    else:
        _selected = (_load_context(u), rank)
        how = "%s; its saved registers are in thread %d until `zmpi rank none` or the " \
              "program resumes" % (STATES.get(int(u["state"]), "?"), gdb.selected_thread().num)
    user = _user_frame(gdb.newest_frame())
    (user or gdb.newest_frame()).select()
    return how


class ZmpiPrefix(gdb.Command):
    """zmpi's virtual ranks: zmpi ranks, zmpi rank N|none, zmpi apply N|all COMMAND."""

    def __init__(self):
        super().__init__("zmpi", gdb.COMMAND_STACK, prefix=True)


class ZmpiRanks(gdb.Command):
    """List the ranks of this process: id, worker, state (running, ready,
parked, new, done) and where each stands (its MPI call and the caller)."""

    def __init__(self):
        super().__init__("zmpi ranks", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        ranks = _ranks()
        if not ranks:
            print("zmpi: no ranks yet (the job has not started)")
            return
        workers = _worker_threads()
        shown = _selected[1] if _selected else None
        print("  %-5s %-6s %-8s %s" % ("rank", "worker", "state", "where"))
        for u in ranks:
            state, where = _describe(u, workers)
            mark = "*" if int(u["id"]) == shown else " "
            print("%s %-5d %-6d %-8s %s" % (mark, int(u["id"]), int(u["worker_id"]), state, where))


class ZmpiRank(gdb.Command):
    """zmpi rank N: look at rank N (bt, frame, print show its stack and its
copy of the program's globals).  zmpi rank none: back to the thread's own
registers (done anyway before the program resumes)."""

    def __init__(self):
        super().__init__("zmpi rank", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if arg in ("", "none"):
            if _selected is None and arg == "":
                raise gdb.GdbError("usage: zmpi rank N | zmpi rank none")
            _forget_selection()
            return
        try:
            rank = int(arg, 0)
        except ValueError:
            raise gdb.GdbError("zmpi rank: not a rank number: %s" % arg)
        how = _select(rank)
        print("[rank %d, %s]" % (rank, how))
        gdb.execute("frame")


class ZmpiApply(gdb.Command):
    """zmpi apply N|all COMMAND: run a gdb command in rank N's context (or in
each rank's), then return to the thread's own registers."""

    def __init__(self):
        super().__init__("zmpi apply", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        parts = arg.strip().split(None, 1)
        if len(parts) < 2:
            raise gdb.GdbError("usage: zmpi apply N|all COMMAND")
        ids = [int(u["id"]) for u in _ranks() if int(u["state"]) != ST_DONE] \
            if parts[0] == "all" else [int(parts[0], 0)]
        _forget_selection(quiet=True)
        place = _Place()
        try:
            for r in ids:
                print("[rank %d, %s]" % (r, _select(r)))
                gdb.execute(parts[1], from_tty)
                _forget_selection(quiet=True)
        finally:
            _forget_selection(quiet=True)
            place.back()


# Every command that lets the program run first puts the thread's own
# registers back: the worker thread must resume where it stopped, not in
# the rank that was shown.
RESUME_COMMANDS = ("continue", "next", "step", "stepi", "nexti", "finish", "until",
                   "advance", "jump", "signal", "kill", "detach", "run", "start")


def _install_hooks():
    for c in RESUME_COMMANDS:
        gdb.execute("define hook-%s\nzmpi rank-restore\nend" % c, to_string=True)


class ZmpiRestore(gdb.Command):
    """Put back the registers `zmpi rank N` replaced (used by resume hooks)."""

    def __init__(self):
        super().__init__("zmpi rank-restore", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        _forget_selection()


def _on_exit(event):
    global _selected
    _selected = None


ZmpiPrefix()
ZmpiRanks()
ZmpiRank()
ZmpiApply()
ZmpiRestore()
_install_hooks()
gdb.events.exited.connect(_on_exit)
