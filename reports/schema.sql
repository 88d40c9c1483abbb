-- reports/schema.sql - the sandproof results database, one file per OS
-- (<out>/<os>.sqlite, e.g. sandproof-out/linux.sqlite).
--
-- The one copy of the schema: the build compiles this text into the results
-- store (reports/store, store_schema_sql), which runs it once, in one
-- transaction, on a new database.  Reports, diff, merge and ad-hoc queries
-- rely on the table and column names below: change or drop none of them
-- without raising user_version (and STORE_SCHEMA_VERSION with it).
--
-- Conventions:
--   times        ISO 8601 UTC text with milliseconds, '2025-06-01T12:34:56.789Z'
--                (sortable as text; julianday() and strftime() read it)
--   comma list   names joined by ',' without spaces, e.g. 'ref,none'
--   NULL         unknown or not applicable, never an empty string by design
--   verdicts     pass, fail, skip, unsupported, inconclusive, error
--   impact       escape, exposure, hardening, reporting, fidelity, residue: what
--                a failing outcome means (docs/CONTRACT.md, "Impact classes")
--
-- The store opens the file in WAL mode and commits one transaction per
-- result (with its evidence), so a run killed at any point leaves a database
-- that passes PRAGMA integrity_check and holds every finished result.

PRAGMA application_id = 1397772870; -- 0x53505246, 'SPRF': a sandproof results database
PRAGMA user_version = 3;            -- schema version; a harness refuses newer and older ones
                                    -- (2: result.impact; 3: the class hardening)

-- One invocation of the harness (sandproof run or smoke) on one machine.
CREATE TABLE run (
	id              INTEGER PRIMARY KEY, -- run number, assigned by sqlite
	started_at      TEXT NOT NULL,       -- when the run began
	finished_at     TEXT,                -- when it ended; NULL: killed, or still running
	os              TEXT NOT NULL,       -- 'linux', 'macos' or 'windows'
	kernel          TEXT,                -- kernel release (uname -r)
	arch            TEXT,                -- machine (uname -m), e.g. 'x86_64'
	user            TEXT,                -- name of the user the harness ran as
	uid             INTEGER,             -- its numeric uid, 0 for root; NULL where none
	harness_version TEXT NOT NULL,       -- sandproof version, e.g. '0.1.0'
	git_revision    TEXT,                -- git revision of the suite; NULL if unknown
	runners         TEXT NOT NULL,       -- comma list of the runners exercised
	seed            INTEGER NOT NULL,    -- the run's base random seed (--seed)
	filter          TEXT,                -- scenario id glob (--filter); NULL: all
	env_json        TEXT                 -- environment fingerprint, a JSON object:
		CHECK (env_json IS NULL OR json_valid(env_json))
	-- {"userns": {sysctl name: value, ...}  user-namespace sysctls and AppArmor
	--                                       knobs, e.g. "kernel.unprivileged_userns_clone"
	--  "landlock_abi": 7,                   0 when Landlock is unavailable
	--  "seccomp_notify": true,              SECCOMP_RET_USER_NOTIF usable
	--  "runners": {name: version, ...},     version string each runner reported
	--  "timeout_s": {name: seconds, ...}}   per-scenario timeout of each runner (run only)
);

-- One scenario of the catalogue (scenarios/<area>/<name>.lua), as last run:
-- the harness upserts it before recording a result for it.
CREATE TABLE scenario (
	id          TEXT PRIMARY KEY NOT NULL, -- scenario id, e.g. 'net.deny.host_loopback'
	area        TEXT NOT NULL,             -- contract area, e.g. 'fs', 'net', 'meta', 'proc'
	clauses     TEXT NOT NULL,             -- comma list of contract clause ids, e.g. 'NET-1,NET-2'
	claim       TEXT NOT NULL,             -- the one claim the scenario checks, one sentence
	file        TEXT,                      -- its file relative to the suite root
	expect_json TEXT NOT NULL              -- expected outcome sets per platform, a JSON object:
		CHECK (json_valid(expect_json))    -- {"linux": ["denied"], "macos": ["denied"]}
);

-- One scenario run against one runner within one run.
CREATE TABLE result (
	id          INTEGER PRIMARY KEY,  -- result number, in recording order
	run_id      INTEGER NOT NULL      -- the run it belongs to
		REFERENCES run(id) ON DELETE CASCADE,
	runner      TEXT NOT NULL,        -- runner name, e.g. 'ref', 'none', 'bwrap'
	scenario_id TEXT NOT NULL         -- the scenario run
		REFERENCES scenario(id),
	verdict     TEXT NOT NULL         -- what the harness concluded
		CHECK (verdict IN ('pass', 'fail', 'skip', 'unsupported', 'inconclusive', 'error')),
	expected    TEXT NOT NULL,        -- comma list of the outcomes expected on this OS
	observed    TEXT,                 -- the outcome the scenario reported, in its words,
	                                  -- e.g. 'connect 127.0.0.1:8080: ECONNREFUSED'
	reason      TEXT,                 -- why skip, unsupported, inconclusive or error;
	                                  -- NULL for pass and fail.  A failed positive
	                                  -- control is inconclusive, the reason naming
	                                  -- the scenario that checks the missing ability
	impact      TEXT                  -- the class the scenario declares for the
		CHECK (impact IN ('escape', 'exposure', 'hardening', 'reporting', 'fidelity', 'residue')),
	                                  -- observed outcome; set on every fail, NULL otherwise
	attempts    INTEGER NOT NULL      -- tries made: race iterations or hold positions
		CHECK (attempts >= 0),        -- swept; 1 for a plain scenario
	windows_hit INTEGER               -- attempts in which the race window was observed
		CHECK (windows_hit >= 0),     -- open; NULL when the scenario is not a race
	min_windows INTEGER               -- the race's stated power: windows_hit below this
		CHECK (min_windows >= 0),     -- makes the verdict inconclusive; NULL: not a race
	seed        INTEGER NOT NULL,     -- the seed this result used (replays it)
	duration_ms INTEGER               -- wall time of the scenario in milliseconds
		CHECK (duration_ms >= 0),
	finished_at TEXT NOT NULL,        -- when the verdict was reached
	CHECK ((verdict = 'fail') = (impact IS NOT NULL))
);
CREATE INDEX result_by_run ON result(run_id);
CREATE INDEX result_by_scenario_runner ON result(scenario_id, runner);

-- What a result rests on, in recording order (evidence.id ascending).
CREATE TABLE evidence (
	id        INTEGER PRIMARY KEY, -- evidence number, in recording order
	result_id INTEGER NOT NULL     -- the result it supports
		REFERENCES result(id) ON DELETE CASCADE,
	kind      TEXT NOT NULL        -- probe: probe JSON lines; stderr: stderr tail;
		CHECK (kind IN ('probe', 'stderr', 'outcome', 'census', 'traceback', 'note')),
	                               -- outcome: the runner's outcome JSON; census: a
	                               -- residue diff; traceback: Lua error and traceback;
	                               -- note: free text from the scenario
	body      TEXT NOT NULL        -- the evidence itself, as text
);
CREATE INDEX evidence_by_result ON evidence(result_id);
