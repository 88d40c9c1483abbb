"""servelib.py - what the `sandproof-ref serve` tests share: TAP output, a
client speaking the protocol with bounded waits, requests, and host-side
oracles on processes (a server's descendants, by pid and start time, so a
reused pid is never taken for a survivor)."""
import base64, ctypes, json, os, select, shutil, signal, subprocess, sys, tempfile, time

PR_SET_PDEATHSIG = 1


def _die_with_test():
    """In the server's child before exec: a test killed (a ctest timeout)
    takes its servers with it, and they their sessions."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def ok(self, cond, what):
        self.n += 1
        self.failed += 0 if cond else 1
        print(f"{'' if cond else 'not '}ok {self.n} - {what}", flush=True)
        return cond

    def done(self):
        print(f"{self.n - self.failed} passed, {self.failed} failed", flush=True)
        sys.exit(1 if self.failed else 0)


def req(ws, cmd, **extra):
    r = {"version": 1, "command": cmd, "cwd": ws, "env": {"PATH": "/usr/bin:/bin"},
         "profile": {"filesystem": {"write_roots": [{"root": ws}]}}}
    r.update(extra)
    return r


def workspace():
    return tempfile.mkdtemp(prefix="sandproof-serve-", dir="/var/tmp")


class Server:
    """One `sandproof-ref serve`; every read is bounded (None past it)."""

    def __init__(self, ref, *args):
        self.p = subprocess.Popen([ref, "serve", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, bufsize=0, preexec_fn=_die_with_test)
        self.buf = b""

    def send(self, line):
        """False when the server no longer reads (it died or closed stdin)."""
        data = line if isinstance(line, bytes) else line.encode()
        try:
            self.p.stdin.write(data + b"\n")
            return True
        except (BrokenPipeError, ValueError):
            return False

    def readline(self, timeout=30.0):
        end = time.monotonic() + timeout
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        r = json.loads(line)
        if "output" in r:  # bytes, whatever the encoding (OUT-7's rule)
            r["output"] = (base64.b64decode(r["output"]) if r["output_encoding"] == "base64"
                           else r["output"].encode())
        return r

    def raw(self, line, timeout=30.0):
        if not self.send(line):
            return {"broken": True}
        return self.readline(timeout) or {"broken": True}

    def call(self, timeout=30.0, **msg):
        return self.raw(json.dumps(msg), timeout)

    def wait_output(self, sid, text, limit_s=20.0):
        """Polls until the session's output holds text: (output, last state)."""
        out, end, last = b"", time.monotonic() + limit_s, {}
        while text.encode() not in out and time.monotonic() < end:
            last = self.call(op="continue", session=sid, yield_ms=200)
            if "error" in last or "broken" in last:
                break
            out += last["output"]
            if last["exited"]:
                break
        return out, last

    def exited_within(self, seconds):
        try:
            self.p.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def end(self, timeout=60):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait(10)


def _stat(pid):
    """(ppid, start time) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    return int(fields[1]), int(fields[19])


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def children(pid):
    """The direct children of pid, oldest first: [(pid, start time)]."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st and st[0] == pid:
                out.append((int(name), st[1]))
    return sorted(out, key=lambda p: (p[1], p[0]))


def descendants(pid):
    """Every descendant of pid now: a set of (pid, start time)."""
    kids = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st:
                kids.setdefault(st[0], []).append((int(name), st[1]))
    out, todo = set(), [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c[0])
    return out


def alive(procs):
    """Those of procs still running as the same process (not zombies)."""
    left = set()
    for pid, start in procs:
        st = _stat(pid)
        if st and st[1] == start:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                left.add((pid, start))
    return left


def wait_gone(procs, seconds):
    """Waits up to seconds for procs to end: those still alive then."""
    end = time.monotonic() + seconds
    left = alive(procs)
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = alive(left)
    return left


def kill_all(procs):
    """The test's own cleanup: SIGKILL what it started and left, by pid."""
    for pid, _ in alive(procs):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
