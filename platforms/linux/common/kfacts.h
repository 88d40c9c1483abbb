/* kfacts.h - kernel facts both sides of Linux ask: the runner (doctor,
 * enforcement) and the harness (the run's fingerprint).  Each is a probe of
 * the running kernel, never a version guess. */
#ifndef SANDPROOF_KFACTS_H
#define SANDPROOF_KFACTS_H

/* Landlock ABI version the kernel offers: > 0, 0 when Landlock is absent
 * or disabled (ENOSYS, EOPNOTSUPP), -errno when the probe itself failed
 * otherwise (a failure the caller must not mistake for "absent"). */
int kfacts_landlock_abi(void);

/* 1 when the kernel and libseccomp offer seccomp user notification (the
 * action exists and the API level has it), else 0.  No fork. */
int kfacts_seccomp_notify_offered(void);

/* 1 when a user-notification listener can really be created here, else 0:
 * also false when a filter already in force in this process's chain has a
 * listener (the harness holding this runner under its own).  Forks one
 * child that installs a filter and exits; cached once it could tell. */
int kfacts_seccomp_notify_usable(void);

#endif
