/* pathexec.h - the one PATH search of this OS: how a command name becomes
 * a program, for the runner's command (enforce/nsinit.c) and the harness's
 * launcher (prims/proc_child.c) alike.
 *
 * pathexec_execve() is execvp's search, on the environment the program
 * will get, never the caller's own:
 *   - a name with a '/' is executed as it is, never searched;
 *     an empty name fails with ENOENT;
 *   - PATH is envp's first "PATH=" entry (the one getenv() in the program
 *     will see); without one, PATHEXEC_DEFAULT;
 *   - its elements are tried in order, and an empty one (leading,
 *     trailing, "::", or an empty PATH as a whole) is the working
 *     directory: POSIX's legacy rule, which execvp, sh and bash keep;
 *   - a candidate that is not there (ENOENT, ENOTDIR, and the network
 *     file systems' ESTALE, ENODEV, ETIMEDOUT) passes to the next element;
 *     one that may not be executed (EACCES) is remembered and the search
 *     goes on, so a later element may still hold one that may;
 *   - any other failure (ENOEXEC, ETXTBSY, ELOOP, E2BIG, ENOMEM...) ends
 *     the search with that error: the first program found is the one the
 *     name means, and a later one is never run in its place;
 *   - a candidate whose path would not fit in PATH_MAX is skipped;
 *   - unlike glibc's execvp, a file the kernel cannot execute (ENOEXEC) is
 *     reported, never handed to /bin/sh.
 *
 * For a child between fork and execve: no allocation, no lock, only
 * execve itself as a system call. */
#ifndef SANDPROOF_PATHEXEC_H
#define SANDPROOF_PATHEXEC_H

/* PATH when the environment has none. */
#define PATHEXEC_DEFAULT "/usr/local/bin:/usr/bin:/bin"

/* Replace the process with argv[0] (searched as above) under envp (NULL:
 * as an empty environment, so PATHEXEC_DEFAULT).  Returns only on failure,
 * with the errno that describes it best: the error that ended the search,
 * else EACCES when a candidate was found but could not be executed, else
 * ENOENT. */
int pathexec_execve(char *const argv[], char *const envp[]);

#endif
