# sc_lib.sh - sourced by the harness's shell tests.
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
