#!/usr/bin/env python3
"""test_serve_slots.py SANDPROOF_REF - the session table of `sandproof-ref
serve` at its limits (docs/CONTRACT.md, SESS-6):
  - a burst of starts at the limit, sessions ignoring SIGTERM (pruned ones
    keep their slot until reaped): 9 + 30 with --max-sessions 9, 64 + 130 with
    the default; every line answered (a session or a named refusal), the
    server alive, never more than the limit live, and every live session's
    outcome collected when it is stopped; the server's exit status 0;
  - the floor itself: --max-sessions 8 with exactly 8 running, a start is
    refused and all 8 still answer and run (host: their processes);
  - a running session pruned to make room is interrupted: every process of
    its tree, a TERM-ignoring daemon included, gone from the host within the
    kill grace, and the sessions not pruned untouched."""
import json, shutil, sys, time

from servelib import Server, Tap, alive, children, cmdline, descendants, kill_all, req, \
    wait_gone, workspace

ref = sys.argv[1]
t = Tap()
KILL_GRACE_S = 5.0        # SESS_KILL_MS
DRAIN_S = 2.0             # SESS_DRAIN_MS
IGNORE_TERM = ["sh", "-c", "trap '' TERM; sleep 1000"]


def start_line(ws, cmd):
    return json.dumps({"op": "start", "request": req(ws, cmd)})


def burst(ws, limit, extra, args):
    """limit sessions, then extra starts in one write, answers read after."""
    srv = Server(ref, *args)
    started = 0
    for _ in range(limit):
        r = srv.raw(start_line(ws, IGNORE_TERM))
        started += 1 if r.get("session") else 0
    procs = descendants(srv.p.pid)
    srv.send(b"\n".join(start_line(ws, IGNORE_TERM).encode() for _ in range(extra)))
    answers = [srv.readline(60) for _ in range(extra)]
    named = all(a and (a.get("session") or "session limit" in a.get("error", "")) for a in answers)
    t.ok(started == limit and named and srv.p.poll() is None,
         f"limit {limit}: {extra} starts in a burst each answered (a session or the limit named), "
         f"the server alive ({sum(1 for a in answers if a and a.get('session'))} started)")
    lst = srv.call(op="list").get("sessions")
    t.ok(isinstance(lst, list) and len(lst) <= limit,
         f"limit {limit}: {len(lst or [])} sessions listed, at most the limit")
    outcomes = [srv.call(op="stop", session=s["session"]) for s in (lst or [])[:10]]
    t.ok(outcomes and all(o.get("exited") and (o.get("outcome") or {}).get("kind") == "cancelled"
                          for o in outcomes),
         f"limit {limit}: every live session stopped has its outcome ({len(outcomes)} checked)")
    procs |= descendants(srv.p.pid)
    rc = srv.end()
    t.ok(rc == 0, f"limit {limit}: the server ends with 0 (got {rc})")
    kill_all(wait_gone(procs, 10))


def floor(ws):
    """--max-sessions 8, 8 running: the start is refused, all 8 survive."""
    srv = Server(ref, "--max-sessions", "8")
    ids = []
    for i in range(8):
        r = srv.call(op="start", request=req(ws, ["sh", "-c",
                                                  'echo ready; while read x; do echo "got$x"; done']))
        ids.append(r.get("session"))
        srv.wait_output(r.get("session"), "ready")
    procs = descendants(srv.p.pid)
    r = srv.call(op="start", request=req(ws, ["true"]))
    t.ok("session limit" in r.get("error", ""), "floor: at 8 running of 8 a start is refused: "
         + str(r.get("error") or r)[:120])
    answered = 0
    for sid in ids:
        a = srv.call(op="continue", session=sid, input=f"{sid}\n", yield_ms=100)
        out, last = (a.get("output", b""), a)
        if f"got{sid}".encode() not in out:
            out2, last = srv.wait_output(sid, f"got{sid}", 10)
            out += out2
        answered += 1 if f"got{sid}".encode() in out and not last.get("exited") else 0
    t.ok(answered == 8, f"floor: all 8 sessions still running and answering ({answered})")
    t.ok(alive(procs) == procs, f"floor: every process of the 8 sessions still runs on the host "
         f"({len(alive(procs))} of {len(procs)})")
    srv.end()
    kill_all(wait_gone(procs, 10))


def pruned_killed(ws):
    """--max-sessions 9, 9 running trees with TERM-ignoring daemons: the
    10th start prunes session 1 (touched least recently); its whole tree
    must be gone from the host within the kill grace."""
    srv = Server(ref, "--max-sessions", "9")
    for i in range(1, 10):
        daemon = f"trap '' TERM HUP; exec sleep 3{i:03d}"
        cmd = ["sh", "-c", f"trap '' TERM; (setsid sh -c \"{daemon}\" &); echo ready; exec sleep 4{i:03d}"]
        r = srv.call(op="start", request=req(ws, cmd))
        srv.wait_output(r["session"], "ready")
    time.sleep(0.3)
    workers = children(srv.p.pid)
    first = {workers[0]} | descendants(workers[0][0])
    others = descendants(srv.p.pid) - first
    daemons = [p for p in first if "sleep 3001" in cmdline(p[0])]
    t.ok(len(workers) == 9 and daemons, f"prune: 9 workers, session 1's tree has its daemon "
         f"({len(first)} processes)")
    r = srv.call(op="start", request=req(ws, ["sleep", "1000"]))
    gone = srv.call(op="continue", session=1)
    t.ok(r.get("session") == 10 and "no session 1" in gone.get("error", ""),
         "prune: the 10th start pruned session 1: " + str(r.get("error") or gone.get("error"))[:100])
    left = wait_gone(first, KILL_GRACE_S + 1.0)
    t.ok(not left, f"prune: every process of the pruned session's tree gone from the host within "
         f"the kill grace ({len(left)} left: {[cmdline(p) for p, _ in left]})")
    t.ok(alive(others) == others, f"prune: the other sessions' processes untouched "
         f"({len(alive(others))} of {len(others)})")
    kill_all(left)
    procs = descendants(srv.p.pid) | others
    srv.end()
    kill_all(wait_gone(procs, 10))


ws = workspace()
try:
    burst(ws, 9, 30, ["--max-sessions", "9"])
    burst(ws, 64, 130, [])  # 65 past the table, then 65 more: past malloc's slack too
    floor(ws)
    pruned_killed(ws)
finally:
    shutil.rmtree(ws, ignore_errors=True)
t.done()
