/* fuzz_serve.c - the protocol fuzzer, on bytes: the input is what a caller
 * writes to `sandproof-ref serve`'s stdin, then closes (serve_drive.h: the
 * line handler, the operations and the session table with fake sessions
 * and a fake clock; one response line per request line, each a JSON
 * object; the table's bounds; no hang).  --max-sessions 9, so the running
 * sessions past SESS-6's floor of 8 can be pruned; lines of at most 512
 * bytes, so over-long ones are reached. */
#include "fuzz.h"
#include "serve_drive.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	drive_begin(9, 512);
	drive_input((const char *)data, size);
	drive_end();
	return 0;
}
