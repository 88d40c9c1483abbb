/* sbpl.h - the Seatbelt profile of a request, and a model that reads it.
 *
 * Portable C, compiled and tested on every OS: the macOS backend
 * (platforms/macos/enforce) hands sbpl_generate()'s text and parameters to
 * /usr/bin/sandbox-exec; `sandproof-ref profile --os macos` prints them
 * anywhere; the model (sbpl_model_*) decides operations the way Seatbelt
 * does, so the contract can be checked against every generated profile on a
 * machine that has no Seatbelt.
 *
 * The generator is pure: it reads only the request and the options below,
 * never the filesystem.  Whether a policy path is canonical on the host
 * (no symlink in it, /tmp spelled /private/tmp) is the backend's check,
 * made before it calls the generator; the generator refuses what it can
 * see is not canonical by spelling alone. */
#ifndef SANDPROOF_SBPL_H
#define SANDPROOF_SBPL_H

#include <stdbool.h>
#include <stddef.h>

#include "sandproof/request.h"

#define SBPL_ERR_MAX 512

/* Seatbelt refuses a whole profile with a string literal longer than this. */
#define SBPL_LITERAL_MAX 1025

/* One `-D NAME=VALUE` parameter of sandbox-exec, read in the profile as
 * (param "NAME"). */
struct sbpl_param {
	char *name;
	char *value;
};

struct sbpl_profile {
	char *text; /* the SBPL program, NUL-terminated */
	struct sbpl_param *params;
	size_t n_params;
};

/* What the generator needs besides the request. */
struct sbpl_opts {
	/* The per-run private temp directory (canonical, absolute), exported
	 * to the command as TMPDIR and writable; NULL when the request has no
	 * runtime root (then allow_temp is refused: nowhere private to put it). */
	const char *temp_dir;
	/* A tag in every deny's (with message ...), so the backend can find
	 * this run's denials in the unified log. */
	const char *message_tag;
	/* How the volumes of the policy paths compare names (namefold.h):
	 * 0 byte for byte; NAMEFOLD_NORM (every APFS and HFS+ volume);
	 * NAMEFOLD_CASE (a case-insensitive one).  With either, every deny on
	 * a path (read-only subpaths, deny_write, protected names, deny_read,
	 * the move-blocking ancestors) also gets a regex that matches every
	 * spelling of it (NAME_FOLD parameters), beside its literal. */
	unsigned name_fold;
	/* ioctls on any terminal (/dev/ttys*): an inherited terminal then
	 * works (isatty, the window size, raw mode).  Only for a runner that
	 * is not root: XNU lets root's TIOCSTI reach a terminal it holds open
	 * outside its session (PRIV-4). */
	bool terminal_ioctl;
};

/* Request -> profile.  0 and *out filled (free with sbpl_profile_free), or
 * -EINVAL / -EOPNOTSUPP / -ENAMETOOLONG / -ENOMEM with err naming the field
 * and the reason ("profile.filesystem.deny_read[1]: /tmp/x: not canonical
 * on macos (/tmp is /private/tmp; spell it /private/tmp/x)"), or -EPROTO
 * when the generated text fails sbpl_lint (a bug of the generator, still
 * refused).  Never a profile that enforces less than the request asks.
 * opts may be NULL (no temp directory, no tag).  On failure *out holds
 * nothing (sbpl_profile_free on it is harmless). */
int sbpl_generate(const struct request *req, const struct sbpl_opts *opts,
		  struct sbpl_profile *out, char err[SBPL_ERR_MAX]);
void sbpl_profile_free(struct sbpl_profile *p);

/* Refuse a profile Seatbelt would reject or misread: any string literal
 * over SBPL_LITERAL_MAX bytes, an unbalanced form.  0 or -EINVAL with err. */
int sbpl_lint(const char *text, char err[SBPL_ERR_MAX]);

#endif
