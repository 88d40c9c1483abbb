#!/usr/bin/env python3
"""test_serve_mem.py SANDPROOF_REF [--sanitized] - what one line may cost
`sandproof-ref serve` (docs/CONTRACT.md, SESS-3): with --max-sessions 1
--output-bytes 4096 the server's peak resident size (VmHWM, read from
/proc on the host) stays under SESS-3's bound, N x (ring + 1 MiB + 2 MiB)
+ SERVE_RSS_BASE + one more ring, after the costliest lines it can get:
  - a line of 6 MiB of `[0,0,...]` in an unknown member (a tree of it would
    be millions of nodes: the line is never a tree);
  - a start whose request is 1 MiB of numbers (refused by the request
    parser, after it built its tree: PROC-7's part);
  - a start whose request is 1 MiB of arguments (a session of it runs);
  - 1 MiB of input written as 6 MiB of \\u0001 escapes to that session.
Each line is answered as it should be.  Under a sanitizer (--sanitized)
the size is printed, never judged: ASan's shadow and quarantine are not the
server's."""
import json, shutil, sys

from servelib import Server, Tap, req, workspace

ref = sys.argv[1]
sanitized = "--sanitized" in sys.argv[2:]
t = Tap()
MIB = 1024 * 1024
LINE_MAX = 6 * MIB + 65536          # SERVE_LINE_MAX
RING = 4096
RSS_BASE = 80 * MIB                 # SERVE_RSS_BASE (serve.h)
BOUND_KIB = (1 * (RING + 1 * MIB + 2 * MIB) + RSS_BASE + RING) // 1024


def hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def padded_list(n_bytes):
    head, tail = '{"op":"list","x":[0', "]}"
    return head + ",0" * ((n_bytes - len(head) - len(tail)) // 2) + tail


def request_text(ws, fill, n_bytes):
    """A request of about n_bytes whose command array ends in fill items."""
    base = json.dumps(req(ws, ["sh", "-c", "echo ready; exec sleep 1000"]))
    at = base.index('"echo ready; exec sleep 1000"') + len('"echo ready; exec sleep 1000"')
    count = (n_bytes - len(base) - 16) // (len(fill) + 1)
    return base[:at] + ("," + fill) * count + base[at:]


ws = workspace()
try:
    srv = Server(ref, "--max-sessions", "1", "--output-bytes", str(RING))
    line = padded_list(6 * MIB)
    r = srv.raw(line, 60)
    t.ok(len(line) <= LINE_MAX and r.get("error", "").startswith("list.x: unknown field"),
         f"a {len(line)}-byte line of [0,0,...] refused by name: {str(r)[:80]}")
    bad = request_text(ws, "0", MIB - 64).replace('"command": ["sh"', '"command": [0, "sh"')
    r = srv.raw('{"op":"start","request":%s}' % bad, 60)
    t.ok("command[0]: must be a string" in r.get("error", ""),
         f"a 1 MiB request of numbers refused by the request parser: {str(r)[:100]}")
    good = request_text(ws, '"%s"' % ("a" * 4096), MIB - 64)  # within ARG_MAX
    r = srv.raw('{"op":"start","request":%s}' % good, 60)
    sid = r.get("session")
    out, _ = srv.wait_output(sid, "ready", 20) if sid else (b"", {})
    t.ok(len(good) <= MIB and b"ready" in r.get("output", b"") + out,
         f"a {len(good)}-byte request of arguments runs as a session")
    text = '{"op":"continue","session":%d,"input":"%s","yield_ms":0}' % (sid or 0, "\\u0001" * MIB)
    r = srv.raw(text, 60)
    t.ok(len(text) <= LINE_MAX and r.get("session") == sid,
         f"1 MiB of input as a {len(text)}-byte line of escapes taken: {str(r.get('error', 'ok'))[:80]}")
    peak = hwm_kib(srv.p.pid)
    if sanitized:
        print(f"# peak RSS {peak} KiB (bound {BOUND_KIB} KiB): not judged under a sanitizer")
    else:
        t.ok(peak is not None and peak <= BOUND_KIB,
             f"the server's peak RSS {peak} KiB is within SESS-3's bound {BOUND_KIB} KiB")
    srv.call(op="stop_all")
    t.ok(srv.end() == 0, "the server ends with 0")
finally:
    shutil.rmtree(ws, ignore_errors=True)
t.done()
