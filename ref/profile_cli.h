/* profile_cli.h - `sandproof-ref profile`: the Seatbelt profile or the
 * Windows plan of a request, printed on any OS (profile_cli.c).  Part of
 * the sandproof-ref executable, not of the runner core: it is the one place
 * ref/ sees the macOS generator (platforms/macos/sbpl/sbpl.h) and the
 * Windows plan (platforms/windows/plan/winplan.h). */
#ifndef SANDPROOF_PROFILE_CLI_H
#define SANDPROOF_PROFILE_CLI_H

#include "sandproof/request.h"

/* Provided by cli.c: read the request at reqpath ("-": standard input)
 * within wait_s seconds and parse it as `run` does, judging its paths by
 * rules (NULL: POSIX, the runner's own).  0, or 2 after saying why on
 * stderr. */
int cli_read_request(const char *reqpath, long wait_s,
		     const struct request_path_rules *rules, struct request *req);

/* argv[0] is "profile".  Returns the exit status (0 printed, 2 usage, bad
 * request or a request the profile cannot express, 1 output error). */
int profile_main(int argc, char **argv);

#endif
