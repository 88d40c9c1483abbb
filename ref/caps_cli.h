/* caps_cli.h - `sandproof-ref --sandproof-capabilities`: what a harness may
 * ask of this runner through the contract's command line (docs/RUNNERS.md,
 * "The capability object"). */
#ifndef SANDPROOF_CAPS_CLI_H
#define SANDPROOF_CAPS_CLI_H

#include <stdio.h>

/* Writes the capability object, one JSON line; 0, or 1 when it could not
 * be written. */
int caps_print(FILE *out);

#endif
