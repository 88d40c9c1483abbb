/* exec_cli.h - `sandproof-ref exec` flags into a validated request
 * (exec_cli.c says how). */
#ifndef SANDPROOF_EXEC_CLI_H
#define SANDPROOF_EXEC_CLI_H

#include "sandproof/request.h"
#include "run.h"

enum { EXEC_HELP = 1, EXEC_USAGE = 2, EXEC_INTERNAL = 3 };

/* argv[0] is "exec".  Returns 0 with *req filled (the caller runs and frees
 * it) and *io set for exec's stdio; EXEC_HELP when --help was asked;
 * EXEC_USAGE after printing what is wrong (nothing to free); EXEC_INTERNAL
 * when memory ran out. */
int exec_build(int argc, char **argv, struct request *req, struct run_io *io);

#endif
