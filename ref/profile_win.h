/* profile_win.h - the Windows plan as JSON, for `profile --os windows
 * --format json` (the facts of winplan_print_text's text). */
#ifndef SANDPROOF_PROFILE_WIN_H
#define SANDPROOF_PROFILE_WIN_H

#include <stdio.h>

#include "winplan.h"

/* One JSON object and a newline on f.  0, or -EIO when f reports an error. */
int profile_win_json(const struct winplan *p, FILE *f);

#endif
