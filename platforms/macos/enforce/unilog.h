/* unilog.h - the run's Seatbelt denials from the macOS unified log:
 * unilog.c runs `log show` (macOS only), unilog_parse.c reads its lines
 * (portable, golden-tested on every OS). */
#ifndef SANDPROOF_UNILOG_H
#define SANDPROOF_UNILOG_H

#include <time.h>

#include "sandproof/platform.h"

/* The denials in text, the output of `log show --style ndjson`, one JSON
 * object a line (unilog_parse.c): each Seatbelt deny whose eventMessage
 * carries tag (NULL: any) as {"seatbelt", "OPERATION TARGET"}, the tag
 * cut off.  text is cut into lines in place. */
void unilog_parse(char *text, const char *tag, struct denials *d);

/* The run's denials from the unified log (macOS: `log show` filtered on
 * the profile's message tag, since `since`).  0 when the log was read
 * (denials added), -errno when it could not be (denials unavailable);
 * always -EOPNOTSUPP in the posix-sim. */
int unilog_denials(const char *tag, time_t since, struct denials *d);

#endif
