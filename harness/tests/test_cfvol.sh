#!/bin/sh
# test_cfvol.sh SANDPROOF - t:casefold_workspace's volume (sp.casefold_volume,
# platforms/include/sandproof/cfvol.h) is made, folds names, and leaves
# nothing behind however its scenario ends: normally, with an error, killed
# at its timeout, or with the harness killed (SIGKILL).  Checked on the
# host after each: the loop device no longer bound to the image, no FUSE
# daemon for the mount point, no mount of it in any process's mount table.
# As an unprivileged user the scenario is a skip naming why.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sc_lib.sh"
sp=$1
sc_tmp cfvol

sc() { sc_write "$tmp/sc" "$1" META-6 "$2"; }
# Each scenario notes where its volume lives: the image and the mount
# point (under its own t.tmp) and the loop device, for the host checks.
record='local ws, dir = t:casefold_workspace()
    sp.write("'"$tmp"'/" .. t.id .. ".where", dir .. "\n" .. t._volumes[1]:device() .. "\n")'
sc cf_ok "$record"'
    if not (sp.write(ws .. "/Mixed.Case", "x") and sp.read(ws .. "/mIXED.cASE") == "x") then return "no fold" end
    if sp.lstat(dir).dev == sp.lstat(dir .. "/..").dev then return "not a mount" end
    return "ok"'
sc cf_error "$record"'
    t:error("boom after the volume was made")'
sc cf_hang "$record"'
    sp.sleep_ms(60000)
    return "ok"'
sc cf_api 'local ok, e = pcall(sp.casefold_volume, { dir = t.tmp .. "/v", imgae = "x" })
    if ok or not tostring(e):match("unknown option \"imgae\"") then return "typo accepted: " .. tostring(e) end
    ok, e = pcall(sp.casefold_volume, { dir = t.tmp .. "/v", image = t.tmp .. "/i", bytes = 100 })
    if ok or not tostring(e):match("at least 1 MiB") then return "tiny image accepted" end
    ok, e = pcall(sp.casefold_volume, { dir = t.tmp .. "/v" })
    if ok or not tostring(e):match("required") then return "missing image accepted" end
    assert(sp.mkdir(t.tmp .. "/v"))
    local v, why = sp.casefold_volume { dir = t.tmp .. "/v", image = t.tmp .. "/v.img" }
    if not v then t:skip(why) end
    local dev = v:device()
    if not dev:match("^/dev/loop%d+$") then return "device " .. dev end
    if not v:close() then return "close failed" end
    if v:close() ~= true then return "a second close is not a no-op" end
    if pcall(v.device, v) then return "device() after close" end
    return "ok"'

# where FILE: the mount point and device a scenario recorded.
left() { # DIR DEV: what of the volume is left on the host, "" when nothing
	out=""
	[ -n "$2" ] && losetup "$2" 2>/dev/null | grep -qF "$1" && out="$out loop:$2"
	for m in /proc/[0-9]*/mountinfo; do
		grep -qF " $1 " "$m" 2>/dev/null && { out="$out mount:${m#/proc/}"; break; }
	done
	ps -eo pid=,args= | grep -F "mount.exfat-fuse" | grep -qF "$1" && out="$out daemon"
	printf '%s' "$out"
}
settled() { # ID: wait (bounded) until nothing of ID's volume is left
	dir=$(sed -n 1p "$tmp/$1.where" 2>/dev/null)
	dev=$(sed -n 2p "$tmp/$1.where" 2>/dev/null)
	[ -n "$dir" ] || { echo "no record"; return; }
	i=0
	while [ -n "$(left "$dir" "$dev")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	left "$dir" "$dev"
}

if [ "$(id -u)" != 0 ]; then
	env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.cf_ok' --out "$tmp/o" \
		>"$tmp/run.log" 2>&1
	if grep -qE '^skip +fs\.cf_ok +none .*needs root' "$tmp/run.log"; then
		ok "unprivileged: skip, saying it needs root"
	else notok "unprivileged: $(head -c 300 "$tmp/run.log")"; fi
	tap_end "$tmp/run.log"
	exit
fi
if ! command -v mkfs.exfat >/dev/null 2>&1 && [ ! -x /usr/sbin/mkfs.exfat ] ||
	[ ! -x /usr/sbin/mount.exfat-fuse ] || [ ! -e /dev/fuse ]; then
	echo "1..0 # SKIP no exfatprogs/exfat-fuse or /dev/fuse (ci/deps.sh installs them)"
	exit 0
fi

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.cf_ok' --out "$tmp/o" >"$tmp/run.log" 2>&1
if grep -qE '^pass +fs\.cf_ok ' "$tmp/run.log"; then ok "a volume folds names and is a mount of its own"
else notok "cf_ok: $(head -c 300 "$tmp/run.log")"; fi
r=$(settled fs.cf_ok)
if [ -z "$r" ]; then ok "after a normal end nothing is left"; else notok "after a normal end:$r"; fi

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.cf_api' --out "$tmp/o" >"$tmp/run.log" 2>&1
if grep -qE '^pass +fs\.cf_api ' "$tmp/run.log"; then ok "sp.casefold_volume: options checked, close once"
else notok "cf_api: $(head -c 300 "$tmp/run.log")"; fi

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.cf_error' --out "$tmp/o" >"$tmp/run.log" 2>&1
r=$(settled fs.cf_error)
if grep -qE '^error +fs\.cf_error .*boom' "$tmp/run.log" && [ -z "$r" ]; then
	ok "after an error nothing is left"
else notok "after an error:$r $(head -c 300 "$tmp/run.log")"; fi

env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.cf_hang' --timeout 3 --out "$tmp/o" \
	>"$tmp/run.log" 2>&1
r=$(settled fs.cf_hang)
if grep -qE '^error +fs\.cf_hang .*timed out' "$tmp/run.log" && [ -z "$r" ]; then
	ok "after a timeout's kill nothing is left"
else notok "after a timeout:$r $(head -c 300 "$tmp/run.log")"; fi

# The harness killed: its scenario process dies with it (PR_SET_PDEATHSIG),
# the FUSE daemon with that, and with them the mount namespace and the loop
# device.  The record is written before the wait starts: poll for it.
rm -f "$tmp/fs.cf_hang.where"
env SANDPROOF_SCENARIOS="$tmp/sc" "$sp" run --runner none --filter 'fs.cf_hang' --out "$tmp/o" \
	>"$tmp/run.log" 2>&1 &
hp=$!
i=0
while [ ! -s "$tmp/fs.cf_hang.where" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$hp"
wait "$hp" 2>/dev/null
r=$(settled fs.cf_hang)
if [ -s "$tmp/fs.cf_hang.where" ] && [ -z "$r" ]; then ok "after the harness's SIGKILL nothing is left"
else notok "after SIGKILL:$r (record: $(cat "$tmp/fs.cf_hang.where" 2>/dev/null))"; fi
# what a SIGKILLed harness leaves for the next run to sweep: the temp dirs
# of its scenario process (named by its pid), removed here
tdir=$(dirname "$(sed -n 1p "$tmp/fs.cf_hang.where" 2>/dev/null)")
spid=$(basename "$tdir" | cut -d- -f2)
case $spid in
*[!0-9]* | '') ;;
*) rm -rf /tmp/sandproof-"$spid"-fs_cf_hang-* /var/tmp/sandproof-"$spid"-fs_cf_hang-* ;;
esac

tap_end "$tmp/run.log"
