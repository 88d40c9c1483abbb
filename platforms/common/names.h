/* names.h - this OS's symbolic errno and signal names ("EACCES",
 * "SIGKILL"), the form the contract uses (OUT-6): evidence must keep
 * EACCES/EPERM/EROFS (policy) apart from ENOENT or ECONNREFUSED (nothing
 * there), and numbers differ between OSes.  The one table of this OS:
 * the runner seam (platform_errno_name), the primitives seam
 * (prims_errno_name) and the in-sandbox probe all read it.
 *
 * The lookups (platforms/common/names.c) are one portable copy; each OS
 * gives its tables in platforms/<os>/common/names_table.c. */
#ifndef SANDPROOF_NAMES_H
#define SANDPROOF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* One OS's table: a value and its name; a name whose value an earlier
 * entry has (an alias) is found by name, never returned for the value. */
struct names_entry {
	int v;
	const char *name;
};
extern const struct names_entry names_errs[], names_sigs[];
extern const size_t names_nerrs, names_nsigs;

/* Never NULL: an unknown value comes back as "ERRNO_<n>" in a per-thread
 * buffer, valid until the next call.  Aliases (EWOULDBLOCK, ENOTSUP...)
 * share a value with an earlier entry and are never returned. */
const char *names_errno(int err);
/* The value of an errno name, or -1 when this OS has none of that name. */
int names_errno_value(const char *name);
/* "SIGKILL", or "SIG<n>" (per-thread buffer) for a number without a name;
 * known is set to whether it had one (may be NULL). */
const char *names_signal(int sig, bool *known);

/* The number of a signal name, "SIGTERM" or "TERM", in any case; -1 when
 * this OS has none of that name. */
int names_signal_value(const char *name);

#endif
