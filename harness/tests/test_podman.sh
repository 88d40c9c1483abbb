#!/bin/sh
# test_podman.sh SANDPROOF - the podman adapter (harness/runners/podman.lua)
# against the real podman and crun, as root or as an unprivileged user:
#   - scenarios whose verdicts podman's design decides: a write outside the
#     workspace is confined, an existing git hook stays read-only, the host
#     loopback is unreachable under network deny, a missing command is
#     reported as not found - and an absent .agents is created on the host
#     (a mount cannot keep a path absent: an escape);
#   - the image is made from this host's own files (its /bin/sh is the
#     host's, byte for byte), never pulled: every podman command the
#     adapter ran says --pull never, and the store knows no other image;
#   - nothing is left: no container in the store, no podman, conmon or
#     catatonit process of the store, no cgroup libpod made, no
#     /dev/shm/libpod lock; the store (image included) is removed.
# Skipped (exit 77) where podman or crun is not installed.
set -u
sp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sc_tmp podman
for b in podman crun; do
	command -v "$b" >/dev/null || { echo "1..0 # SKIP $b not installed"; exit 77; }
done
store=$tmp/store
export SANDPROOF_PODMAN_STORE="$store"
shm_before=$(ls /dev/shm | grep -c libpod)
cg_before=$(ls -d /sys/fs/cgroup/*/libpod_parent 2>/dev/null | wc -l)

"$sp" run --runner podman --out "$tmp/o" --filter 'fs.outside_sibling' >"$tmp/run.log" 2>&1
for f in 'meta.hooks_readonly' 'meta.absent_agents_create' 'net.deny.host_loopback' 'proc.exit_127_not_notfound'; do
	"$sp" run --runner podman --out "$tmp/o" --filter "$f" >>"$tmp/run.log" 2>&1
done
sc_expect "$tmp/run.log" fs.outside_sibling podman confined "the workspace is bind-mounted, nothing else writable"
sc_expect "$tmp/run.log" meta.hooks_readonly podman denied "an existing .git/hooks mounted read-only"
sc_expect "$tmp/run.log" meta.absent_agents_create podman created "an absent .agents cannot be kept absent by a mount"
if grep -qE '^fail +meta\.absent_agents_create +podman +observed=created +impact: escape' "$tmp/run.log"; then
	ok "meta.absent_agents_create: a fail, class escape"
else notok "meta.absent_agents_create's verdict: $(grep absent_agents "$tmp/run.log" | head -c 300)"; fi
sc_expect "$tmp/run.log" net.deny.host_loopback podman denied "--network none: the lab's loopback unreachable"
sc_expect "$tmp/run.log" proc.exit_127_not_notfound podman distinguished "catatonit's exec failure read as not found"

# the image: this host's files, imported; nothing pulled
P() { # podman on the store, as the adapter runs it (no container run here)
	g="--root $store/root --runroot $store/run --tmpdir $store/tmp --runtime-flag root=$store/crun"
	if [ "$(id -u)" -eq 0 ]; then
		# shellcheck disable=SC2086 # the options, split
		env CONTAINERS_CONF="$store/containers.conf" podman $g "$@" 2>/dev/null
	else
		# shellcheck disable=SC2086
		env CONTAINERS_CONF="$store/containers.conf" _CONTAINERS_USERNS_CONFIGURED=done \
			_CONTAINERS_ROOTLESS_UID="$(id -u)" _CONTAINERS_ROOTLESS_GID="$(id -g)" \
			unshare -r podman $g "$@" 2>/dev/null
	fi
}
imgs=$(P images --format '{{.Repository}}:{{.Tag}}')
case $imgs in
localhost/sandproof-host:????????) ok "one image, imported from this host's files ($imgs)" ;;
*) notok "the store's images: '$imgs'" ;;
esac
sc_write "$tmp/sc" image_sh FS-1 '
  local r = t:sandbox { command = { "/bin/sh", "-c", "cat /bin/sh" } }
  local host = sp.read(sp.realpath("/bin/sh"))
  return (host and r.stdout == host) and "ok" or ("differs:" .. #r.stdout)'
SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner podman --out "$tmp/o" >"$tmp/img.log" 2>&1
sc_expect "$tmp/img.log" fs.image_sh podman ok "the image's /bin/sh is the host's, byte for byte"
lines=$(sqlite3 "$tmp/o/linux.sqlite" "select body from evidence where body like 'argv:%podman%'" | grep -c ' run ')
pulled=$(sqlite3 "$tmp/o/linux.sqlite" "select body from evidence where body like 'argv:%podman%'" | grep ' run ' | grep -vc -- '--pull never')
if [ "$lines" -ge 5 ] && [ "$pulled" -eq 0 ]; then ok "every podman run of the $lines recorded says --pull never"
else notok "podman runs: $lines recorded, $pulled without --pull never"; fi

# nothing left behind
left=$(P ps --all --format '{{.Names}}')
if [ -z "$left" ]; then ok "no container left in the store"; else notok "containers left: $left"; fi
procs=$(ps -eo args | grep -E '(podman|conmon|catatonit)' | grep -F "$store" | grep -v grep)
if [ -z "$procs" ]; then ok "no podman, conmon or catatonit process of the store"; else notok "processes left: $procs"; fi
if [ "$(ls -d /sys/fs/cgroup/*/libpod_parent 2>/dev/null | wc -l)" -eq "$cg_before" ]; then ok "no libpod cgroup made"
else notok "a libpod_parent cgroup appeared"; fi
if [ "$(ls /dev/shm | grep -c libpod)" -eq "$shm_before" ]; then ok "no /dev/shm/libpod lock made"
else notok "a /dev/shm/libpod lock appeared"; fi
P rmi --all --force >/dev/null 2>&1
chmod -R u+rwX "$store" 2>/dev/null
rm -rf "$store"
if [ ! -e "$store" ]; then ok "the store, its image included, removed"; else notok "the store could not be removed"; fi
tap_end "$tmp/run.log"
