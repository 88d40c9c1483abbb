/* caps_cli.c - see caps_cli.h.  The runner implements the whole contract;
 * only sessions depend on the build (SANDPROOF_REF_SESSIONS: ref/serve.c,
 * which needs pidfd and memfd, is built; elsewhere serve_none.c refuses). */
#include "caps_cli.h"

int caps_print(FILE *out)
{
	fputs("{\"version\":1,\"capabilities\":{\"gc\":true,\"doctor\":true,\"runtime_roots\":true,"
	      "\"raw_request\":true,\"limits\":true,\"output_limit\":true,"
	      "\"block_unix_sockets\":true,\"hold\":true,\"fault\":true,", out);
#ifdef SANDPROOF_REF_SESSIONS
	fputs("\"sessions\":true}}\n", out);
#else
	fputs("\"sessions\":false},\"reasons\":{\"sessions\":\"sandproof-ref serve is not built "
	      "for this platform (sessions need pidfd and memfd)\"}}\n", out);
#endif
	return fflush(out) == 0 && !ferror(out) ? 0 : 1;
}
