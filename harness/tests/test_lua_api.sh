#!/bin/sh
# test_lua_api.sh SANDPROOF - the Lua API's strictness, driven through the
# harness with deliberately wrong scenarios (docs/SCENARIOS.md, "the API's
# conventions"):
#   - a scenario file with an unknown field or a field of the wrong type does
#     not load: list and run exit 2 naming the file and the field;
#   - every sp.* function and every t:/lib helper taking options refuses an
#     unknown key naming it (verdict error, the message as its reason);
#   - expected failures return nil, "what: message", "ENAME";
#   - the hold action's error travels through the registry (a planted global
#     means nothing) with the action's own traceback;
#   - t:sandbox never changes the spec it is given; r.op names results;
#   - capabilities: a scenario's needs against the adapter's declared
#     table (unsupported, naming what is missing), and an adapter that
#     declares none is refused;
#   - expect: { unsupported = "why" } for an OS is validated strictly and
#     gives verdict unsupported with that reason there, without running;
#   - exclusive (run --jobs): a reason, a sentence; anything else does not load;
#   - impact and control: a file without a valid impact table does not
#     load; a fail carries its class (exact key, longest prefix, default);
#     an unclassed failing outcome is an error; a failed positive control is
#     inconclusive naming the scenario control gives, an error without one.
set -u
sp=$1
tmp=$(mktemp -d /tmp/sandproof-luaapi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# ---- scenario files that must not load -------------------------------------
mkdir -p "$tmp/bad/fs"
head='id = "fs.bad", clauses = { "FS-1" }, claim = "x", run = function() return "ok" end'
exp='expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } }, impact = { no = "escape" }'
bad() { # pattern description fields...
	pat=$1 what=$2
	shift 2
	printf 'return scenario { %s }\n' "$*" >"$tmp/bad/fs/bad.lua"
	env SANDPROOF_SCENARIOS="$tmp/bad" "$sp" list >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "bad.lua: $pat" "$tmp/err"; then ok "does not load: $what"
	else notok "does not load: $what (exit $st: $(head -c 300 "$tmp/err"))"; fi
}
bad "unknown scenario field 'timeout'" "an unknown field" "$head, $exp, timeout = 5"
bad "unconfined_passes must be true or false" "unconfined_passes not a boolean" "$head, $exp, unconfined_passes = \"yes\""
bad "expect.linux lists 'ok' twice" "an expected set with a duplicate" "$head, expect = { linux = { \"ok\", \"ok\" }, macos = { \"ok\" }, windows = { \"ok\" } }"
bad "expect.macos\\[1\\] must be a non-empty string" "an expected outcome not a string" "$head, expect = { linux = { \"ok\" }, macos = { 5 }, windows = { \"ok\" } }"
bad "needs\\[1\\]: unknown capability 'gcc'" "an unknown capability in needs" "$head, $exp, needs = { \"gcc\" }"
bad "clauses\\[1\\] 'fs1' is not a clause id" "a clause that is not an id" "id = \"fs.bad\", clauses = { \"fs1\" }, claim = \"x\", run = function() end, $exp"
bad "'run' must be a function (got string)" "run not a function" "id = \"fs.bad\", clauses = { \"FS-1\" }, claim = \"x\", run = \"x\", $exp"
env SANDPROOF_SCENARIOS="$tmp/bad" "$sp" run --runner none --out "$tmp/badrun" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 2 ] && grep -q "bad.lua: 'run' must be a function" "$tmp/err"; then ok "run: a scenario that does not load exits 2"
else notok "run with a scenario that does not load (exit $st): $(head -c 300 "$tmp/err")"; fi
# an OS on which the scenario cannot run says why: { unsupported = "why" }
bad "expect.macos: { unsupported = \"why\" } takes no other key (got 'because')" "unsupported with another key" "$head, expect = { linux = { \"ok\" }, macos = { unsupported = \"no holds here\", because = 1 }, windows = { \"ok\" } }, impact = { no = \"escape\" }"
bad "expect.macos.unsupported must be a reason" "unsupported without a reason" "$head, expect = { linux = { \"ok\" }, macos = { unsupported = \"\" }, windows = { \"ok\" } }, impact = { no = \"escape\" }"
bad "expect.macos.unsupported must be a reason" "unsupported not a string" "$head, expect = { linux = { \"ok\" }, macos = { unsupported = true }, windows = { \"ok\" } }, impact = { no = \"escape\" }"
bad "expect.windows must be a non-empty list of outcomes or { unsupported" "a platform missing" "$head, expect = { linux = { \"ok\" }, macos = { unsupported = \"no holds here\" } }, impact = { no = \"escape\" }"
bad "expect: unsupported on every platform" "unsupported everywhere" "$head, expect = { linux = { unsupported = \"macos only here\" }, macos = { unsupported = \"no holds here\" }, windows = { unsupported = \"no holds here\" } }, impact = { no = \"escape\" }"
bad "impact.ok: 'ok' is expected on every platform that runs the scenario" "a class for what every running platform expects" "$head, expect = { linux = { \"ok\" }, macos = { unsupported = \"no holds here\" }, windows = { \"ok\" } }, impact = { ok = \"escape\" }"
exp0='expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } }'
bad "scenario is missing 'impact'" "no impact" "$head, $exp0"
bad "scenario is missing 'impact'" "an empty impact" "$head, $exp0, impact = {}"
bad "impact.no: unknown class 'fatal' (one of escape, exposure, hardening, reporting, fidelity, residue)" "an unknown class" "$head, $exp0, impact = { no = \"fatal\" }"
bad "impact.ok: 'ok' is expected on every platform" "an expected outcome given a class" "$head, $exp0, impact = { ok = \"escape\" }"
bad "impact.control_failed: a failed control is inconclusive" "a class for control_failed" "$head, $exp0, impact = { control_failed = \"fidelity\" }"
bad "impact.control_failed:\\*: a failed control is inconclusive" "a class for control_failed:*" "$head, $exp0, impact = { [\"control_failed:*\"] = \"fidelity\" }"
bad "control must be the id of the scenario" "a control that is not an id" "$head, $exp, control = \"FS-1\""
bad "control names the scenario itself" "a control naming itself" "$head, $exp, control = \"fs.bad\""
bad "exclusive must be the reason the scenario needs the machine to itself" "exclusive not a reason" "$head, $exp, exclusive = true"
bad "exclusive must be the reason the scenario needs the machine to itself" "exclusive too short to say why" "$head, $exp, exclusive = \"a race\""

# ---- one scenario per check, run against none (and ref for capabilities) ------
mkdir -p "$tmp/sc/fs"
sc() { # name body... : the scenario fs.NAME whose run(t) is body
	name=$1
	shift
	{
		printf 'local lib = require "sandproof.lib"\n'
		printf 'return scenario { id = "fs.%s", clauses = { "FS-1" }, claim = "x",\n' "$name"
		printf '  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } },\n'
		printf '  impact = { ["*"] = "fidelity" },\n'
		printf '  run = function(t)\n%s\n  end }\n' "$*"
	} >"$tmp/sc/fs/$name.lua"
}
# misuse raises, naming the key
sc spawn_key 'sp.spawn { argv = { "true" }, timout_ms = 5 } return "ok"'
sc spawn_type 'sp.spawn { argv = { "true" }, cwd = 5 } return "ok"'
sc spawn_fault_key 'sp.spawn { argv = { "true" }, fault = { syscall = "openat", errno = "EPERM", nht = 2 } } return "ok"'
sc spawn_hold_key 'sp.spawn { argv = { "true" }, hold = { syscall = { "openat" } } } return "ok"'
sc spawn_bg_key 'sp.spawn_bg { argv = { "true" }, timout_ms = 5 } return "ok"'
sc census_key 'sp.census { markr = "x" } return "ok"'
# sp.mkdtemp gives the canonical path (a policy matches no other spelling)
sc mkdtemp_canonical 'local d = t.tmp .. "/real"; sp.mkdir(d); sp.symlink(d, t.tmp .. "/link")
    local p = sp.mkdtemp(t.tmp .. "/link/x-")
    return p and p:sub(1, #d + 3) == d .. "/x-" and "ok" or ("spelled " .. tostring(p))'
sc lab_key 'sp.lab { route = true } return "ok"'
sc listen_unix_key 't:lab():listen_unix { pth = t.tmp .. "/s" } return "ok"'
sc sandbox_key 't:sandbox { command = { "true" }, timout_ms = 5 } return "ok"'
sc sandbox_type 't:sandbox { command = { "true" }, network = false } return "ok"'
sc op_key 't:sandbox { probe = { { "getpid", sa = "pid" } } } return "ok"'
sc op_name 'local r = t:sandbox { probe = { { "getpid", as = "pid" } } } return r.op.pdi and "ok" or "no"'
sc hold_key 't:hold { syscalls = { "openat" }, at = 1, sandbox = { command = { "true" } }, retry = 1 } return "ok"'
sc hold_count_key 't:hold_count { syscalls = { "openat" }, sandbox = { command = { "true" } }, at = 1 } return "ok"'
sc fault_key 't:fault { syscall = "openat", errno = "EPERM", nht = 2, sandbox = { command = { "true" } } } return "ok"'
sc tlab_key 't:lab { route = true } return "ok"'
sc tcensus_key 't:census { markr = "x" } return "ok"'
sc power_key 't:set_power { attempt = 1 } return "ok"'
sc gc_key 't:gc { parent = t.tmp, max_age = 1 } return "ok"'
sc sweep_key 'lib.swap_sweep(t, { syscalls = { "openat" }, spec = function() end, changed = function() end, a = "x", b = "y", rest = 1 }) return "ok"'
sc terror 't:error("the fixture could not be made") return "ok"'
# expected failures: nil, "what: message", "ENAME"
sc read_missing 'local v, m, e = sp.read(t.tmp .. "/nope")
    return (v == nil and m == t.tmp .. "/nope: No such file or directory" and e == "ENOENT") and "ok" or
      string.format("%s|%s|%s", tostring(v), tostring(m), tostring(e))'
sc json_malformed 'local v, m, e = sp.json_decode("{")
    return (v == nil and m == "json_decode: malformed input" and e == "EINVAL") and "ok" or
      string.format("%s|%s|%s", tostring(v), tostring(m), tostring(e))'
sc base64_bad 'local v, m, e = sp.base64_decode("abc")
    return (v == nil and m == "base64_decode: length not a multiple of 4" and e == "EINVAL") and "ok" or
      string.format("%s|%s|%s", tostring(v), tostring(m), tostring(e))'
sc spawn_einval 'local v, m, e = sp.spawn { argv = { "true" }, hold = { syscalls = { "no_such_call" } } }
    return (v == nil and m == "spawn: Invalid argument" and e == "EINVAL") and "ok" or
      string.format("%s|%s|%s", tostring(v), tostring(m), tostring(e))'
# a hold of a path (Windows's oplock hold) is refused by the POSIX layers:
# the run never starts as a plain run (the command would create the mark)
sc spawn_hold_path 'local v, m, e = sp.spawn { argv = { "touch", t.tmp .. "/ran" }, hold = { path = t.tmp } }
    return (v == nil and e == "EOPNOTSUPP" and not sp.exists(t.tmp .. "/ran")) and "ok" or
      string.format("%s|%s|%s|ran=%s", tostring(v), tostring(m), tostring(e), tostring(sp.exists(t.tmp .. "/ran")))'
sc spawn_hold_both 'sp.spawn { argv = { "true" }, hold = { path = t.tmp, syscalls = { "openat" } } } return "ok"'
sc hold_path_only 't:hold { path = t.ws, at = 1, sandbox = { command = { "true" } } } return "ok"'
sc junction_none 'local v, m, e = sp.junction(t.tmp .. "/j", t.ws)
    return (v == nil and e == "EOPNOTSUPP" and not sp.exists(t.tmp .. "/j")) and "ok" or
      string.format("%s|%s|%s", tostring(v), tostring(m), tostring(e))'
# a lab that cannot be made: no descriptor left for its socketpair (the run
# has a low RLIMIT_NOFILE, below)
sc lab_emfile 'local files = {}
    while true do
      local f = io.open("/dev/null")
      if not f then break end
      files[#files + 1] = f
    end
    local v, m, e = sp.lab()
    for _, f in ipairs(files) do f:close() end
    return (v == nil and tostring(m):match("^lab: ") and e == "EMFILE") and "ok" or
      string.format("%s|%s|%s", tostring(v), tostring(m), tostring(e))'
# the hold action: its error, with its own traceback; a planted global is nothing
sc hold_raises 'local function boom() error("boom in the action") end
    t:hold { syscalls = { "execve" }, at = 1, sandbox = { command = { "true" } },
             action = function() boom() end }
    return "ok"'
sc hold_global '_G.__sp_hold_error = "planted global"
    t:hold { syscalls = { "execve" }, at = 1, sandbox = { command = { "true" } }, action = function() end }
    t:sandbox { command = { "true" } }
    return "ok"'
sc hold_skip 't:hold { syscalls = { "execve" }, at = 1, sandbox = { command = { "true" } },
             action = function() t:skip("skipped from the action") end }
    return "ok"'
# t:sandbox leaves its spec alone; r.op finds results by name
sc spec_kept 'local p = t.profiles.workspace_write()
    local spec = { profile = p, block_unix_sockets = false, probe = { { "getpid", as = "pid" } } }
    local r = t:sandbox(spec)
    local n = 0
    for _ in pairs(spec) do n = n + 1 end
    if n ~= 3 or p.block_unix_sockets ~= nil or spec.command or spec.cwd or spec.env then return "changed" end
    return (r.op.pid and r.op.pid.op == "getpid") and "ok" or "unnamed"'
sc op_by_index 'local r = t:sandbox { command = { "sh", "-c", "exec \"$0\" getpid -- env HOME", t.paths.probe },
                            op_names = { "pid", "home" } }
    return (r.op.pid.op == "getpid" and r.op.home.op == "env") and "ok" or "misnamed"'
# capabilities
sc caps_needs_gc 'return "ok"'
sed -i 's/^  run = function(t)$/  needs = { "gc" },\n  run = function(t)/' "$tmp/sc/fs/caps_needs_gc.lua"
sc caps_gc_call 't:gc { parent = t.tmp .. "/rt" } return "ok"'
# impact classes and positive controls: a fail carries its class; an
# outcome no key covers is an error; a failed control is inconclusive,
# charged to the scenario control names, or an error without one
sc imp_exact 'return "escaped"'
sc imp_prefix 'return "errno_EACCES"'
sc imp_default 'return "something_else"'
sc imp_none 'return "unheard_of"'
sc ctl_named 't:note("note", "positive control failed: the loopback did not answer") return "control_failed"'
sc ctl_detail 'return "control_failed:workspace"'
sc ctl_missing 'return "control_failed"'
# declared unsupported on this OS: nothing runs (run would leave a mark)
sc os_unsupported 'sp.write(os.getenv("SANDPROOF_TEST_MARK") or "/nonexistent/mark", "ran") return "ok"'
sed -i 's/^  expect = .*/  expect = { linux = { unsupported = "no such thing on linux: a test" }, macos = { "ok" }, windows = { "ok" } },/' "$tmp/sc/fs/os_unsupported.lua"
for f in imp_exact imp_prefix imp_default ctl_named ctl_detail; do
	sed -i 's/^  impact = .*/  impact = { escaped = "escape", ["errno_*"] = "reporting", ["errno_EPE*"] = "fidelity", ["*"] = "residue" },\n  control = "net.private_loopback",/' "$tmp/sc/fs/$f.lua"
done
for f in imp_none ctl_missing; do
	sed -i 's/^  impact = .*/  impact = { escaped = "escape" },/' "$tmp/sc/fs/$f.lua"
done
(ulimit -n 256 && env SANDPROOF_TEST_MARK="$tmp/mark" SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --out "$tmp/o") >"$tmp/run.log" 2>&1
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner ref --filter 'fs.caps_*' --out "$tmp/o" >>"$tmp/run.log" 2>&1
want() { # verdict id pattern [runner]
	line=$(grep -E "^$1 +fs\\.$2 +${4:-none} " "$tmp/run.log")
	if [ -n "$line" ] && printf '%s\n' "$line" | grep -q -- "$3"; then ok "fs.$2: $1, $3"
	else notok "fs.$2: wanted $1 with '$3': $(grep -E " fs\\.$2 " "$tmp/run.log" | head -c 300)"; fi
}
want error spawn_key 'sp.spawn: unknown option "timout_ms"'
want error spawn_type 'sp.spawn: option "cwd" must be a string (got number)'
want error spawn_fault_key 'sp.spawn: fault: unknown option "nht"'
want error spawn_hold_key 'sp.spawn: hold: unknown option "syscall"'
want error spawn_bg_key 'sp.spawn_bg: unknown option "timout_ms"'
want error census_key 'sp.census: unknown option "markr"'
want error lab_key 'sp.lab: unknown option "route"'
want error listen_unix_key 'lab:listen_unix: unknown option "pth"'
want error sandbox_key 't:sandbox: unknown option "timout_ms"'
want error sandbox_type 't:sandbox: option "network" must be string (got boolean)'
want error op_key 't:sandbox: probe op 1 (getpid): unknown option "sa"'
want error op_name 'r.op.pdi: no probe op is named "pdi"'
want error hold_key 't:hold: unknown option "retry"'
want error hold_count_key 't:hold_count: unknown option "at"'
want error fault_key 't:fault: unknown option "nht"'
want error tlab_key 't:lab: unknown option "route"'
want error tcensus_key 't:census: unknown option "markr"'
want error power_key 't:set_power: unknown option "attempt"'
want error gc_key 't:gc: unknown option "max_age"'
want error sweep_key 'lib.swap_sweep: unknown option "rest"'
want error terror 'reason: the fixture could not be made$'
want pass mkdtemp_canonical 'observed=ok'
want pass read_missing 'observed=ok'
want pass json_malformed 'observed=ok'
want pass base64_bad 'observed=ok'
want pass spawn_einval 'observed=ok'
want pass lab_emfile 'observed=ok'
want pass spawn_hold_path 'observed=ok'
want error spawn_hold_both 'sp.spawn: hold takes syscalls or path, not both'
want unsupported hold_path_only 'this hold names a path (a Windows oplock hold); on linux a hold names syscalls'
want pass junction_none 'observed=ok'
want error hold_raises 'boom in the action'
want pass hold_global 'observed=ok'
want skip hold_skip 'skipped from the action'
want pass spec_kept 'observed=ok'
want pass op_by_index 'observed=ok'
want unsupported caps_needs_gc 'the none runner has no runtime-root eviction (gc)'
want unsupported caps_gc_call 'the none runner has no runtime-root eviction (gc)'
want pass caps_needs_gc 'observed=ok' ref
want fail imp_exact 'observed=escaped  impact: escape$'
want fail imp_prefix 'observed=errno_EACCES  impact: reporting$'
want fail imp_default 'observed=something_else  impact: residue$'
want error imp_none "fs/imp_none.lua: failing outcome 'unheard_of' has no impact class"
want inconclusive ctl_named 'reason: positive control failed: the loopback did not answer; claim not tested (the ability is checked by net.private_loopback)$'
want inconclusive ctl_detail 'observed=control_failed:workspace  reason: the positive control failed; claim not tested (the ability is checked by net.private_loopback)$'
want unsupported os_unsupported 'reason: the scenario is unsupported on linux: no such thing on linux: a test$'
if [ ! -e "$tmp/mark" ]; then ok "fs.os_unsupported: run() was never called"
else notok "fs.os_unsupported: run() ran on an OS it declares unsupported"; fi
want error ctl_missing "fs/ctl_missing.lua: the positive control failed but the scenario declares no 'control'"
cls=$(sqlite3 "$tmp/o/linux.sqlite" "select group_concat(scenario_id || '=' || coalesce(impact, '-'), ' ') from
	(select scenario_id, impact from result where scenario_id like 'fs.imp_%' or scenario_id like 'fs.ctl_%' order by scenario_id)")
if [ "$cls" = "fs.ctl_detail=- fs.ctl_missing=- fs.ctl_named=- fs.imp_default=residue fs.imp_exact=escape fs.imp_none=- fs.imp_prefix=reporting" ]; then
	ok "the class is stored with each fail, and only there"
else
	notok "classes stored: $cls"
fi
# the action's own frame is in the recorded traceback (host_pcall's handler)
tb=$(sqlite3 "$tmp/o/linux.sqlite" "select e.body from evidence e join result r on r.id = e.result_id
	where r.scenario_id = 'fs.hold_raises' and e.kind = 'traceback'")
if printf '%s\n' "$tb" | grep -q "hold_raises.lua:[0-9]*: in upvalue 'boom'"; then
	ok "the hold action's error keeps the action's traceback"
else
	notok "hold action traceback: $(printf '%s' "$tb" | head -c 600)"
fi

# an adapter that declares no capabilities, or a capability it cannot serve
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$tmp/h/runners"
ln -s "$src/lua" "$tmp/h/lua"
cp "$src/runners/none.lua" "$tmp/h/runners/none.lua"
printf 'local M = require "none"\nreturn setmetatable({ name = "nocaps" }, { __index = function(_, k) if k ~= "capabilities" then return M[k] end end })\n' \
	>"$tmp/h/runners/nocaps.lua"
printf 'local M = require "none"\nlocal c = {}\nfor k, v in pairs(M.capabilities) do c[k] = v end\nc.gc = true\nreturn setmetatable({ name = "fakegc", capabilities = c, reasons = {} }, { __index = M })\n' \
	>"$tmp/h/runners/fakegc.lua"
# refused when the run begins (exit 2, nothing run), like an adapter file
# (test_runners.sh)
for r in "nocaps:runner nocaps: the adapter declares no capabilities" \
	"fakegc:runner fakegc: capabilities.gc is true but it has no gc function"; do
	env SANDPROOF_HARNESS_DIR="$tmp/h" SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner "${r%%:*}" \
		--filter fs.terror --out "$tmp/o2" >"$tmp/run.log" 2>&1
	st=$?
	if [ $st -eq 2 ] && grep -qF "${r#*:}" "$tmp/run.log" && ! grep -q "fs.terror" "$tmp/run.log"; then
		ok "${r#*:}: exit 2, nothing run"
	else notok "${r%%:*}: exit $st: $(head -c 300 "$tmp/run.log")"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
