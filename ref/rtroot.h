/* rtroot.h - the run path's use of runtime roots (RT-*).
 *
 * acquire() runs before the platform plans the launch: when the request has
 * a profile.runtime it takes the root's lease and yields the effective
 * request (the caller's plus the root's environment and writable folders)
 * that rtroot_request() returns.  release() drops the lease once the
 * sandbox is gone.  A request without profile.runtime passes unchanged. */
#ifndef SANDPROOF_RTROOT_H
#define SANDPROOF_RTROOT_H

#include "outcome.h"
#include "sandproof/request.h"

int rtroot_acquire(const struct request *req, struct outcome_runtime *rt,
			 struct setup_error *err);
const struct request *rtroot_request(const struct request *req);
void rtroot_release(void);

#endif
