#!/bin/sh
# ci/peers-matrix.sh [OUT] - the conformance matrix of docs/RUNNERS.md from
# scratch: install dependencies and the pinned peers (ci/peers.sh), build,
# replay the whole catalogue against ref, bwrap, firejail, codex, srt and
# podman as the calling user and, when that is root, as the unprivileged user
# sandproof-test (a copy of the tree under /var/tmp, as ci/test.sh does);
# merge the databases into OUT/peers.sqlite (default ./sandproof-peers-out)
# and regenerate the Matrix section of docs/RUNNERS.md from it.
# Both runs go one after the other, each `run --jobs N` (ci/jobs.sh:
# SANDPROOF_JOBS, else twice the cores, at most 8; the scenarios that
# declare `exclusive` alone, so the timed races' timing is the machine's).
# Most of the time is the hold sweeps of srt and codex (every
# path-resolving call of node, bash, bwrap and socat), and for podman each
# of its seven sweeps about 2000 launches of 2 s: they end at their timeout
# (10 min) as errors unless the machine is fast.
# SANDPROOF_MATRIX_SWEEPS=0 leaves out the hold and fault sweeps
# (swap.*_held, setup.fault_sweep: the catalogue in four --filter runs
# into one database): hours for the slow peers, minutes without them.
# Left out for every runner they are absent from the matrix; a runner left
# without them when others have them (a sweep run apart and merged) is
# counted "not run".
# Exit status: 0 when every run completed - peers failing scenarios is the
# finding, not an error; 1 when a run could not be made.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/sandproof-peers-out}
runners=ref,bwrap,firejail,codex,srt,podman
jobs=$(nproc 2>/dev/null || echo 2)
cd "$here"
pairs=$(sh ci/jobs.sh)
sh ci/deps.sh
sh ci/peers.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSANDPROOF_ASAN=OFF -DSANDPROOF_UBSAN=OFF >/dev/null
cmake --build build -j "$jobs" >/dev/null
mkdir -p "$out"
me=$(id -un)
rm -rf "${out:?}/$me"
# podman's image and containers in a store of the run's own, removed after
export SANDPROOF_PODMAN_STORE="$out/podman-store-$me"
# the --filter globs of a run: everything, or all but the sweeps
# ([!s]*: the areas not starting with s; swap's names ending in d are its
# *_held sweeps; setup's ending in p, its fault_sweep)
filters='*'
[ "${SANDPROOF_MATRIX_SWEEPS:-1}" != 0 ] || filters='[!s]* sess.* swap.*[!d] setup.*[!p]'
set -f
# sandproof run: 1 is "some result outside its expected set", which peers give
for f in $filters; do
	./build/sandproof run --runner "$runners" --jobs "$pairs" --filter "$f" --out "$out/$me" ||
		[ $? -eq 1 ]
done
rm -rf "$SANDPROOF_PODMAN_STORE"
dbs="$out/$me/linux.sqlite"
if [ "$(id -u)" -eq 0 ]; then
	. ci/unpriv.sh
	unpriv_copy "$here"
	unpriv_sh "
		set -e
		cmake -S '$unpriv_work' -B '$unpriv_work/build' -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
		cmake --build '$unpriv_work/build' -j $jobs >/dev/null
		set -f
		for f in $filters; do
			SANDPROOF_PODMAN_STORE='$unpriv_work/podman-store' \
				'$unpriv_work/build/sandproof' run --runner '$runners' --jobs $pairs \
				--filter \"\$f\" --out '$unpriv_work/out' || [ \$? -eq 1 ]
		done"
	cp "$unpriv_work/out/linux.sqlite" "$out/$unpriv_user.sqlite"
	dbs="$dbs $out/$unpriv_user.sqlite"
fi
# shellcheck disable=SC2086 # a list of paths without spaces
./build/sandproof merge $dbs -o "$out/peers.sqlite" --force
sh ci/runners-matrix.sh "$out/peers.sqlite"
