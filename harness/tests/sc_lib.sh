# sc_lib.sh - sourced by the harness's shell tests: scenario writing and TAP.
# sc_write DIR ID CLAUSE BODY: DIR/fs/ID.lua, the scenario fs.ID (expected
# "ok" on every OS; any other outcome a fidelity fail) whose run(t) is
# BODY, Lua returning "ok" or what it saw instead.
sc_write() {
	mkdir -p "$1/fs"
	{
		printf 'return scenario { id = "fs.%s", clauses = { "%s" }, claim = "x",\n' "$2" "$3"
		printf '  expect = { linux = { "ok" }, macos = { "ok" }, windows = { "ok" } },\n'
		printf '  impact = { ["*"] = "fidelity" },\n'
		printf '  run = function(t)\n%s\n  end }\n' "$4"
	} >"$1/fs/$2.lua"
}

# ok TEXT, notok TEXT: a TAP line, counted in n (and fail); tap_end: the
# count line, and status 1 when any check failed.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
tap_end() {
	echo "$n checks, $fail failed"
	[ "$fail" -eq 0 ]
}

# sc_tmp NAME: tmp, a fresh /tmp/sandproof-NAME.XXXXXX removed at exit
sc_tmp() {
	tmp=$(mktemp -d "/tmp/sandproof-$1.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
}
