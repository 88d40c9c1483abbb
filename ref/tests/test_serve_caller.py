#!/usr/bin/env python3
"""test_serve_caller.py SANDPROOF_REF - `sandproof-ref serve` and a caller
that goes away (docs/CONTRACT.md, SESS-8), checked on the host:
  - while a call waits (an empty poll of 300 000 ms on a session whose
    command ignores SIGTERM), closing stdin, closing stdout, or both, ends
    the server within 1 s and every process of its sessions with it;
  - the lines sent before stdin closed are answered, at once: the waiting
    call as it stands, a list, a start refused (nothing starts);
  - SIGKILL of the server leaves no worker and no command of its sessions
    (a TERM-ignoring daemon, a terminal session) running;
  - the worker holds no descriptor but 0-2 that is not close-on-exec
    (/proc/PID/fdinfo), so none can reach the command."""
import os, shutil, signal, sys, time

from servelib import Server, Tap, children, descendants, kill_all, req, wait_gone, workspace

ref = sys.argv[1]
t = Tap()
END_S = 1.0
DAEMON = ["sh", "-c", "trap '' TERM HUP; (setsid sh -c \"trap '' TERM HUP; exec sleep 1001\" &); "
          "echo ready; exec sleep 1002"]


def waiting(ws):
    """A server with one TERM-ignoring session and an empty poll waiting."""
    srv = Server(ref)
    r = srv.call(op="start", request=req(ws, DAEMON))
    srv.wait_output(r.get("session"), "ready")
    time.sleep(0.2)
    procs = descendants(srv.p.pid)
    srv.send('{"op":"continue","session":%d,"yield_ms":300000}' % r.get("session", 1))
    time.sleep(0.3)
    return srv, procs


def gone(what, close_in, close_out, ws):
    srv, procs = waiting(ws)
    t0 = time.monotonic()
    if close_out:
        srv.p.stdout.close()
    if close_in:
        srv.p.stdin.close()
    ended = srv.exited_within(10)
    took = time.monotonic() - t0
    t.ok(ended and took <= END_S, f"{what} while a call waits: the server ended in {took:.2f} s "
         f"(exit {srv.p.poll()})")
    left = wait_gone(procs, max(0.0, END_S - (time.monotonic() - t0)) + 0.2)
    t.ok(len(procs) >= 4 and not left, f"{what}: every process of the session gone with it "
         f"({len(left)} of {len(procs)} left)")
    if not ended:
        srv.p.kill()
        srv.p.wait(10)
    kill_all(wait_gone(procs, 5))


def pending_answered(ws):
    srv, procs = waiting(ws)
    srv.send('{"op":"list"}')
    srv.send('{"op":"start","request":{"version":1,"command":["true"]}}')
    t0 = time.monotonic()
    srv.p.stdin.close()
    a, b, c = srv.readline(5), srv.readline(5), srv.readline(5)
    ended = srv.exited_within(10)
    took = time.monotonic() - t0
    t.ok(a and a.get("session") == 1 and a.get("exited") is False,
         f"stdin closed: the waiting call answered at once, as it stands: {str(a)[:90]}")
    t.ok(b and isinstance(b.get("sessions"), list), f"the list sent before answered: {str(b)[:90]}")
    t.ok(c and "standard input has ended" in c.get("error", ""),
         f"the start sent before refused, nothing started: {str(c)[:90]}")
    t.ok(ended and took <= END_S, f"and the server ended in {took:.2f} s")
    if not ended:
        srv.p.kill()
        srv.p.wait(10)
    kill_all(wait_gone(procs, 5))


def sigkill(ws):
    srv = Server(ref)
    for tty in (False, True):
        r = srv.call(op="start", request=req(ws, DAEMON), tty=tty)
        srv.wait_output(r.get("session"), "ready")
    r = srv.call(op="start", request=req(ws, ["sleep", "1003"]))
    time.sleep(0.5)
    procs = descendants(srv.p.pid)
    srv.p.kill()
    srv.p.wait(10)
    left = wait_gone(procs, 10)
    t.ok(len(procs) >= 9 and not left, f"SIGKILL of the server: no worker or command of its "
         f"sessions left ({len(left)} of {len(procs)})")
    kill_all(left)


def worker_fds(ws):
    srv = Server(ref)
    for tty in (False, True):
        r = srv.call(op="start", request=req(ws, ["sh", "-c", "echo ready; exec sleep 1004"]), tty=tty)
        srv.wait_output(r.get("session"), "ready")
    bad, seen = [], 0
    for pid, _ in children(srv.p.pid):
        for fd in os.listdir(f"/proc/{pid}/fdinfo"):
            try:
                with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                    flags = int(f.read().split("flags:")[1].split()[0], 8)
            except (OSError, IndexError):
                continue
            seen += 1
            if int(fd) > 2 and not flags & 0o2000000:  # O_CLOEXEC
                bad.append(f"{pid}:{fd}->{os.readlink(f'/proc/{pid}/fd/{fd}') if os.path.exists(f'/proc/{pid}/fd/{fd}') else '?'}")
    t.ok(seen >= 6 and not bad, f"the workers' descriptors past 2 are all close-on-exec "
         f"({seen} seen; not: {bad})")
    procs = descendants(srv.p.pid)
    srv.end()
    kill_all(wait_gone(procs, 5))


ws = workspace()
try:
    gone("stdin closed", True, False, ws)
    gone("stdout closed", False, True, ws)
    gone("stdin and stdout closed", True, True, ws)
    pending_answered(ws)
    sigkill(ws)
    worker_fds(ws)
finally:
    shutil.rmtree(ws, ignore_errors=True)
t.done()
