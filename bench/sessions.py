#!/usr/bin/env python3
"""bench/sessions.py - sessions (docs/CONTRACT.md, SESS) against one-shot run.

    python3 bench/sessions.py [BUILD_DIR] [--flood-s S] [--n N]

Measures, whole-process and wall-clock (never a test):
  run      one-shot `sandproof-ref run` of `true`, request to outcome (N times)
  start    a `start` of `true` with yield until exited, on a warm server (N times)
  poll     an empty `continue` (yield_ms 0) on a running session: one round trip (N times)
  flood    8 sessions running `yes` for S seconds (default 60) under polling (each
           session polled every 200 ms, yield 0): the server's peak VmRSS, sampled
           after every poll from /proc, and the bytes it read
Medians and spread on stdout as markdown.  The workspace is a temp directory under
/var/tmp, removed at the end; every session is stopped and the server ends.
"""
import json, os, statistics, subprocess, sys, tempfile, time

def req(ws, cmd):
    return {"version": 1, "command": cmd, "cwd": ws, "env": {"PATH": "/usr/bin:/bin"},
            "timeout_ms": 0, "profile": {"filesystem": {"write_roots": [{"root": ws}]}}}

class Server:
    def __init__(self, ref, *args):
        self.p = subprocess.Popen([ref, "serve", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, bufsize=0)
    def call(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        return json.loads(self.p.stdout.readline())
    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0
    def close(self):
        self.p.stdin.close()
        self.p.wait(60)

def stats(name, xs):
    xs = sorted(xs)
    return f"| {name} | {len(xs)} | {statistics.median(xs):.2f} | {xs[0]:.2f} | {xs[-1]:.2f} |"

def main():
    args = sys.argv[1:]
    build = args[0] if args and not args[0].startswith("--") else "build"
    flood_s = float(args[args.index("--flood-s") + 1]) if "--flood-s" in args else 60.0
    n = int(args[args.index("--n") + 1]) if "--n" in args else 20
    ref = os.path.abspath(os.path.join(build, "sandproof-ref"))
    ws = tempfile.mkdtemp(prefix="sp-bench-sess.", dir="/var/tmp")
    rows = []
    try:
        t = []
        for _ in range(n):
            t0 = time.monotonic()
            subprocess.run([ref, "run", "--request", "-"], input=json.dumps(req(ws, ["true"])).encode(),
                           stdout=subprocess.DEVNULL, check=True)
            t.append((time.monotonic() - t0) * 1000)
        rows.append(stats("run `true` (ms)", t))
        srv = Server(ref, "--retain-ms", "0")
        t = []
        for _ in range(n):
            t0 = time.monotonic()
            r = srv.call({"op": "start", "request": req(ws, ["true"]), "yield_ms": 30000})
            t.append((time.monotonic() - t0) * 1000)
            assert r.get("exited"), r
        rows.append(stats("session start of `true` to its exit (ms)", t))
        r = srv.call({"op": "start", "request": req(ws, ["sleep", "600"]), "yield_ms": 0})
        sid, t = r["session"], []
        for _ in range(n * 5):
            t0 = time.monotonic()
            srv.call({"op": "continue", "session": sid, "yield_ms": 0})
            t.append((time.monotonic() - t0) * 1000)
        rows.append(stats("empty poll round trip (ms)", t))
        srv.call({"op": "stop", "session": sid})
        srv.close()
        srv = Server(ref)
        ids = [srv.call({"op": "start", "request": req(ws, ["yes"]), "yield_ms": 0})["session"]
               for _ in range(8)]
        peak, got, dropped, end = 0, 0, 0, time.monotonic() + flood_s
        while time.monotonic() < end:
            for sid in ids:
                r = srv.call({"op": "continue", "session": sid, "yield_ms": 0})
                got += len(r["output"])
                dropped += r["dropped_bytes"]
                peak = max(peak, srv.rss_kib())
            time.sleep(0.2)
        srv.call({"op": "stop_all"})
        srv.close()
        bound = 8 * (2 * 1024 + 3 * 1024) + 2 * 1024 + 80 * 1024  # SESS-3: N rings, a ring, 80 MiB
        print(f"flood: 8 x `yes` for {flood_s:.0f} s under polling: server peak VmRSS {peak} KiB "
              f"(SESS-3 bound for 8 sessions: {bound} KiB); {got / 2**20:.0f} MiB returned, "
              f"{dropped / 2**20:.0f} MiB dropped")
    finally:
        subprocess.run(["rm", "-rf", ws])
    print("| what | n | median | min | max |\n|---|---|---|---|---|")
    print("\n".join(rows))

if __name__ == "__main__":
    main()
