/* sandproof/report_cli.h - the report subcommands of `sandproof`, the only
 * part of reports/ the harness sees (DESIGN.md "Dependency rules": reports/
 * and harness/ share nothing else but reports/store).
 *
 * Each takes the subcommand's own argv (argv[0] is its name, e.g. "report")
 * and returns the exit status: 0 done, REPORT_EXIT_REGRESSION (diff only),
 * REPORT_EXIT_USAGE (usage or bad input), REPORT_EXIT_INTERNAL (a write or
 * internal error).  They print their own messages.
 *   report_main    sandproof report DB [--format html|junit|markdown|tap] [-o FILE]
 *   diff_main      sandproof diff OLD NEW [--runner R] | diff --baseline FILE NEW
 *   baseline_main  sandproof baseline DB -o FILE
 *   merge_main     sandproof merge A.sqlite B.sqlite ... -o ALL.sqlite [--force] */
#ifndef SANDPROOF_REPORT_CLI_H
#define SANDPROOF_REPORT_CLI_H

#define REPORT_EXIT_REGRESSION 1
#define REPORT_EXIT_USAGE 2
#define REPORT_EXIT_INTERNAL 3

int report_main(int argc, char **argv);
int diff_main(int argc, char **argv);
int baseline_main(int argc, char **argv);
int merge_main(int argc, char **argv);

#endif
