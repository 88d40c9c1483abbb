# ci/unpriv.sh - sourced (". ci/unpriv.sh") by the scripts that run as an
# unprivileged user when called as root (test.sh, peers-matrix.sh).
#
# unpriv_copy HERE   create the system user "sandproof-test" if needed and
#                    copy the tracked tree of HERE into a fresh directory
#                    under /var/tmp (not /tmp: sandboxes replace /tmp, and
#                    the probe must stay visible), owned by that user; sets
#                    $unpriv_user and $unpriv_work, removed when the
#                    calling script exits (this sets its EXIT trap).
# unpriv_sh SCRIPT   run the sh script text as that user, in a clean
#                    environment whose HOME is $unpriv_work.
# unpriv_user_ensure only the user: create it if needed, set $unpriv_user
#                    (ci/deb.sh, which needs no copy of the tree).
unpriv_user_ensure() {
	unpriv_user=sandproof-test
	id "$unpriv_user" >/dev/null 2>&1 || useradd --system --create-home --shell /bin/sh "$unpriv_user"
}

unpriv_copy() {
	unpriv_user_ensure
	unpriv_work=$(mktemp -d /var/tmp/sandproof-unpriv.XXXXXX)
	trap 'rm -rf "$unpriv_work"' EXIT
	git -C "$1" ls-files -z | (cd "$1" && xargs -0 tar cf -) | tar xf - -C "$unpriv_work"
	chown -R "$unpriv_user" "$unpriv_work"
	chmod 755 "$unpriv_work"
}

unpriv_sh() {
	runuser -u "$unpriv_user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$unpriv_work" sh -c "$1"
}
