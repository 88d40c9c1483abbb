#!/usr/bin/env python3
# paired_run.py OLD NEW REQUEST N - two sandproof-ref builds on one request,
# in pairs (old new, new old, ...: the order alternates so a drift of the
# machine's load falls on both), N pairs after three warm-up pairs; the
# medians, p10/p90, the paired difference and ratio.  TMPDIR for both is
# $PAIRED_TMPDIR (default /dev/shm/spb).  Used for the macOS canary's cost
# (RESULTS.md, "The macOS canary").
import subprocess, time, statistics, sys, os
old, new, req, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, TMPDIR=os.environ.get("PAIRED_TMPDIR", "/dev/shm/spb"))
def one(exe):
    t = time.perf_counter()
    r = subprocess.run([exe, "run", "--request", req], capture_output=True, env=env)
    dt = (time.perf_counter() - t) * 1000
    assert b'"success"' in r.stdout, r.stdout[:300]
    return dt
for _ in range(3): one(old); one(new)
a, b, ratio = [], [], []
for i in range(n):
    if i % 2: x = one(old); y = one(new)
    else: y = one(new); x = one(old)
    a.append(x); b.append(y); ratio.append(y / x)
q = lambda v, p: sorted(v)[int(p * (len(v) - 1))]
print("old median %.1f ms (p10 %.1f p90 %.1f)" % (statistics.median(a), q(a, .1), q(a, .9)))
print("new median %.1f ms (p10 %.1f p90 %.1f)" % (statistics.median(b), q(b, .1), q(b, .9)))
print("paired new-old median %.1f ms; ratio median %.2fx (p10 %.2f p90 %.2f)" % (statistics.median([y - x for x, y in zip(a, b)]), statistics.median(ratio), q(ratio, .1), q(ratio, .9)))
