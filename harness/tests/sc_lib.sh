# sc_lib.sh - sourced by the shell tests: scenario writing, TAP, and waiting
# on background jobs (sc_wait, sc_reap).
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

# ok TEXT, notok TEXT: a TAP line, counted in n (and fail); tap_end [FILE]:
# the count line (and, when a check failed, FILE's head as comments), and
# status 1 when any check failed.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
tap_end() {
	echo "$n checks, $fail failed"
	[ "$fail" -eq 0 ] && return 0
	[ -z "${1:-}" ] || head -c 600 "$1" | sed 's/^/# /'
	return 1
}

# sc_tmp NAME: tmp, a fresh /tmp/sandproof-NAME.XXXXXX removed at exit
sc_tmp() {
	tmp=$(mktemp -d "/tmp/sandproof-$1.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
}

# sc_harness DIR FILE...: DIR a harness directory for SANDPROOF_HARNESS_DIR,
# the harness's own Lua ($here: harness/tests) and FILE... as its runners.
sc_harness() {
	mkdir -p "$1/runners"
	ln -s "$here/../lua" "$1/lua"
	dir=$1
	shift
	cp "$@" "$dir/runners/"
}

# sc_copy_expecting SRC DST SET: the scenario SRC as DST, its Linux
# expectation (an unsupported reason) replaced by the Lua list SET; a
# notok when nothing was replaced.
sc_copy_expecting() {
	sed "s/linux = { unsupported = \"[^\"]*\" }/linux = { $3 }/" "$1" >"$2"
	grep -qF "linux = { $3 }" "$2" || notok "$(basename "$1"): its linux expectation was not rewritten"
}

# sc_expect LOG ID RUNNER OUTCOME WHY: ok when the run's line for scenario
# ID and RUNNER in LOG observed OUTCOME, else notok with the line.
sc_expect() {
	line=$(grep -aE "^[a-z]+ +$(printf '%s' "$2" | sed 's/\./\\./g') +$3 " "$1" | head -n 1)
	got=$(printf '%s\n' "$line" | sed -n 's/.*observed=\([A-Za-z0-9_]*\).*/\1/p')
	if [ "$got" = "$4" ]; then
		ok "$2 over $3: $4 ($5)"
	else
		notok "$2 over $3: expected $4 ($5), observed '$got': $(printf '%s' "$line" | head -c 300)"
	fi
}

# Waiting on a background job (every shell test of the tree waits this way):
# a file the job writes is created, empty, before the job starts, so a poll
# never reads a file that does not exist yet (a redirection is made by the
# job itself, after `&` returned); every wait has a bound and ends early
# when the job has ended.
#
# sc_running PID: the process exists and has not ended (a zombie, ended but
# not yet waited for, counts as ended; Linux /proc).
sc_running() {
	_st=$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$_st" ] && [ "$_st" != Z ]
}
sc_ended() { ! sc_running "$1"; }

# sc_wait SECONDS PID CMD...: runs CMD every 0.05 s until it succeeds, or
# SECONDS have passed, or PID (when not empty) has ended - then CMD once
# more, for what the job did just before it ended.  CMD's last status.
sc_wait() {
	_end=$(($(date +%s) + $1)) _pid=$2
	shift 2
	while ! "$@"; do
		if [ -n "$_pid" ] && ! sc_running "$_pid"; then
			"$@"
			return
		fi
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.05
	done
}

# sc_reap SECONDS PID: waits for the background job PID (a child of this
# shell) to end, at most SECONDS, and returns its exit status; past the
# bound it is killed (SIGKILL, by its pid) and the status is 124, so a test
# never hangs on a job that ignored its signal.
sc_reap() {
	if sc_wait "$1" "" sc_ended "$2"; then
		wait "$2"
		return
	fi
	kill -KILL "$2" 2>/dev/null
	wait "$2" 2>/dev/null
	return 124
}
