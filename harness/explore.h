/* explore.h - `sandproof explore` (docs/EXPLORE.md): generated attack
 * programs against one runner, judged by the host-side contract oracle
 * (harness/lua/sandproof/explore/), every violating program shrunk and
 * written as a scenario file DIR/found/<id>.lua.
 *
 * Each violation is recorded in DIR/<os>.sqlite as a fail (with its impact
 * class) of its emitted scenario, fs.found_<id>, the program (seed, ops,
 * policy) and its shrunk form as evidence; the run row (filter "explore")
 * holds the summary (programs, rate, coverage) in its fingerprint under
 * "explore". */
#ifndef SANDPROOF_EXPLORE_H
#define SANDPROOF_EXPLORE_H

#include "scen.h"

/* argv[0] is "explore".  Exit 0 when no violation was found, 1 when one
 * was, 2 usage (a bad option or number, an unknown runner or one not
 * available here, an unusable --out, a database refused), 3 internal (the
 * driver failed, 20 programs in a row could not be run, a result not
 * recorded). */
int explore_main(const struct scen_paths *p, int argc, char **argv);

#endif
