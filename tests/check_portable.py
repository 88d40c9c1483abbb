#!/usr/bin/env python3
"""tests/check_portable.py BUILD_DIR SOURCE_DIR - the posix build uses POSIX only
(and so does the macos platform built off macOS: the posix-sim).

What a macOS or Windows port starts from must not lean on Linux where no
one sees it.  In a build configured with -DSANDPROOF_PLATFORM=posix (and
CMAKE_EXPORT_COMPILE_COMMANDS), three things must hold, each read from
what the compiler really did, not from what the sources look like:

  1. includes: no file of this project includes a Linux-only header
     (linux/, asm/, sys/prctl.h, sys/syscall.h, sys/mount.h, seccomp.h,
     ...).  Every translation unit is compiled again with -H, which prints
     the include tree; a Linux header that libc includes for itself (glibc's
     errno.h includes linux/errno.h) is libc's business, one that a project
     file includes is a finding.
  2. symbols: no object file refers to a Linux-only function (prctl,
     syscall, pipe2, getrandom, renameat2, unshare, ...), read with nm -u.
  3. names: nothing under platforms/posix/ names Linux (posix builds only:
     the macos layer's comments say where the posix-sim runs).

Exit 0 when all hold, 1 otherwise (each finding named), 2 usage or a
build that is not the posix one.
"""
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

LINUX_DIRS = ("linux/", "asm/", "asm-generic/")
LINUX_HEADERS = {
    "sys/prctl.h", "sys/syscall.h", "sys/mount.h", "seccomp.h", "sys/random.h",
    "sys/pidfd.h", "sys/capability.h", "sys/epoll.h", "sys/inotify.h",
    "sys/fanotify.h", "sys/signalfd.h", "sys/eventfd.h", "sys/timerfd.h",
    "sys/sysmacros.h", "sys/personality.h", "sys/fsuid.h", "sys/vfs.h",
    "sys/statfs.h", "sys/sendfile.h", "sys/klog.h", "sys/ptrace.h", "mntent.h",
    "sys/auxv.h", "sys/quota.h", "sys/swap.h",
}
LINUX_SYMBOLS = {
    "prctl", "syscall", "pipe2", "dup3", "accept4", "getrandom", "renameat2",
    "unshare", "setns", "clone", "clone3", "pidfd_open", "pidfd_send_signal",
    "pidfd_getfd", "memfd_create", "mount", "umount", "umount2", "epoll_create",
    "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "signalfd",
    "eventfd", "inotify_init", "inotify_init1", "inotify_add_watch",
    "process_vm_readv", "process_vm_writev", "capget", "capset", "close_range",
    "pivot_root", "personality", "gettid", "getauxval", "seccomp_init",
    "seccomp_load", "seccomp_rule_add", "sched_setaffinity", "sched_getaffinity",
    "ptrace", "statx", "copy_file_range", "splice", "tee", "vmsplice",
}


def linux_header(path):
    p = path.replace("\\", "/")
    for inc in ("/usr/include/", "/usr/local/include/"):
        if inc in p:
            rel = p.split(inc, 1)[1]
            rel = re.sub(r"^[^/]*-linux-gnu[^/]*/", "", rel)  # multiarch dir
            return rel.startswith(LINUX_DIRS) or rel in LINUX_HEADERS
    return False


def ours(path, src, build):
    real = os.path.realpath(path)
    return real.startswith(src + os.sep) and not real.startswith(build + os.sep)


def recompile(entry):
    """The include tree of one translation unit: [(depth, path)]."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    r = subprocess.run(out + ["-H", "-fsyntax-only"], cwd=entry["directory"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    tree = []
    for line in r.stderr.splitlines():
        m = re.match(r"^(\.+) (.+)$", line)
        if m:
            tree.append((len(m.group(1)), os.path.normpath(os.path.join(entry["directory"], m.group(2)))))
    return entry["file"], r.returncode, tree


def include_findings(entries, src, build):
    bad = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for tu, rc, tree in ex.map(recompile, entries):
            if rc != 0:
                bad.append(f"{tu}: does not compile with -H")
            stack = [tu]
            for depth, path in tree:
                del stack[depth:]
                parent = stack[-1]
                if linux_header(path) and ours(parent, src, build):
                    bad.append(f"{os.path.relpath(parent, src)} includes {path}")
                stack.append(path)
    return sorted(set(bad))


def symbol_findings(entries):
    bad = []
    for e in entries:
        args = e.get("arguments") or shlex.split(e["command"])
        if "-o" not in args:
            continue
        obj = os.path.join(e["directory"], args[args.index("-o") + 1])
        r = subprocess.run(["nm", "-u", obj], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        for line in r.stdout.splitlines():
            name = line.split()[-1].split("@")[0]
            if name in LINUX_SYMBOLS:
                bad.append(f"{e['file']} calls {name}")
    return sorted(set(bad))


def name_findings(src):
    bad = []
    root = os.path.join(src, "platforms", "posix")
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    if re.search(r"linux", line, re.I):
                        bad.append(f"{os.path.relpath(p, src)}:{n} names Linux: {line.strip()}")
    return bad


def main():
    if len(sys.argv) != 3:
        print("usage: check_portable.py BUILD_DIR SOURCE_DIR", file=sys.stderr)
        return 2
    build, src = (os.path.realpath(a) for a in sys.argv[1:])
    try:
        with open(os.path.join(build, "compile_commands.json")) as fh:
            db = json.load(fh)
        with open(os.path.join(build, "CMakeCache.txt")) as fh:
            platform = re.search(r"^SANDPROOF_PLATFORM:\w+=(.*)$", fh.read(), re.M)
    except OSError as e:
        print(f"check_portable: {e}", file=sys.stderr)
        return 2
    if not platform or platform.group(1) not in ("posix", "macos"):
        print("check_portable: not a -DSANDPROOF_PLATFORM=posix (or macos) build",
              file=sys.stderr)
        return 2
    entries = [e for e in db if ours(os.path.join(e["directory"], e["file"]), src, build)]
    if not entries:
        print("check_portable: no translation unit of this project in the compile database",
              file=sys.stderr)
        return 2
    status = 0
    checks = [("includes", include_findings(entries, src, build)),
              ("symbols", symbol_findings(entries))]
    if platform.group(1) == "posix":
        checks.append(("names", name_findings(src)))
    for what, found in checks:
        if found:
            status = 1
            print(f"not ok - {what}: {len(found)} Linux-only use(s)")
            for f in found:
                print(f"  {f}")
        else:
            print(f"ok - {what}: nothing Linux-only in {len(entries)} translation units"
                  if what != "names" else "ok - names: nothing in platforms/posix/ names Linux")
    return status


if __name__ == "__main__":
    sys.exit(main())
