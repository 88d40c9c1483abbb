/* fuzz.h - the libFuzzer entry point every driver in tests/fuzz defines.
 * Built with clang's -fsanitize=fuzzer it is driven by libFuzzer; otherwise
 * replay.c supplies main() and runs it over the committed corpus. */
#ifndef SANDPROOF_FUZZ_H
#define SANDPROOF_FUZZ_H

#include <stddef.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#endif
