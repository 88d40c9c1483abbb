#!/usr/bin/env python3
"""test_changes_events.py - the change report's event source (OUT-8) and
its fallbacks, checked against the host.

  test_changes_events.py check SANDPROOF
      every change scenario (sess.changes_*) run with SANDPROOF_REF_CHANGES=
      check: each run reports the walk's set and logs whether the event
      source's set was the same; every line must agree, and there must be
      one for each run (a log that stayed empty proves nothing).
  test_changes_events.py fallback SANDPROOF_REF SP_FAULT
      each way the events cannot serve forced, and the report then said so
      and still right: fanotify refused (a seccomp fault on fanotify_init),
      a file system that gives no file handles (overlayfs, root: a mount
      namespace of the test's own), the queue overflowed (the runner told
      not to drain it during the run: SANDPROOF_REF_CHANGES_DRAIN=end;
      as root also the default, bounded queue: SANDPROOF_REF_CHANGES_QUEUE=
      limited); the events whole beside another process's tree of 170 000
      files made and deleted on the same file system (root); and, the
      control, the events used when nothing forces the walk.

As root and as any other user: what each expects depends on which it is
(root's group has filesystem marks and no listing, so an overflow leaves
its report incomplete, said so; an unprivileged one's listing makes the
report whole again by a walk compared with it).  Prints TAP-like lines;
exit 1 on a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

RESULTS = {"pass": 0, "fail": 0, "skip": 0}
ROOT = os.geteuid() == 0


def ok(cond, what):
    RESULTS["pass" if cond else "fail"] += 1
    print("%sok %d - %s" % ("" if cond else "not ", sum(RESULTS.values()), what), flush=True)
    return cond


def skip(what):
    RESULTS["skip"] += 1
    print("ok %d - # SKIP %s" % (sum(RESULTS.values()), what), flush=True)


def exec_json(argv, env=None, timeout=120):
    """argv's outcome (the JSON on stdout), or None."""
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(argv, capture_output=True, env=e, timeout=timeout)
    try:
        return json.loads(r.stdout)
    except ValueError:
        sys.stderr.write("no outcome: exit %d, %s\n" % (r.returncode, r.stderr.decode()[-400:]))
        return None


def ref_exec(ref, ws, shell, prefix=(), env=None):
    return exec_json(list(prefix) + [ref, "exec", "--json", "--write", ws, "--cwd", ws, "--",
                                     "sh", "-c", shell], env)


def workspace(tmp, name, files):
    ws = os.path.join(tmp, name)
    os.mkdir(ws)
    for f in files:
        with open(os.path.join(ws, f), "w") as fh:
            fh.write("x\n")
    return ws


def summary(o):
    c = (o or {}).get("changes") or {}
    return "%s, fallback %r, %s created %s modified %s deleted, truncated %s" % (
        c.get("mechanism"), c.get("fallback"), c.get("created"), c.get("modified"),
        c.get("deleted"), c.get("truncated"))


def listed(o, op, path):
    return any(e["op"] == op and e["path"] == path for e in o["changes"]["entries"])


def check_mode(sp):
    tmp = tempfile.mkdtemp(prefix="sandproof-chcheck-", dir="/var/tmp")
    log = os.path.join(tmp, "check.log")
    try:
        env = dict(os.environ, SANDPROOF_REF_CHANGES="check", SANDPROOF_REF_CHANGES_LOG=log)
        r = subprocess.run([sp, "run", "--runner", "ref", "--filter", "sess.changes_*", "--out",
                            os.path.join(tmp, "out")], capture_output=True, env=env, timeout=900)
        out = r.stdout.decode()
        rows = [l.split() for l in out.splitlines() if l.split()[:1] in (["pass"], ["fail"])]
        # sess.changes_many_files bounds the runner's memory, which check
        # mode doubles (both mechanisms, both sets of 100 000 paths):
        # there only "unbounded" is allowed
        bad = [r for r in rows if r[0] != "pass" and
               not (r[1] == "sess.changes_many_files" and "observed=unbounded" in r)]
        ok(len(rows) >= 6 and not bad, "the %d change scenarios pass with both mechanisms run%s" % (
            len(rows), "" if not bad else ": " + out[-600:]))
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        verdicts = [json.loads(l) for l in lines]
        ok(len(verdicts) >= len(rows) + 1,
           "one comparison per run: %d lines for %d scenarios" % (len(verdicts), len(rows)))
        bad = [v for v in verdicts if not v.get("agree")]
        ok(not bad, "the walk and the events report the same set in every run%s" % (
            "" if not bad else ": " + json.dumps(bad[:3])))
        ok(sum(v.get("events", 0) for v in verdicts) >= 100000,
           "the comparisons cover %d changes (sess.changes_many_files' 100 000 among them)" %
           sum(v.get("events", 0) for v in verdicts))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fallback_no_fanotify(ref, fault, tmp):
    ws = workspace(tmp, "nofan", ["old"])
    o = ref_exec(ref, ws, "echo n > new; rm old", prefix=[fault, "fanotify_init", "EPERM", "--"])
    ok(o and o["changes"]["mechanism"] == "walk" and
       "fanotify unavailable" in (o["changes"]["fallback"] or ""),
       "fanotify refused: the walk, and the outcome says why (%s)" % summary(o))
    ok(o and listed(o, "created", ws + "/new") and listed(o, "deleted", ws + "/old") and
       not os.path.exists(ws + "/old") and os.path.exists(ws + "/new"),
       "  its report is right (the host agrees)")


def fallback_no_handles(ref, tmp):
    if not ROOT:
        skip("a file system without file handles needs root here (overlayfs in a user "
             "namespace takes inode marks; no other unprivileged mount refuses them)")
        return
    base = os.path.join(tmp, "ovl")
    for d in ("l", "u", "w", "m"):
        os.makedirs(os.path.join(base, d))
    m = base + "/m"
    script = ("mount -t overlay sp-ovl -o lowerdir=%s/l,upperdir=%s/u,workdir=%s/w %s && "
              "echo old > %s/old && exec \"$@\"" % (base, base, base, m, m))
    o = exec_json(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                   ref, "exec", "--json", "--write", m, "--cwd", m, "--", "sh", "-c",
                   "echo n > new; rm old"])
    ok(o and o["changes"]["mechanism"] == "walk" and
       "cannot watch" in (o["changes"]["fallback"] or ""),
       "overlayfs (no file handles): the walk, and why (%s)" % summary(o))
    ok(o and listed(o, "created", m + "/new") and listed(o, "deleted", m + "/old") and
       os.path.exists(base + "/u/new"),
       "  its report is right (the upper layer holds the new file)")


OVERFLOW = ("python3 -c \"import os\nfor i in range(20000): os.close(os.open('f%d' % i, "
            "os.O_CREAT | os.O_WRONLY, 0o644))\nos.unlink('gone')\nopen('mod', 'a').write('x')\"")


def fallback_overflow(ref, tmp):
    ws = workspace(tmp, "flood", ["gone", "mod"])
    env = {"SANDPROOF_REF_CHANGES_DRAIN": "end"}
    if ROOT:
        env["SANDPROOF_REF_CHANGES_QUEUE"] = "limited"
    o = ref_exec(ref, ws, OVERFLOW, env=env)
    made = len([n for n in os.listdir(ws) if n.startswith("f")])
    ok(made == 20000 and o and o["kind"] == "success", "20 000 files made (%d)" % made)
    c = o["changes"] if o else {}
    said = "overflowed" in (c.get("fallback") or "")
    if ROOT:
        ok(c.get("mechanism") == "events" and said and c.get("truncated") is True,
           "root, overflowed: incomplete, said so, truncated (%s)" % summary(o))
        sure = all(os.path.exists(e["path"]) for e in c.get("entries", []) if e["op"] == "created")
        ok(sure and 0 < c.get("created", 0) <= 20000 and c.get("deleted", 0) <= 1,
           "  what it lists is certain (every created path exists)")
    else:
        ok(c.get("mechanism") == "events" and said and "listing" in c.get("fallback", "") and
           c.get("truncated") is False,
           "unprivileged, overflowed: compared by a walk with the start's listing (%s)" % summary(o))
        ok(c.get("created") == 20000 and c.get("deleted") == 1 and c.get("modified") == 1 and
           c.get("dropped") == 20002 - len(c.get("entries", [])),
           "  and whole: 20 000 created, the deletion and the write (counted; 256 listed)")


# Another process's tree made and deleted beside a run, on the same file
# system: root's filesystem mark sees every one of its events.  The run
# makes 5000 files (past FW_FILTER_AFTER: the events of other directories
# are then dropped), waits for the churn to end (a marker outside the workspace), then links a file present
# at the start (a: modified), unlinks one of two names of another (c2
# deleted, c modified) and exits.  Its report must be whole and the same as
# the walk's for the same command; before the limbo, every unlink of the
# churn interned an object (its link-count event has no name) and the
# report came back truncated at the bound of 163 840 objects.
CHURN_N = 170000
CHURN_RUN = ("python3 -c \"import os\nfor i in range(5000): os.close(os.open('f%d' % i, "
             "os.O_CREAT | os.O_WRONLY, 0o644))\"; i=0; while [ ! -e \"$0\" ] && [ $i -lt 1200 ]; "
             "do sleep 0.1; i=$((i + 1)); done; ln a a2; rm c2")


def changes_set(o):
    c = (o or {}).get("changes") or {}
    return (c.get("created"), c.get("modified"), c.get("deleted"), c.get("truncated"))


def churn_beside(ref, tmp):
    runs = {}
    for mode in ("walk", "events"):
        ws = workspace(tmp, "churn-" + mode, ["a", "c"])
        os.link(ws + "/c", ws + "/c2")
        env = dict(os.environ)
        if mode == "walk":
            env["SANDPROOF_REF_CHANGES"] = "walk"
        go = os.path.join(tmp, "go-" + mode) # outside the write root: no change of its own
        p = subprocess.Popen([ref, "exec", "--json", "--write", ws, "--cwd", ws, "--", "sh", "-c",
                              CHURN_RUN, go], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        if mode == "events" and ROOT:
            other = os.path.join(tmp, "churn-other")
            os.mkdir(other)
            for i in range(CHURN_N):
                os.close(os.open("%s/g%d" % (other, i), os.O_CREAT | os.O_WRONLY, 0o644))
            shutil.rmtree(other)
        open(go, "w").close()
        out, err = p.communicate(timeout=300)
        try:
            runs[mode] = (json.loads(out),)
        except ValueError:
            runs[mode] = (None,)
            sys.stderr.write("no outcome: %s\n" % err.decode()[-400:])
    w, e = runs["walk"][0], runs["events"][0]
    ok(e and e["changes"]["mechanism"] == "events" and e["changes"]["truncated"] is False,
       "%d files of another process made and deleted beside a run: its events whole (%s)" % (
           CHURN_N if ROOT else 0, summary(e)))
    # counted, not listed: of 5001 creations only 256 are listed, and which
    # ones is each mechanism's own order
    ok(w and e and changes_set(w)[:4] == changes_set(e)[:4] == (5001, 2, 1, False),
       "  and the walk's counts: a2 and 5000 files created, a and c modified (links), c2 "
       "deleted, after the filter began (%s against %s)" % (changes_set(e)[:4],
                                                           changes_set(w)[:4]))


def events_used(ref, tmp):
    ws = workspace(tmp, "plain", ["old"])
    o = ref_exec(ref, ws, "echo n > new; rm old")
    ok(o and o["changes"]["mechanism"] == "events" and o["changes"]["fallback"] is None and
       listed(o, "created", ws + "/new") and listed(o, "deleted", ws + "/old"),
       "control: nothing forced, the events report a 1 ms command's changes (%s)" % summary(o))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        check_mode(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "fallback":
        ref, fault = sys.argv[2], sys.argv[3]
        tmp = tempfile.mkdtemp(prefix="sandproof-chfall-", dir="/var/tmp")
        try:
            events_used(ref, tmp)
            fallback_no_fanotify(ref, fault, tmp)
            fallback_no_handles(ref, tmp)
            fallback_overflow(ref, tmp)
            churn_beside(ref, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        sys.stderr.write(__doc__)
        return 2
    print("%d passed, %d failed, %d skipped" % (RESULTS["pass"], RESULTS["fail"], RESULTS["skip"]))
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
