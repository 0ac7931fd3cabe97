"""Runs one campaign case as a black box and judges what it did.

A case is a command (argv, cwd, env) with a scratch directory of its own.
The harness starts it in a new session, optionally signals it, waits at most
`limit` seconds, and records: exit status, panic text, the one-line error
and whether it names the file, changes to the sentinel tree and the shared
corpus outside the scratch directory, processes left behind, temporaries
left in the scratch directory, and the time taken."""

import dataclasses
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time

MARKER = "Q7_CAMPAIGN_RUN"
PANIC = re.compile(rb"panicked at|RUST_BACKTRACE|stack backtrace:|Fatal Python error|Aborted \(core dumped\)")
# Names q7 gives its temporaries (`.q7-<pid>-<r>.tmp`, `<stem>-<n>.tmp-<pid>`).
TEMPORARY = re.compile(r"^\.q7-\d+-\w+\.tmp$|\.tmp-\d+$|^native-run-\d+$")


@dataclasses.dataclass
class Case:
    category: str
    name: str
    argv: list  # may hold "{s}" (the scratch directory)
    setup: object = None  # f(scratch) before the run: the case's inputs
    check: object = None  # f(result, scratch) -> [problem, ...] after it
    names: tuple = ()  # an error must name one of these (file names, flags)
    ok: tuple = (0, 1)  # acceptable exit statuses
    env: dict = dataclasses.field(default_factory=dict)
    cwd: str = "{s}"
    signal: tuple = None  # (delay seconds, signal number, "pid" | "group")
    wait_for: object = None  # f(scratch) -> bool: send the signal once this holds (else after delay)
    limit: float = 60.0
    stdin: str = None  # a file to read stdin from
    temporaries_ok: bool = False  # e.g. after SIGKILL: temporaries are the next run's to clean
    error_required: bool = True  # a failing status comes with a `q7: error:` line (not run-bare's guest status)
    note: str = ""


@dataclasses.dataclass
class Result:
    category: str
    name: str
    command: str
    status: object  # exit code, or -signal
    seconds: float
    stop_seconds: object  # from the signal to the end, when one was sent
    panicked: bool
    error_line: str
    names_file: object  # True/False, None when nothing to name
    problems: list
    stderr_tail: str
    stdout_head: str
    peak_kib: int = 0

    @property
    def clean(self):
        return not self.problems


def _proc_stat(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("latin-1")
    except OSError:
        return None
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return comm, fields[0], int(fields[3])  # comm, state, session


def processes_of(run_id, session):
    """Live processes of a run: in its session, or carrying its marker."""
    found = []
    marker = f"{MARKER}={run_id}\0".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = _proc_stat(entry)
        if st is None or st[1] in ("Z", "X"):
            continue
        mine = st[2] == session
        if not mine:
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    mine = marker in f.read()
            except OSError:
                pass
        if mine:
            found.append((int(entry), st[0]))
    return found


def snapshot(paths):
    """lstat facts of every entry under `paths` (and sha of small files)."""
    facts = {}
    for root in paths:
        if os.path.isdir(root) and not os.path.islink(root):
            walk = [root]
            for dirpath, dirs, files in os.walk(root):
                walk += [os.path.join(dirpath, n) for n in dirs + files]
        else:
            walk = [root]
        for p in walk:
            try:
                st = os.lstat(p)
            except OSError:
                facts[p] = "absent"
                continue
            fact = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_size, st.st_ino, st.st_rdev, st.st_mtime_ns)
            if stat.S_ISLNK(st.st_mode):
                fact += (os.readlink(p),)
            facts[p] = fact
    return facts


def diff_snapshots(before, after):
    changes = []
    for p in sorted(set(before) | set(after)):
        a, b = before.get(p, "absent"), after.get(p, "absent")
        if a != b:
            if a == "absent":
                changes.append(f"{p}: created")
            elif b == "absent":
                changes.append(f"{p}: removed")
            elif a[0] != b[0]:
                changes.append(f"{p}: type {stat.filemode(a[0])[0]} -> {stat.filemode(b[0])[0]}")
            else:
                changes.append(f"{p}: changed")
    return changes


RSS_LIMIT_KIB = 4 << 20  # a run on the campaign's small inputs has no reason to hold more


def _rss_kib(pid):
    """(VmRSS, VmHWM) of a process in KiB; zeros once it is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return rss, hwm


def _release_fifos(scratch):
    """Lets the case's FIFO feeder and reader threads finish (their other end
    may never have been opened)."""
    for dirpath, _, files in os.walk(scratch):
        for n in files:
            p = os.path.join(dirpath, n)
            try:
                if not stat.S_ISFIFO(os.lstat(p).st_mode):
                    continue
            except OSError:
                continue
            for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK):
                try:
                    os.close(os.open(p, flags))
                except OSError:
                    pass


def _tail(path, n):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read()
    except OSError:
        return b""


def _scan(path, pattern):
    """Whether `pattern` occurs anywhere in the file (read in chunks)."""
    try:
        with open(path, "rb") as f:
            carry = b""
            while chunk := f.read(1 << 20):
                if pattern.search(carry + chunk):
                    return True
                carry = chunk[-64:]
    except OSError:
        pass
    return False


def error_line(stderr):
    for line in stderr.splitlines():
        if line.startswith(("q7: error:", "error:")):
            return line
    return ""


class Harness:
    def __init__(self, q7, work, watched, env):
        self.q7 = q7
        self.work = work
        self.watched = watched  # paths outside every scratch directory
        self.env = env
        self.lock = threading.Lock()
        self.baseline = snapshot(watched)
        self.peaks = {}  # case name -> the most memory its process held (VmHWM, KiB)

    def fill(self, text, scratch):
        # exec cannot pass a NUL inside an argument: a generated one is dropped.
        return text.replace("{s}", scratch).replace("{q7}", self.q7).replace("\0", "")

    def command_line(self, case, scratch):
        argv = [self.fill(a, scratch) for a in case.argv]
        env = " ".join(f"{k}={shlex.quote(self.fill(v, scratch))}" for k, v in case.env.items())
        line = f"cd {shlex.quote(self.fill(case.cwd, scratch))} && {env + ' ' if env else ''}{shlex.join(argv)}"
        if case.stdin:
            line += f" < {shlex.quote(self.fill(case.stdin, scratch))}"
        if case.signal:
            line += f"   # then signal {signal.Signals(case.signal[1]).name} after {case.signal[0]:.2f} s"
        return line

    def run(self, case, scratch):
        os.makedirs(scratch, exist_ok=True)
        os.makedirs(os.path.join(scratch, "tmp"), exist_ok=True)
        problems = []
        if case.setup:
            case.setup(scratch)
        argv = [self.fill(a, scratch) for a in case.argv]
        env = dict(self.env)
        env.update({k: self.fill(v, scratch) for k, v in case.env.items()})
        env.setdefault("TMPDIR", os.path.join(scratch, "tmp"))
        env[MARKER] = case.name
        out_path, err_path = os.path.join(scratch, ".stdout"), os.path.join(scratch, ".stderr")
        stdin = open(self.fill(case.stdin, scratch), "rb") if case.stdin else subprocess.DEVNULL
        started = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                child = subprocess.Popen(
                    argv, cwd=self.fill(case.cwd, scratch), env=env, stdin=stdin, stdout=out, stderr=err, start_new_session=True
                )
            except OSError as e:
                child = None
                problems.append(f"could not start: {e}")
        if stdin is not subprocess.DEVNULL:
            stdin.close()
        sent_at, status, sent_wall = None, None, None
        if child:
            sent_at, status, sent_wall = self._wait(child, case, scratch, started, problems)
        seconds = time.monotonic() - started
        stop_seconds = None if sent_at is None or status is None else max(0.0, seconds - (sent_at - started))
        stderr = _tail(err_path, 64 << 10).decode("utf-8", "replace")
        stdout = _tail(out_path, 4096).decode("utf-8", "replace") if os.path.getsize(out_path) <= 4096 else open(out_path, "rb").read(4096).decode("utf-8", "replace")
        panicked = _scan(err_path, PANIC) or status == 101
        if panicked:
            problems.append("panic (or abort) text on stderr" if status != 101 else "exit status 101 (a panic)")
        sent = case.signal[1] if case.signal and sent_at is not None else None
        if isinstance(status, int) and status < 0 and -status != sent:
            problems.append(f"died of {signal.Signals(-status).name}")
        elif isinstance(status, int) and status >= 0 and status not in case.ok and not (sent and status == 128 + sent):
            problems.append(f"exit status {status} (expected one of {sorted(case.ok)})")
        line = error_line(stderr)
        names = None
        if isinstance(status, int) and status > 0 and not sent and case.error_required:
            if not line:
                problems.append("failed without a `q7: error:` line")
            elif case.names and not (status == 2 and line.startswith("error:")):
                # (a usage error from the argument parser names the argument it could not parse)
                names = any(self.fill(n, scratch) in line for n in case.names)
                if not names:
                    problems.append(f"error does not name {self.fill(case.names[0], scratch)}: {line[:160]}")
        _release_fifos(scratch)
        if child:
            problems += self._leftovers(case, child.pid)
        if not case.temporaries_ok:
            for dirpath, dirs, files in os.walk(scratch):
                for n in dirs + files:
                    if TEMPORARY.search(n):
                        problems.append(f"temporary left: {os.path.relpath(os.path.join(dirpath, n), scratch)}")
        problems += self._watched_changes()
        if case.check and status is not None:
            try:
                outcome = Outcome(status, stderr, stdout, out_path, scratch, stop_seconds, sent_wall, self.peaks.get(case.name, 0), child.pid)
                problems += case.check(outcome, scratch)
            except Exception as e:  # a harness bug must show, not end the campaign
                problems.append(f"check raised {type(e).__name__}: {e}")
        return Result(
            case.category,
            case.name,
            self.command_line(case, scratch),
            status,
            round(seconds, 3),
            None if stop_seconds is None else round(stop_seconds, 3),
            panicked,
            line,
            names,
            problems,
            stderr[-2000:],
            stdout[:500],
            self.peaks.pop(case.name, 0),
        )

    def _wait(self, child, case, scratch, started, problems):
        sent_at, sent_wall, ready_at = None, None, None
        deadline = started + case.limit
        while True:
            try:
                code = child.wait(timeout=0.01)
                return sent_at, code, sent_wall
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            rss, hwm = _rss_kib(child.pid)
            self.peaks[case.name] = max(self.peaks.get(case.name, 0), hwm)
            if rss > RSS_LIMIT_KIB:
                problems.append(f"memory: q7 reached {rss >> 10} MiB resident (limit {RSS_LIMIT_KIB >> 20} GiB)")
                break
            if case.signal and sent_at is None:
                delay, signum, target = case.signal
                # With wait_for, the delay counts from the moment it first holds.
                if ready_at is None and (case.wait_for is None or case.wait_for(scratch)):
                    ready_at = now
                if (ready_at is not None and now - ready_at >= delay) or now - started >= delay + 30:
                    try:
                        (os.killpg if target == "group" else os.kill)(child.pid, signum)
                        sent_at, sent_wall = time.monotonic(), time.time()
                    except ProcessLookupError:
                        sent_at = None
                        case = dataclasses.replace(case, signal=None)
            if sent_at is not None and now - sent_at > 10 and case.limit > 10:
                problems.append(f"still running 10 s after {signal.Signals(case.signal[1]).name}")
                break
            if now >= deadline:
                problems.append(f"hang: still running after {case.limit:.0f} s")
                break
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.wait()
        return sent_at, None, sent_wall

    def _leftovers(self, case, session):
        # A child killed by its parent-death signal needs a moment to go.
        deadline = time.monotonic() + 5
        while True:
            left = processes_of(case.name, session)
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return [f"process left behind: {pid} ({comm})" for pid, comm in left]

    def _watched_changes(self):
        with self.lock:
            now = snapshot(self.watched)
            changes = diff_snapshots(self.baseline, now)
            self.baseline = now  # report each change once
        return [f"outside the scratch directory: {c}" for c in changes]


@dataclasses.dataclass
class Outcome:
    status: object
    stderr: str
    stdout: str
    stdout_path: str
    scratch: str
    stop_seconds: object
    sent_wall: object = None  # time.time() when the signal was sent
    peak_kib: int = 0  # the most memory the process held (VmHWM)
    pid: int = 0


def keep_failure(scratch, dest):
    """Copies a failed case's scratch directory for its reproducer."""
    if os.path.exists(dest):
        shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(scratch, dest, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True, copy_function=_copy_plain)


def _copy_plain(src, dst):
    st = os.lstat(src)
    if stat.S_ISREG(st.st_mode) and st.st_size <= 64 << 20:
        shutil.copy2(src, dst)
    # devices, FIFOs and sockets are re-made by the case's setup


def remove_tree(path):
    """rmtree that also clears read-only bits and odd files."""

    def onerror(func, p, exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            os.chmod(p, 0o700)
            func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=onerror)
