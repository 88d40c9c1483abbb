#!/usr/bin/env python3
"""test_serve_proto.py SANDPROOF_REF - what one line of `sandproof-ref serve`
may be (docs/CONTRACT.md, SESS-1):
  - member names match exactly: a member named "" is refused at once (it
    once spun the server forever, SIGTERM unheard), names that merely
    contain the allowed ones ("tty yield_ms", "input eof") are refused and
    start nothing, a repeated member is reported as a duplicate, an escaped
    spelling of a name is the name;
  - integers are JSON integers: 1.0, 100e-2, 1073741824.00000001, -0 and an
    underflow refused wherever a number is taken (yield_ms, session, and the
    request's timeout_ms, which 1e-400 once made "no timeout");
  - a session number past 2^53 is printed exactly as written;
  - a line of exactly SERVE_LINE_MAX bytes is taken, one byte more is
    refused and skipped, and the server goes on;
  - SIGTERM ends the server within a second, whatever the last line was."""
import json, os, shutil, signal, sys, time

from servelib import Server, Tap, req, workspace

ref = sys.argv[1]
t = Tap()
LINE_MAX = 6 * 1024 * 1024 + 65536  # SERVE_LINE_MAX


def empty_name():
    srv = Server(ref)
    r = srv.raw('{"op":"list","":0}', 5)
    t.ok(r.get("error", "").startswith('list."": unknown field'),
         f'a member named "" refused at once: {r}')
    r = srv.call(op="list")
    t.ok(isinstance(r.get("sessions"), list), f"and the next line answered: {r}")
    srv.p.kill()
    srv.p.wait(10)


def names(srv, ws):
    marker = ws + "/ran"
    start = {"op": "start", "request": req(ws, ["sh", "-c", f": > {marker}"])}
    for extra, want in (('"tty yield_ms":5', 'start.tty yield_ms: unknown field'),
                        ('"yield_ms tty":5', 'start.yield_ms tty: unknown field'),
                        ('"ty":true', 'start.ty: unknown field'),
                        ('"tty":true,"tty":false', 'start.tty: duplicate field'),
                        ('"op":"start"', 'start.op: duplicate field')):
        r = srv.raw(json.dumps(start)[:-1] + "," + extra + "}", 10)
        t.ok(r.get("error", "") .startswith(want), f"start with {extra}: {r.get('error') or r}")
    r = srv.call(op="start", request=req(ws, ["sh", "-c", "echo ready; exec sleep 1000"]))
    sid = r.get("session")
    for extra, want in (('"input eof":true', "continue.input eof: unknown field"),
                        ('"input":"a","input":"b"', "continue.input: duplicate field"),
                        ('"session":%d' % sid, "continue.session: duplicate field"),
                        ('"interrupt":1', "continue.interrupt: must be true or false")):
        r = srv.raw('{"op":"continue","session":%d,%s}' % (sid, extra), 10)
        t.ok(r.get("error", "").startswith(want), f"continue with {extra}: {r.get('error') or r}")
    r = srv.raw('{"\\u006fp":"list","o\\u0070":"list"}', 10)
    t.ok(r.get("error", "") == "list.op: duplicate field", f"an escaped spelling is the name: {r}")
    r = srv.raw('{"\\u006fp":"list"}', 10)
    t.ok(isinstance(r.get("sessions"), list), f"an escaped op answered: {r}")
    time.sleep(0.3)
    t.ok(not os.path.exists(marker), "none of the refused starts ran its command")
    srv.call(op="stop", session=sid)


def numbers(srv, ws):
    r = srv.call(op="start", request=req(ws, ["true"]), yield_ms=0)
    sid = r.get("session", 1)
    for member in ("1.0", "100e-2", "1e-400", "1073741824.00000001", "-0", "1E3", "-1", '"5"'):
        r = srv.raw('{"op":"continue","session":%d,"yield_ms":%s}' % (sid, member), 10)
        t.ok(r.get("error", "").startswith("continue.yield_ms: must be a non-negative integer"),
             f"yield_ms {member}: {r.get('error') or r}")
        r = srv.raw('{"op":"continue","session":%s}' % member, 10)
        t.ok(r.get("error", "").startswith("continue.session: missing or not a session number"),
             f"session {member}: {r.get('error') or r}")
    for tm in ("1e-400", "1.0", "0.0", "100e-2"):
        text = json.dumps({"op": "start", "request": req(ws, ["sleep", "1000"])})
        text = text.replace('"version": 1', '"timeout_ms": %s, "version": 1' % tm)
        r = srv.raw(text, 10)
        t.ok(r.get("error", "").startswith("start.request: timeout_ms: must be an integer"),
             f"request timeout_ms {tm}: {r.get('error') or r}")
    for big in ("9007199254740993", "18446744073709551615", "18446744073709551616",
                "123456789012345678901234567890"):
        r = srv.raw('{"op":"continue","session":%s}' % big, 10)
        t.ok(r.get("error", "").startswith(f"continue.session: no session {big} "),
             f"session {big} printed exactly: {r.get('error') or r}")
    r = srv.raw('{"op":"continue","session":%d,"yield_ms":99999999999999999999999}' % sid, 10)
    t.ok(r.get("session") == sid, "a yield_ms past 2^64 is an integer, clamped")


def line_max(srv):
    head, tail = '{"op":"list"', "}"
    exact = head + " " * (LINE_MAX - len(head) - len(tail)) + tail
    r = srv.raw(exact, 60)
    t.ok(isinstance(r.get("sessions"), list), f"a line of exactly {LINE_MAX} bytes is taken: "
         + str(r.get("error") or "answered")[:100])
    r = srv.raw(head + " " + exact[len(head):], 60)
    t.ok(r.get("error", "").startswith("line: longer than %d bytes" % LINE_MAX),
         f"a line of {LINE_MAX + 1} bytes refused: {str(r)[:100]}")
    r = srv.call(op="list")
    t.ok(isinstance(r.get("sessions"), list), "the next line is answered")


def sigterm(ws):
    srv = Server(ref)
    srv.call(op="start", request=req(ws, ["sh", "-c", "trap '' TERM; sleep 1000"]))
    srv.send('{"op":"list","":0}')
    time.sleep(0.5)
    t0 = time.monotonic()
    srv.p.send_signal(signal.SIGTERM)
    done = srv.exited_within(5)
    took = time.monotonic() - t0
    t.ok(done and took <= 1.0, f"SIGTERM after a bad line: the server ended in {took:.2f} s")
    if not done:
        srv.p.kill()
        srv.p.wait(10)


ws = workspace()
try:
    empty_name()
    for part in (names, numbers, line_max):
        srv = Server(ref)
        part(srv, ws) if part != line_max else part(srv)
        t.ok(srv.end() == 0, f"{part.__name__}: the server ends with 0")
    sigterm(ws)
finally:
    shutil.rmtree(ws, ignore_errors=True)
t.done()
