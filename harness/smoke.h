/* smoke.h - `sandproof smoke`: a quick verdict for an admin's machine. */
#ifndef SANDPROOF_SMOKE_H
#define SANDPROOF_SMOKE_H

#include "scen.h"

/* argv[0] is "smoke".  Exit 0 when the reference runner holds every
 * checked property, 1 when any fails, 2 usage, 3 when this host cannot
 * enforce the contract at all or a result could not be recorded (as for
 * `run`). */
int smoke_main(const struct scen_paths *p, int argc, char **argv);

#endif
