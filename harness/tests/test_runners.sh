#!/bin/sh
# test_runners.sh SANDPROOF - naming a runner (docs/RUNNERS.md, "Naming a
# runner"): `--runner contract:PATH` and NAME=contract:PATH, `--adapter
# FILE.lua` and SANDPROOF_RUNNER_PATH.
#   - every malformed runner is refused before anything runs, exit 2, the
#     message naming the runner, its file and the bad field: a missing or
#     non-executable program, a bad or doubled name, a capability object
#     with a bad field (sidecar or --sandproof-capabilities), an adapter file
#     that does not load or misses or botches a field;
#   - a contract runner that declares nothing gets the minimal set: what
#     it was not asked is `unsupported` with the reason, never `fail`; one
#     that declares a capability is asked it; timeout_scale reaches the
#     run's fingerprint;
#   - an adapter file and one found on SANDPROOF_RUNNER_PATH run like a
#     built-in one, under their own name; a built-in name on the path is
#     never replaced; `sandproof env` lists the path's adapters.
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sc_tmp runners
ref=$(dirname "$sp")/sandproof-ref
src=$(cd "$here/.." && pwd)

# expect STATUS PATTERN WHAT ARGS...: `sandproof ARGS` exits STATUS and its
# output holds PATTERN (grep -E); with STATUS 2 no scenario line is printed
expect() {
	want=$1 pat=$2 what=$3
	shift 3
	"$sp" "$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ] && grep -qE -- "$pat" "$tmp/out" &&
		{ [ "$want" -ne 2 ] || ! grep -qE '^(pass|fail|skip|unsupported|error|inconclusive) ' "$tmp/out"; }; then
		ok "$what"
	else
		notok "$what (exit $got, wanted $want and /$pat/): $(head -c 400 "$tmp/out")"
	fi
}

# ---- the scenarios: a plain run, one needing gc, one blocking unix
# sockets, one sending a raw request, one asking an output bound
sc_write "$tmp/sc" plain FS-1 '
  local r = t:ran(t:sandbox { probe = { { "write", t.ws .. "/f", "x", as = "w" } } })
  return (r.op.w.ok and sp.read(t.ws .. "/f") == "x") and "ok" or "not_written"'
cat >"$tmp/sc/fs/needs_gc.lua" <<'LUA'
return scenario { id = "fs.needs_gc", clauses = { "RT-6" }, claim = "x", needs = { "gc" },
  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } },
  impact = { ["*"] = "fidelity" },
  run = function(t) return t:gc { parent = t.tmp } and "ok" or "no" end }
LUA
sc_write "$tmp/sc" unix NET-4 '
  t:sandbox { probe = { { "stat", "/" } }, block_unix_sockets = true }
  return "ok"'
sc_write "$tmp/sc" raw REQ-1 '
  local r = t:sandbox { command = { "true" }, raw_request = "{\"version\":1,\"bogus\":1}" }
  return r.outcome.kind == "request_refused" and "ok" or tostring(r.outcome.kind)'
sc_write "$tmp/sc" bound PROC-7 '
  t:sandbox { command = { "true" }, output_limit_bytes = 16 }
  return "ok"'
sc_run() { env SANDPROOF_SCENARIOS="$tmp/sc" "$@"; }
# every run sees these scenarios only: a refusal the harness failed to make
# runs a few small scenarios, never the catalogue
export SANDPROOF_SCENARIOS="$tmp/sc"

# ---- contract:PATH: what is refused before anything runs ---------------------
expect 2 "contract:$tmp/nosuch: cannot be run: .*No such file" "a contract program that does not exist" \
	run --runner "contract:$tmp/nosuch" --out "$tmp/o"
printf '#!/bin/sh\nexit 0\n' >"$tmp/noexec" && chmod 644 "$tmp/noexec"
expect 2 "contract:$tmp/noexec: cannot be run: .*Permission denied" "a contract program that is not executable" \
	run --runner "contract:$tmp/noexec" --out "$tmp/o"
expect 2 "contract:$tmp: cannot be run: .*is a directory" "a contract program that is a directory" \
	run --runner "contract:$tmp" --out "$tmp/o"
expect 2 "'contract:': contract: needs a path" "contract: without a path" run --runner "contract:" --out "$tmp/o"
expect 2 "bad runner name 'My_Box'" "a name with capitals" run --runner "My_Box=contract:$ref" --out "$tmp/o"
expect 2 "bad runner name 'a\\.b'" "a name with a dot" run --runner "a.b=contract:$ref" --out "$tmp/o"
expect 2 "bad runner name 'x{33}'" "a name of 33 characters" \
	run --runner "$(printf 'x%.0s' $(seq 33))=contract:$ref" --out "$tmp/o"
expect 2 "runner name 'ref' is a built-in adapter's" "a built-in's name for a contract runner" \
	run --runner "ref=contract:$ref" --out "$tmp/o"
expect 2 "'box=none': after NAME= comes contract:PATH or FILE.lua" "NAME= before a plain name" \
	run --runner "box=none" --out "$tmp/o"
expect 2 "runner 'box' named twice" "one name for two runners" \
	run --runner "box=contract:$ref,box=contract:$ref" --out "$tmp/o"
expect 2 "an empty runner in 'none,'" "an empty element of the list" run --runner "none," --out "$tmp/o"

# a capability object with one bad field, as a sidecar and as the flag's answer
mkdir -p "$tmp/c"
bad_caps() { # WHAT PATTERN JSON: refused from the sidecar, then from the flag
	printf '#!/bin/sh\nexec %s "$@"\n' "$ref" >"$tmp/c/side" && chmod 755 "$tmp/c/side"
	printf '%s\n' "$3" >"$tmp/c/side.capabilities.json"
	expect 2 "runner side \\(contract:$tmp/c/side\\): $tmp/c/side.capabilities.json: $2" "sidecar: $1" \
		run --runner "contract:$tmp/c/side" --out "$tmp/o"
	cat >"$tmp/c/flag" <<SH
#!/bin/sh
if [ "\$1" = --sandproof-capabilities ]; then printf '%s\\n' '$3'; exit 0; fi
exec $ref "\$@"
SH
	chmod 755 "$tmp/c/flag"
	expect 2 "runner flag \\(contract:$tmp/c/flag\\): $tmp/c/flag --sandproof-capabilities: $2" "flag: $1" \
		run --runner "contract:$tmp/c/flag" --out "$tmp/o"
}
bad_caps "an unknown field" "capabilities_: unknown field" '{"version":1,"capabilities_":{}}'
bad_caps "no version" "version: must be 1 \\(got nil\\)" '{"capabilities":{}}'
bad_caps "another version" "version: must be 1 \\(got 2\\)" '{"version":2}'
bad_caps "an unknown capability" "capabilities.gcc: unknown capability \\(one of block_unix_sockets, doctor, fault, gc," \
	'{"version":1,"capabilities":{"gcc":true}}'
bad_caps "a capability not a boolean" "capabilities.gc: must be true or false" \
	'{"version":1,"capabilities":{"gc":"yes"}}'
bad_caps "a reason for a capability it has" "reasons.hold: must explain, as a string, a capability declared false" \
	'{"version":1,"reasons":{"hold":"we hold"}}'
bad_caps "a reason for no capability" "reasons.fly: must explain" '{"version":1,"reasons":{"fly":"x"}}'
bad_caps "timeout_scale 0" "timeout_scale: must be an integer from 1 to 100" '{"version":1,"timeout_scale":0}'
bad_caps "timeout_scale 2.5" "timeout_scale: must be an integer from 1 to 100" '{"version":1,"timeout_scale":2.5}'
bad_caps "capabilities not an object" "capabilities: must be an object" '{"version":1,"capabilities":3}'
bad_caps "does_not_enforce naming no clause" "does_not_enforce.fs1: not a clause id" \
	'{"version":1,"does_not_enforce":{"fs1":"x"}}'
bad_caps "does_not_enforce without a reason" "does_not_enforce.FS-1: must say, as a string, what is not enforced" \
	'{"version":1,"does_not_enforce":{"FS-1":""}}'
printf '#!/bin/sh\nexec %s "$@"\n' "$ref" >"$tmp/c/side" && printf 'not json\n' >"$tmp/c/side.capabilities.json"
expect 2 "$tmp/c/side.capabilities.json: not JSON" "a sidecar that is not JSON" run --runner "contract:$tmp/c/side" --out "$tmp/o"
printf '#!/bin/sh\n[ "$1" = --sandproof-capabilities ] && { echo "I can do anything"; exit 0; }\nexec %s "$@"\n' "$ref" >"$tmp/c/flag"
expect 2 "$tmp/c/flag --sandproof-capabilities: exited 0 without a JSON object" "a flag answering 0 without JSON" \
	run --runner "contract:$tmp/c/flag" --out "$tmp/o"

# ---- contract:PATH: the minimal set, what is declared, the name --------------
# a runner that knows no --sandproof-capabilities (it answers 2) and has
# no sidecar: plain runs and raw requests, nothing else; never a fail
printf '#!/bin/sh\n[ "$1" = --sandproof-capabilities ] && exit 2\nexec %s "$@"\n' "$ref" >"$tmp/c/My Box.sh"
chmod 755 "$tmp/c/My Box.sh"
sc_run "$sp" run --runner "contract:$tmp/c/My Box.sh" --out "$tmp/min" >"$tmp/min.log" 2>&1
st=$?
if [ $st -eq 0 ]; then ok "the minimal set: exit 0"; else notok "the minimal set: exit $st: $(head -c 300 "$tmp/min.log")"; fi
sc_expect "$tmp/min.log" fs.plain my_box_sh ok "a plain run, under the name made from the file's"
sc_expect "$tmp/min.log" fs.raw my_box_sh ok "a raw request (its one document)"
nodecl="it declares nothing \\(no $tmp/c/My Box.sh.capabilities.json; $tmp/c/My Box.sh --sandproof-capabilities exited 2\\)"
for c in "needs_gc:runtime-root eviction \\(gc\\)" "unix:way to block unix sockets \\(block_unix_sockets\\)" \
	"bound:output bound \\(output_limit_bytes\\)"; do
	if grep -qE "^unsupported +fs\\.${c%%:*} +my_box_sh +.*the my_box_sh runner has no ${c#*:}: $nodecl" "$tmp/min.log"; then
		ok "fs.${c%%:*}: unsupported, saying it was not declared"
	else notok "fs.${c%%:*}: $(grep "fs.${c%%:*} " "$tmp/min.log" | head -c 400)"; fi
done
# declared by a sidecar: asked; one declared false keeps its reason
printf '#!/bin/sh\nexec %s "$@"\n' "$ref" >"$tmp/c/decl" && chmod 755 "$tmp/c/decl"
printf '{"version":1,"capabilities":{"gc":true,"output_limit":true},"reasons":{"block_unix_sockets":"no seccomp here"},"timeout_scale":4}\n' \
	>"$tmp/c/decl.capabilities.json"
sc_run "$sp" run --runner "box=contract:$tmp/c/decl" --out "$tmp/decl" >"$tmp/decl.log" 2>&1
sc_expect "$tmp/decl.log" fs.needs_gc box ok "gc declared: asked (PATH gc)"
sc_expect "$tmp/decl.log" fs.bound box ok "output_limit declared: asked"
if grep -qE "^unsupported +fs\\.unix +box .*no way to block unix sockets \\(block_unix_sockets\\): no seccomp here" "$tmp/decl.log"; then
	ok "a capability declared false: unsupported with its reason"
else notok "declared false: $(grep 'fs.unix ' "$tmp/decl.log" | head -c 400)"; fi
got=$(sqlite3 "$tmp/decl/linux.sqlite" "select json_extract(env_json, '\$.timeout_s.box') from run")
if [ "$got" = 480 ]; then ok "timeout_scale 4 from the sidecar: 480 s per scenario"; else notok "timeout_s.box: '$got'"; fi
ver=$(sqlite3 "$tmp/decl/linux.sqlite" "select json_extract(env_json, '\$.runners.box') from run")
if printf '%s' "$ver" | grep -q '^sandproof-ref '; then ok "its --version is in the fingerprint ($ver)"
else notok "version of box: '$ver'"; fi
# does_not_enforce: a failing scenario of a clause it names says so, and
# still fails; one of another clause says nothing of it
sc_write "$tmp/dn" fails FS-1 '
  t:ran(t:sandbox { probe = { { "stat", "/" } } })
  return "not_ok"'
sc_write "$tmp/dn" fails_too FS-2 '
  t:ran(t:sandbox { probe = { { "stat", "/" } } })
  return "not_ok"'
printf '{"version":1,"does_not_enforce":{"FS-1":"writes go where they like"}}\n' >"$tmp/c/decl.capabilities.json"
env SANDPROOF_SCENARIOS="$tmp/dn" "$sp" run --runner "box=contract:$tmp/c/decl" --out "$tmp/dn-out" >"$tmp/dn.log" 2>&1
if grep -qE "^fail +fs\.fails +box +observed=not_ok +impact: fidelity +reason: the runner declares it does not enforce FS-1: writes go where they like$" "$tmp/dn.log"; then
	ok "a fail of a clause declared not enforced: still fail, the declaration as its reason"
else notok "declared fail: $(grep 'fs.fails ' "$tmp/dn.log" | head -c 400)"; fi
if grep -qE "^fail +fs\.fails_too +box +observed=not_ok +impact: fidelity$" "$tmp/dn.log"; then
	ok "a fail of another clause: no declaration"
else notok "undeclared fail: $(grep 'fs.fails_too ' "$tmp/dn.log" | head -c 400)"; fi

# a bare program name is looked up on PATH
mkdir -p "$tmp/bin" && cp "$tmp/c/decl" "$tmp/bin/pathbox" && printf '{"version":1}\n' >"$tmp/bin/pathbox.capabilities.json"
PATH="$tmp/bin:$PATH" "$sp" run --runner contract:pathbox --filter fs.plain --out "$tmp/pb" >"$tmp/pb.log" 2>&1
sc_expect "$tmp/pb.log" fs.plain pathbox ok "contract:NAME found on PATH"
expect 2 "contract:nosuchbox: cannot be run" "contract:NAME on no PATH directory" run --runner contract:nosuchbox --out "$tmp/o"

# sandproof-ref answers --sandproof-capabilities itself: every capability
sc_run "$sp" run --runner "contract:$ref" --filter 'fs.needs_gc' --out "$tmp/self" >"$tmp/self.log" 2>&1
sc_expect "$tmp/self.log" fs.needs_gc sandproof-ref ok "sandproof-ref's own capability object declares gc"

# ---- --adapter FILE.lua ------------------------------------------------------
mkdir -p "$tmp/a"
good() { # the none adapter under another name, with FIELD = VALUE (Lua) set
	printf 'local M = {}\nfor k, v in pairs(require "none") do M[k] = v end\n%s\nreturn M\n' "${1:-}"
}
good >"$tmp/a/mine.lua"
sc_run "$sp" run --adapter "$tmp/a/mine.lua" --filter fs.plain --out "$tmp/ad" >"$tmp/ad.log" 2>&1
sc_expect "$tmp/ad.log" fs.plain mine ok "--adapter FILE.lua runs under the file's name"
sc_run "$sp" run --runner "other=$tmp/a/mine.lua,none" --filter fs.plain --out "$tmp/ad" >"$tmp/ad.log" 2>&1
sc_expect "$tmp/ad.log" fs.plain other ok "NAME=FILE.lua in a --runner list"
bad_adapter() { # WHAT PATTERN LUA
	printf '%s\n' "$3" >"$tmp/a/bad.lua"
	expect 2 "runner bad \\($tmp/a/bad.lua\\): $2" "adapter: $1" run --adapter "$tmp/a/bad.lua" --out "$tmp/o"
}
bad_adapter "a syntax error (file:line)" "$tmp/a/bad.lua:3:" 'local M = {}
return M +'
bad_adapter "an error while loading" "$tmp/a/bad.lua: .*boom" 'error("boom")'
bad_adapter "not a table" "the adapter must return a table" 'return 42'
bad_adapter "no capabilities" "the adapter declares no capabilities" 'return { sandbox = function() end }'
bad_adapter "a capability missing" "capabilities.sessions is not declared" \
	"$(good 'M.capabilities = { gc = false, doctor = false, runtime_roots = false, raw_request = false, limits = false, output_limit = false, block_unix_sockets = false, hold = false, fault = false }')"
bad_adapter "an unknown capability" "unknown capability 'fly'" \
	"$(good 'M.capabilities = setmetatable({ fly = true }, { __index = M.capabilities })')"
bad_adapter "a capability not a boolean" "capabilities.gc must be true or false" \
	"$(good 'local c = {} for k, v in pairs(M.capabilities) do c[k] = v end c.gc = 1 M.capabilities = c')"
bad_adapter "a capability without its function" "capabilities.gc is true but it has no gc function" \
	"$(good 'local c = {} for k, v in pairs(M.capabilities) do c[k] = v end c.gc = true M.capabilities = c')"
bad_adapter "no sandbox function" "the adapter has no sandbox function" "$(good 'M.sandbox = nil')"
bad_adapter "a reason for a capability it has" "reasons.hold must explain a capability it lacks" \
	"$(good 'M.reasons = { hold = "x" }')"
bad_adapter "timeout_scale 0" "timeout_scale must be an integer from 1 to 100" "$(good 'M.timeout_scale = 0')"
bad_adapter "timeout_scale 101" "timeout_scale must be an integer from 1 to 100" "$(good 'M.timeout_scale = 101')"
bad_adapter "available not a function" "available must be a function" "$(good 'M.available = true')"
bad_adapter "name not a string" "name must be a string" "$(good 'M.name = 3')"
bad_adapter "does_not_enforce naming no clause" "does_not_enforce.meta: not a clause id" \
	"$(good 'M.does_not_enforce = { meta = "x" }')"
expect 2 "adapter $tmp/a/nosuch.lua: .*No such file" "an adapter file that does not exist" \
	run --adapter "$tmp/a/nosuch.lua" --out "$tmp/o"
expect 2 "adapter $tmp/a: not a file" "an adapter that is a directory" run --runner "adapter:$tmp/a" --out "$tmp/o"
good >"$tmp/a/bwrap.lua"
expect 2 "runner name 'bwrap' is a built-in adapter's" "an adapter file named as a built-in" \
	run --adapter "$tmp/a/bwrap.lua" --out "$tmp/o"

# ---- SANDPROOF_RUNNER_PATH ---------------------------------------------------
mkdir -p "$tmp/p1" "$tmp/p2"
good 'M.timeout_scale = 2' >"$tmp/p2/found.lua"
printf 'error("a file on the path posing as ref was loaded")\n' >"$tmp/p1/ref.lua"
env SANDPROOF_RUNNER_PATH="$tmp/p1:$tmp/p2" SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner found,ref \
	--filter fs.plain --out "$tmp/pp" >"$tmp/pp.log" 2>&1
sc_expect "$tmp/pp.log" fs.plain found ok "NAME found on SANDPROOF_RUNNER_PATH (second directory)"
sc_expect "$tmp/pp.log" fs.plain ref ok "a built-in name is never taken from the path"
got=$(sqlite3 "$tmp/pp/linux.sqlite" "select json_extract(env_json, '\$.timeout_s.found') from run")
if [ "$got" = 240 ]; then ok "its timeout_scale 2: 240 s"; else notok "timeout_s.found: '$got'"; fi
export SANDPROOF_RUNNER_PATH="$tmp/p1:$tmp/p2"
expect 2 "unknown runner 'lost': no lost.lua among the built-in adapters \\(.*\\) or in SANDPROOF_RUNNER_PATH \\($tmp/p1, $tmp/p2\\)" \
	"an unknown name lists where it was looked for" run --runner lost --out "$tmp/o"
printf 'return { capabilities = {} }\n' >"$tmp/p1/broken.lua"
expect 2 "runner broken \\($tmp/p1/broken.lua\\): capabilities.block_unix_sockets is not declared" \
	"a malformed adapter on the path names its file and field" run --runner broken --out "$tmp/o"
unset SANDPROOF_RUNNER_PATH
env SANDPROOF_RUNNER_PATH="$tmp/p2" "$sp" env >"$tmp/env.json" 2>&1
if grep -q '"found":' "$tmp/env.json" && grep -q '"ref":' "$tmp/env.json"; then ok "sandproof env lists the path's adapters"
else notok "env: $(head -c 400 "$tmp/env.json")"; fi

# ---- the other commands take the same runners --------------------------------
expect 2 "contract:$tmp/nosuch: cannot be run" "explore: a missing contract program" \
	explore --runner "contract:$tmp/nosuch" --budget 1 --out "$tmp/o"
expect 2 "runner bad \\($tmp/a/bad.lua\\)" "smoke: a malformed adapter" smoke --runner "$tmp/a/bad.lua" --out "$tmp/o"
expect 0 "^explore sandproof-ref: 2 programs" "explore: sandproof-ref as a contract runner" \
	explore --runner "contract:$ref" --budget 2 --out "$tmp/ex"
tap_end "$tmp/out"
