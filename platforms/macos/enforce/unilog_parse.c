/* unilog_parse.c - Seatbelt denials out of `log show --style ndjson` text
 * (seatbelt.h, unilog_parse).  Portable: the golden tests run it on every
 * OS (platforms/macos/tests/unilog_lines.txt, with the source of each line).
 *
 * One JSON object a line; its "eventMessage" string, unescaped as JSON
 * (RFC 8259 section 7: \" \\ \/ \b \f \n \r \t \uXXXX, surrogate pairs), is
 *
 *     Sandbox: PROCESS(PID) deny(N) OPERATION TARGET
 *
 * with the profile's message tag in one of two places: after a newline
 * (what sandbox-runtime's log monitor reads: the tag on a line of its own
 * at the message's end), or at the end of the same line after a space.
 * The denial is "OPERATION TARGET" of the first line, the tag cut off
 * wherever it stands; a message that does not carry the tag (when one is
 * asked for), that is not a deny, or that is "N duplicate reports for ..."
 * (the log folding repeats; the first report was a line of its own) adds
 * nothing.  The process name may hold spaces and parentheses: the deny is
 * found by " deny(", not by splitting. */
#include <stdlib.h>
#include <string.h>

#include "namefold.h"
#include "unilog.h"

#define MSG_MAX 4096

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long hex4(const char *s)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hexval(s[i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* The JSON string starting at s (just past its opening quote), unescaped
 * into out (cut at cap - 1): 0, or -1 for a malformed one. */
static int json_string(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	for (; *s && *s != '"'; s++) {
		char buf[4];
		size_t k = 1;
		long cp;

		buf[0] = *s;
		if (*s == '\\') {
			s++;
			switch (*s) {
			case '"': case '\\': case '/': buf[0] = *s; break;
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			case 'u':
				if ((cp = hex4(s + 1)) < 0)
					return -1;
				s += 4;
				if (cp >= 0xD800 && cp <= 0xDBFF && s[1] == '\\' && s[2] == 'u') {
					long lo = hex4(s + 3);

					if (lo >= 0xDC00 && lo <= 0xDFFF) {
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
						s += 6;
					}
				}
				if (!(k = namefold_utf8_encode((uint32_t)cp, buf)))
					buf[0] = '?', k = 1; /* a lone surrogate */
				break;
			default:
				return -1;
			}
		}
		for (size_t i = 0; i < k && n + 1 < cap; i++)
			out[n++] = buf[i];
	}
	out[n] = '\0';
	return *s == '"' ? 0 : -1;
}

/* The "eventMessage" value of one ndjson line into msg. */
static int event_message(const char *line, char *msg, size_t cap)
{
	static const char key[] = "\"eventMessage\"";
	const char *p = strstr(line, key);

	if (!p)
		return -1;
	p += sizeof(key) - 1;
	while (*p == ' ' || *p == ':')
		p++;
	return *p == '"' ? json_string(p + 1, msg, cap) : -1;
}

/* One message: its denial into d when it is a deny of the run. */
static void parse_message(char *msg, const char *tag, struct denials *d)
{
	char *nl = strchr(msg, '\n'), *deny, *op, *end;
	size_t tl = tag ? strlen(tag) : 0;

	if (strncmp(msg, "Sandbox: ", 9) != 0)
		return; /* not a report, or "N duplicate reports for Sandbox: ..." */
	if (tag && !strstr(msg, tag))
		return;
	if (nl)
		*nl = '\0'; /* the tag's own line, and anything after */
	if (!(deny = strstr(msg, " deny(")) || !(op = strchr(deny + 1, ' ')))
		return;
	op++;
	end = op + strlen(op);
	/* The tag at the end of the line itself, after a space. */
	if (tl && (size_t)(end - op) > tl && !strcmp(end - tl, tag) && end[-tl - 1] == ' ')
		end[-tl - 1] = '\0';
	if (*op)
		denials_add(d, "seatbelt", op);
}

void unilog_parse(char *text, const char *tag, struct denials *d)
{
	char *msg = malloc(MSG_MAX), *save = NULL;

	if (!msg)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (event_message(line, msg, MSG_MAX) == 0)
			parse_message(msg, tag, d);
	free(msg);
}
