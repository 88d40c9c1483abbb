#!/usr/bin/python3
"""ci/check_github.py WORKFLOW ACTION [REPO] - the project's GitHub workflow
and its Action, loaded as GitHub would (a YAML load: Debian's python3-yaml)
and checked for the keys GitHub requires:

  workflow  a mapping with `on` (YAML 1.1 reads a bare `on` as true: either
            is accepted) and a non-empty `jobs`; each job `runs-on` and a
            non-empty `steps` list (or `uses`, a called workflow); each step
            exactly one of `run` or `uses`, a known `shell` if any, and a
            `uses` of the form owner/repo@ref, ./path or docker://...
  action    `name`, `description`, `inputs` (each with a description),
            `runs.using: composite` with steps, each a `run` with its
            `shell` or a `uses`; every ${{ inputs.X }} names a declared
            input

In both, every `sh ci/NAME` or `ci/NAME` script a step runs exists under
REPO (default: the directory above ci/).  Exit 0 when both hold, 1 naming
each problem, 2 usage or unreadable file.
"""
import os
import re
import sys

try:
    import yaml
except ImportError:
    sys.stderr.write("check_github.py: no yaml module (Debian: python3-yaml, ci/deps.sh)\n")
    sys.exit(2)

SHELLS = {"bash", "sh", "pwsh", "powershell", "python", "cmd"}
USES = re.compile(r"^([\w.-]+/[\w./-]+@[\w./-]+|\./[\w./-]*|docker://\S+)$")
SCRIPT = re.compile(r"(?:^|[\s/\"'])(ci/[\w.-]+\.(?:sh|py))")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        sys.stderr.write(f"check_github.py: {path}: {e}\n")
        sys.exit(2)


def check_step(where, step, problems, repo, shell_required):
    if not isinstance(step, dict):
        problems.append(f"{where}: not a mapping")
        return
    has_run, has_uses = "run" in step, "uses" in step
    if has_run == has_uses:
        problems.append(f"{where}: needs exactly one of run or uses")
    if has_uses and not USES.match(str(step["uses"])):
        problems.append(f"{where}: uses '{step['uses']}' is not owner/repo@ref, ./path or docker://")
    if has_run:
        shell = step.get("shell")
        if shell is None and shell_required:
            problems.append(f"{where}: a composite action's run step needs a shell")
        if shell is not None and str(shell).split()[0] not in SHELLS and "{0}" not in str(shell):
            problems.append(f"{where}: unknown shell '{shell}'")
        for script in SCRIPT.findall(str(step["run"])):
            if not os.path.isfile(os.path.join(repo, script)):
                problems.append(f"{where}: runs {script}, which does not exist")


def check_workflow(path, repo):
    wf, problems = load(path), []
    if not isinstance(wf, dict):
        return [f"{path}: not a mapping"]
    if "on" not in wf and True not in wf:
        problems.append(f"{path}: no 'on' (the events that trigger it)")
    jobs = wf.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        return problems + [f"{path}: no jobs"]
    for name, job in jobs.items():
        where = f"{path}: job {name}"
        if not isinstance(job, dict):
            problems.append(f"{where}: not a mapping")
            continue
        if "uses" in job:
            continue
        if "runs-on" not in job:
            problems.append(f"{where}: no runs-on")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps:
            problems.append(f"{where}: no steps")
            continue
        for i, step in enumerate(steps):
            label = step.get("name", i + 1) if isinstance(step, dict) else i + 1
            check_step(f"{where}, step {label}", step, problems, repo, False)
    return problems


def check_action(path, repo):
    act, problems = load(path), []
    if not isinstance(act, dict):
        return [f"{path}: not a mapping"]
    for key in ("name", "description", "inputs", "runs"):
        if key not in act:
            problems.append(f"{path}: no '{key}'")
    inputs = act.get("inputs") or {}
    if not isinstance(inputs, dict):
        problems.append(f"{path}: inputs is not a mapping")
        inputs = {}
    for name, spec in inputs.items():
        if not isinstance(spec, dict) or not spec.get("description"):
            problems.append(f"{path}: input {name} has no description")
    runs = act.get("runs") or {}
    if runs.get("using") != "composite":
        problems.append(f"{path}: runs.using is '{runs.get('using')}', not composite")
    steps = runs.get("steps")
    if not isinstance(steps, list) or not steps:
        problems.append(f"{path}: runs.steps is empty")
        steps = []
    for i, step in enumerate(steps):
        label = step.get("name", i + 1) if isinstance(step, dict) else i + 1
        check_step(f"{path}: step {label}", step, problems, repo, True)
    with open(path, encoding="utf-8") as f:
        for used in re.findall(r"\$\{\{\s*inputs\.([\w-]+)", f.read()):
            if used not in inputs:
                problems.append(f"{path}: uses inputs.{used}, which is not declared")
    return problems


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: check_github.py WORKFLOW ACTION [REPO]\n")
        return 2
    repo = argv[3] if len(argv) == 4 else os.path.dirname(os.path.dirname(os.path.abspath(argv[0])))
    problems = check_workflow(argv[1], repo) + check_action(argv[2], repo)
    for p in problems:
        print(f"not ok - {p}")
    if problems:
        return 1
    print(f"ok - {argv[1]} and {argv[2]} load, with the keys GitHub requires")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
