#!/usr/bin/env python3
"""bench/launch_timings.py - where sandproof-ref's launch spends its time.

    python3 bench/launch_timings.py [--runs N] BUILD_DIR WORKSPACE [COMMAND...]

Runs `sandproof-ref exec --timings --write WS --cwd WS -- COMMAND` (default
/bin/true) N times (default 50) and prints, for each mark the runner and the
sandbox recorded (platforms/linux/enforce/timings.h), the median and p90 of
its offset from the runner's first mark, and the median of the step from the
mark before it in the same run; then the whole process's wall time, measured
here from outside (fork to reap).  A diagnostic, never a test.
"""
import os, statistics, subprocess, sys, time

def main():
    args = sys.argv[1:]
    runs = 50
    if args[:1] == ["--runs"]:
        runs, args = int(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    ref = os.path.join(args[0], "sandproof-ref")
    ws, cmd = args[1], args[2:] or ["/bin/true"]
    argv = [ref, "exec", "--timings", "--write", ws, "--cwd", ws, "--"] + cmd
    offs, steps, order, walls = {}, {}, [], []
    for _ in range(runs):
        t = time.monotonic()
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        walls.append((time.monotonic() - t) * 1000)
        if p.returncode != 0:
            sys.exit("exit %d: %s" % (p.returncode, p.stderr))
        for line in p.stderr.splitlines():
            if not line.startswith("sandproof-ref: timings: ") or " origin " in line:
                continue
            f = line[len("sandproof-ref: timings: "):].split(None, 5)
            # "OFF ms +STEP ms WHO LABEL", WHO being runner, "pid 1" or command
            parts = line[len("sandproof-ref: timings: "):].split(" ms ", 2)
            if len(parts) < 3:
                sys.exit("unexpected line: " + line)
            rest = parts[2].strip()
            label = rest.split(None, 2)[2] if rest.startswith("pid 1") else rest.split(None, 1)[1]
            if label not in offs:
                order.append(label)
            offs.setdefault(label, []).append(float(f[0]))
            steps.setdefault(label, []).append(float(f[3]))
    q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))]
    print("| mark | median offset [ms] | p90 offset [ms] | median step [ms] | p90 step [ms] | max step [ms] |\n|:---|---:|---:|---:|---:|---:|")
    for label in sorted(order, key=lambda l: statistics.median(offs[l])):
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            label, statistics.median(offs[label]), q(offs[label], 0.9),
            statistics.median(steps[label]), q(steps[label], 0.9), max(steps[label])))
    print("\nwhole process (fork to reap, from outside, with --timings): median %.2f ms, p10 %.2f, p90 %.2f, n=%d"
          % (statistics.median(walls), q(walls, 0.1), q(walls, 0.9), runs))

main()
