#!/usr/bin/env python3
"""test_serve_input.py SANDPROOF_REF - input to `sandproof-ref serve`
sessions (docs/CONTRACT.md, SESS-1):
  - end of input reaches a terminal session's command: `cat` on a pty ends
    after input ending a line and after a partial line; the terminal stays
    open, so a command reading again gets later input and a later end;
  - on pipes `eof` closes stdin: the command sees the end, later input is
    refused by name;
  - at most 1 MiB of input waits for a command: what it has not read yet of
    earlier calls counts (a command that never reads: 600 KiB taken, 600
    KiB more refused naming the backlog, nothing of it written); a single
    chunk over 1 MiB is refused too."""
import shutil, sys

from servelib import Server, Tap, req, workspace

ref = sys.argv[1]
t = Tap()
KIB = 1024


def until_exit(srv, sid, out=b"", limit_s=15.0):
    o, last = srv.wait_output(sid, "\0never\0", limit_s)
    return out + o, last


def tty_eof(ws):
    srv = Server(ref)
    for text, want in (("hello\n", b"hello"), ("partial", b"partial"), ("", b"")):
        r = srv.call(op="start", request=req(ws, ["cat"]), tty=True)
        sid = r.get("session")
        a = srv.call(op="continue", session=sid, input=text, eof=True, yield_ms=3000)
        out, last = (a.get("output", b""), a) if a.get("exited") else until_exit(srv, sid, a.get("output", b""), 5)
        t.ok(last.get("exited") and want in out and (last.get("outcome") or {}).get("kind") == "success",
             f"tty: cat ends after {text!r} and eof: exited {last.get('exited')}, output {out!r}")
    r = srv.call(op="start", request=req(ws, ["sh", "-c", "cat; echo after-one; cat; echo after-two"]),
                 tty=True)
    sid = r.get("session")
    a = srv.call(op="continue", session=sid, eof=True, yield_ms=200)
    out, _ = srv.wait_output(sid, "after-one", 5)
    out = a.get("output", b"") + out
    b = srv.call(op="continue", session=sid, input="more\n", eof=True, yield_ms=3000)
    out2, last = (b.get("output", b""), b) if b.get("exited") else until_exit(srv, sid, b.get("output", b""), 5)
    t.ok(b"after-one" in out and "error" not in b and b"more" in out2 and b"after-two" in out2
         and last.get("exited"),
         f"tty: after an eof the terminal takes more input and a second eof: {out!r} {out2!r} "
         f"{b.get('error', '')}")
    srv.end()


def pipe_eof(ws):
    srv = Server(ref)
    r = srv.call(op="start", request=req(ws, ["sh", "-c", "cat; echo end-seen; exec sleep 1000"]))
    sid = r.get("session")
    a = srv.call(op="continue", session=sid, input="x\n", eof=True, yield_ms=100)
    out = a.get("output", b"")
    if b"end-seen" not in out:
        out += srv.wait_output(sid, "end-seen", 5)[0]
    b = srv.call(op="continue", session=sid, input="late\n")
    t.ok(b"end-seen" in out, "pipes: eof reaches the command")
    t.ok("its stdin is closed" in b.get("error", ""), f"pipes: later input refused: {b}")
    srv.end()


def backlog(ws):
    srv = Server(ref)
    r = srv.call(op="start", request=req(ws, ["sleep", "1000"]))
    sid = r.get("session")
    a = srv.call(op="continue", session=sid, input="a" * (600 * KIB), yield_ms=100)
    b = srv.call(op="continue", session=sid, input="b" * (600 * KIB), yield_ms=100)
    t.ok("error" not in a and a.get("session") == sid, f"600 KiB of input taken: {str(a)[:80]}")
    t.ok("not read yet" in b.get("error", "") and "nothing written" in b.get("error", ""),
         f"600 KiB more, with the first not read, refused naming the backlog: {b.get('error', b)}")
    c = srv.call(op="continue", session=sid, input="c", yield_ms=0)
    t.ok("error" not in c, "a byte more is still taken (the refused input was not queued)")
    r = srv.call(op="start", request=req(ws, ["sleep", "1000"]))
    d = srv.call(op="continue", session=r.get("session"), input="d" * (1024 * KIB + 1))
    t.ok("nothing written" in d.get("error", ""), f"a chunk of 1 MiB + 1 refused: {d.get('error', d)}")
    srv.call(op="stop_all")
    srv.end()


ws = workspace()
try:
    tty_eof(ws)
    pipe_eof(ws)
    backlog(ws)
finally:
    shutil.rmtree(ws, ignore_errors=True)
t.done()
