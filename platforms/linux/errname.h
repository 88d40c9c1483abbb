/* errname.h - this OS's symbolic errno and signal names ("EACCES"), the form the contract uses:
 * evidence must keep EACCES/EPERM/EROFS (policy) apart from ENOENT or
 * ECONNREFUSED (nothing there), and numbers differ between OSes.  A platform
 * service: used by the runner core and by the harness alike. */
#ifndef SANDPROOF_ERRNAME_H
#define SANDPROOF_ERRNAME_H

/* Never NULL: unknown values come back as "E<number>" in a static buffer. */
const char *errname(int err);
/* "SIGKILL" or "SIG<number>". */
const char *signame(int sig);

#endif
