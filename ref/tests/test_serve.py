#!/usr/bin/env python3
"""test_serve.py SANDPROOF_REF - `sandproof-ref serve` driven as a black box
(docs/CONTRACT.md, SESS): the protocol, the ring's exact accounting, input,
interrupt (sticky, the tree cancelled), retention, errors, the end at EOF.
Host-side oracles where there are some: files in the workspace, the byte
count the command wrote.  Prints `ok N - what` / `not ok N - what`, exits 1
on any failure."""
import base64, json, os, shutil, subprocess, sys, tempfile

ref = sys.argv[1]
n = failed = 0

def ok(cond, what):
    global n, failed
    n += 1
    failed += 0 if cond else 1
    print(f"{'' if cond else 'not '}ok {n} - {what}", flush=True)

def req(ws, cmd):
    return {"version": 1, "command": cmd, "cwd": ws, "env": {"PATH": "/usr/bin:/bin"},
            "profile": {"filesystem": {"write_roots": [{"root": ws}]}}}

class Server:
    def __init__(self, *args):
        self.p = subprocess.Popen([ref, "serve", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, bufsize=0)
    def raw(self, line):
        self.p.stdin.write(line.encode() + b"\n")
        r = json.loads(self.p.stdout.readline())
        if "output" in r:  # bytes, whatever the encoding (OUT-7's rule)
            r["output"] = (base64.b64decode(r["output"]) if r["output_encoding"] == "base64"
                           else r["output"].encode())
        return r
    def call(self, **msg):
        return self.raw(json.dumps(msg))
    def until_exit(self, sid, limit=200):
        outs, dropped, last = [], 0, None
        for _ in range(limit):
            last = self.call(op="continue", session=sid, yield_ms=200)
            if "error" in last:
                break
            outs.append(last["output"])
            dropped += last["dropped_bytes"]
            if last["exited"]:
                break
        return outs, dropped, last
    def end(self):
        self.p.stdin.close()
        return self.p.wait(60)

ws = tempfile.mkdtemp(prefix="sandproof-serve-", dir="/var/tmp")
try:
    s = Server()
    r = s.call(op="start", request=req(ws, ["sh", "-c", 'read x; echo "got:$x"; echo "$x" > "$PWD/made"']),
               yield_ms=0)
    ok(r.get("session") == 1 and r["exited"] is False and r["outcome"] is None, "start answers at once, running")
    r = s.call(op="continue", session=1, input="hello\n", yield_ms=10000)
    outs, _, last = ([r["output"]], 0, r) if r["exited"] else s.until_exit(1)
    ok(b"got:hello" in b"".join(outs) and last["exited"], "input delivered, exit collected with the output")
    o = last["outcome"] or {}
    ok(o.get("kind") == "success" and o.get("stdout") is None, "the outcome is the run's, streams in the session")
    ch = o.get("changes") or {}
    ok(any(e.get("op") == "created" and e.get("path") == ws + "/made" for e in ch.get("entries", [])) and
       open(ws + "/made").read() == "hello\n", "changes lists the file the command made (OUT-8)")
    r = s.call(op="continue", session=1, input="again\n")
    ok("error" in r and "exited" in r["error"], "input to a finished session refused: " + r.get("error", ""))

    # the ring: 100 000 bytes through a 4 KiB ring, accounted exactly
    s2 = Server("--output-bytes", "4096", "--retain-ms", "0")
    r = s2.call(op="start", request=req(ws, ["sh", "-c", "yes | head -c 100000"]), yield_ms=0)
    outs, dropped, last = s2.until_exit(r["session"])
    outs.insert(0, r["output"])
    dropped += r["dropped_bytes"]
    ok(max(len(x) for x in outs) <= 4096, "no call returned more than the ring (largest %d)" % max(len(x) for x in outs))
    ok(sum(len(x) for x in outs) + dropped == 100000, "received + dropped == written (%d + %d)" %
       (sum(len(x) for x in outs), dropped))
    r = s2.call(op="continue", session=r["session"])
    ok("error" in r and "no session" in r["error"], "retention 0: forgotten after its exit")
    # drops call by call: three bursts past the ring, polls in between
    r = s2.call(op="start", request=req(ws, ["sh", "-c", "for i in 1 2 3; do yes | head -c 30000; sleep 0.5; done"]),
                yield_ms=0)
    got, drops, last = len(r["output"]), [r["dropped_bytes"]], r
    while not last.get("exited") and "error" not in last:
        last = s2.call(op="continue", session=r["session"], yield_ms=100)
        got += len(last.get("output", b""))
        drops.append(last.get("dropped_bytes", 0))
    ok(got + sum(drops) == 90000 and sum(1 for d in drops if d) >= 2,
       "each call's dropped_bytes counts its own drops: %d + %d over %d calls with drops" %
       (got, sum(drops), sum(1 for d in drops if d)))

    # interrupt: the tree cancelled, interrupted sticky
    r = s.call(op="start", request=req(ws, ["sh", "-c", "sleep 300 & sleep 300"]), yield_ms=300)
    sid = r["session"]
    a = s.call(op="continue", session=sid, interrupt=True, yield_ms=10000)
    b = s.call(op="continue", session=sid)
    ok(a["exited"] and a["interrupted"] and b["interrupted"], "interrupt: exited, interrupted in every later response")
    ok((a["outcome"] or {}).get("kind") == "cancelled" and (a["outcome"] or {}).get("cancel_signal") == "SIGTERM",
       "interrupt: the run was cancelled by SIGTERM (PROC-4)")

    # errors name what is wrong and the server goes on
    for line, want in (('{"op":"list",', "line"), ('{"op":"nope"}', "op"),
                       ('{"op":"list","x":1}', "list.x"),
                       ('{"op":"start","request":{"version":2,"command":["true"]}}', "start.request"),
                       ('{"op":"continue","session":99}', "continue.session"),
                       ('{"op":"continue","session":1,"yield_ms":-1}', "continue.yield_ms")):
        r = s.raw(line)
        ok(r.get("error", "").startswith(want), f"{line} -> {r.get('error')}")
    r = s.call(op="list")
    ok(isinstance(r.get("sessions"), list), "list after the errors")
    r = s.call(op="stop_all")
    ok("stopped" in r and r["exited"], "stop_all")
    ok(s.end() == 0 and s2.end() == 0, "the server ends with 0 at the end of its input")
    r = subprocess.run([ref, "serve", "--max-sessions", "0"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    ok(r.returncode == 2 and "--max-sessions" in r.stderr, "a bad option: exit 2 naming it")
finally:
    shutil.rmtree(ws, ignore_errors=True)
print(f"{n - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
