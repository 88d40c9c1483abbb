/* fuzz_plain.c - the plain request fuzzer: arbitrary bytes through the
 * validator alone and through the whole parser, no property but memory
 * safety and defined behaviour (run it under ASan and UBSan). */
#include <stdlib.h>

#include "fuzz.h"
#include "jscan.h"
#include "sandproof/request.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct jscan_strings strs = {0};
	char err[REQUEST_ERR_MAX];
	struct request req;

	(void)jscan_check((const char *)data, size, &strs, err, sizeof(err));
	jscan_strings_free(&strs);
	if (request_parse((const char *)data, size, &req, err) == 0)
		request_free(&req);
	return 0;
}
