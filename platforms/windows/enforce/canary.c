/* canary.c - the runtime self-checks that fail closed (issue 32 §1;
 * DESIGN.md, "Verifying what we cannot run", 3).
 *
 * Contract: before the command starts, sandproof-canary.exe (canary_main.c,
 * next to the runner's executable) is started under the command's very
 * token, in its job, on its desktop, and tries what the plan says must be
 * refused:
 *   network  a TCP connect to a listener the runner holds on 127.0.0.1 and a
 *            UDP datagram to a socket the runner holds; the runner watches
 *            both sockets itself, so a connection or a datagram that arrives
 *            counts whatever the canary reports;
 *   outside  a file the runner makes outside the grant, opened for DELETE,
 *            WRITE_DAC and FILE_WRITE_DATA (the rights a write-restricted
 *            token may get from its enabled SIDs alone under one reading of
 *            the documents: platforms/windows/model).
 * If anything gets through, or the canary cannot run, finish or report, the
 * run is refused: step "network:canary" or "acl:canary", nothing of the
 * command ran.  A wrong design then costs a refusal, never a false
 * "denied".  The cost is one process start and, only when the canary says
 * a datagram left, a wait of at most CANARY_UDP_WAIT_MS for it. */
#include <winsock2.h>
#include <ws2tcpip.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "winenf.h"

#define CANARY_WAIT_MS 10000
#define CANARY_UDP_WAIT_MS 200
#define CANARY_BASE 0x40

wchar_t *canary_exe(void)
{
	wchar_t self[MAX_PATH], *slash, *out;
	DWORD n = GetModuleFileNameW(NULL, self, MAX_PATH);

	if (!n || n >= MAX_PATH || !(slash = wcsrchr(self, L'\\')))
		return NULL;
	slash[1] = L'\0';
	out = malloc((wcslen(self) + 32) * sizeof(*out));
	if (out)
		swprintf(out, wcslen(self) + 32, L"%lssandproof-canary.exe", self);
	return out;
}

/* Start the canary with args under s, wait for it; its exit code in *code. */
static int canary_exec(const struct canary_spawn *s, const wchar_t *args, DWORD *code,
		       const char *step, struct wenf_error *e)
{
	wchar_t cmd[1024], sysdir[MAX_PATH], *env = NULL;
	char sysroot[MAX_PATH + 16];
	const char *envv[1] = {sysroot};
	HANDLE nul = CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ |
				 FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
	PROCESS_INFORMATION pi;
	struct spawn_req r;
	int rc;

	swprintf(cmd, 1024, L"\"%ls\" %ls", s->exe, args);
	GetSystemDirectoryW(sysdir, MAX_PATH);
	snprintf(sysroot, sizeof(sysroot), "SystemRoot=%s",
		 getenv("SystemRoot") ? getenv("SystemRoot") : "C:\\Windows");
	rc = spawn_envblock(envv, 1, &env);
	r = (struct spawn_req){.token = s->token, .other_user = s->other_user, .job = s->job,
			       .desktop = s->desktop, .app = s->exe, .cmdline = cmd, .env = env,
			       .cwd = sysdir, .in = nul, .out = nul, .err = nul};
	if (rc == 0 && nul != INVALID_HANDLE_VALUE)
		rc = spawn_start(&r, &pi, e);
	else
		rc = wenf_fail(e, step, NULL, ENOMEM, "the canary's environment or NUL");
	if (rc == 0) {
		if (WaitForSingleObject(pi.hProcess, CANARY_WAIT_MS) != WAIT_OBJECT_0) {
			TerminateProcess(pi.hProcess, 1);
			rc = wenf_fail(e, step, NULL, ETIMEDOUT, "the canary did not finish: refused");
		} else if (!GetExitCodeProcess(pi.hProcess, code)) {
			rc = wenf_fail(e, step, NULL, EIO, "the canary's exit code: refused");
		}
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
	} else if (e) {
		snprintf(e->step, sizeof(e->step), "%s", step); /* a canary that cannot start */
	}
	if (nul != INVALID_HANDLE_VALUE)
		CloseHandle(nul);
	free(env);
	return rc;
}

/* One loopback socket of the runner's: TCP listening, or UDP bound. */
static SOCKET loopback(int type, unsigned short *port)
{
	struct sockaddr_in a;
	int len = sizeof(a);
	SOCKET s = socket(AF_INET, type, type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP);
	u_long nb = 1;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s == INVALID_SOCKET || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (type == SOCK_STREAM && listen(s, 4) != 0) ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0 || ioctlsocket(s, FIONBIO, &nb) != 0) {
		if (s != INVALID_SOCKET)
			closesocket(s);
		return INVALID_SOCKET;
	}
	*port = ntohs(a.sin_port);
	return s;
}

static bool readable(SOCKET s, int ms)
{
	fd_set r;
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	FD_ZERO(&r);
	FD_SET(s, &r);
	return select(0, &r, NULL, NULL, &tv) == 1;
}

/* What arrived at the runner's own sockets. */
static unsigned arrived(SOCKET t, SOCKET u, const char *nonce, bool sent)
{
	unsigned got = 0;
	char buf[64];
	int n;

	if (readable(t, 0)) {
		SOCKET c = accept(t, NULL, NULL);

		if (c != INVALID_SOCKET) {
			got |= 0x1;
			closesocket(c);
		}
	}
	if (readable(u, sent ? CANARY_UDP_WAIT_MS : 0) &&
	    (n = recv(u, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		if (strcmp(buf, nonce) == 0)
			got |= 0x2;
	}
	return got;
}

static int net_verdict(DWORD code, unsigned seen, struct wenf_error *e)
{
	if ((code & ~0x1fu) != CANARY_BASE)
		return wenf_fail(e, "network:canary", NULL, EIO, "the canary exited %lu, not a "
				 "report: refused, nothing ran", (unsigned long)code);
	if ((code | seen) & 0x3) {
		unsigned got = (code | seen) & 0x3;

		return wenf_fail(e, "network:canary", NULL, EPERM,
				 "under the command's token %s got through: network deny does not "
				 "hold here; refused, nothing ran",
				 got == 0x3 ? "a TCP connect to the runner's loopback listener and a "
					      "UDP datagram to its loopback socket"
				 : got == 0x1 ? "a TCP connect to the runner's loopback listener"
					      : "a UDP datagram to the runner's loopback socket");
	}
	return 0;
}

int canary_network(const struct canary_spawn *s, struct wenf_error *e)
{
	WSADATA wsa;
	unsigned short tp = 0, up = 0;
	SOCKET t = INVALID_SOCKET, u = INVALID_SOCKET;
	char nonce[40];
	wchar_t args[96];
	DWORD code = 0;
	int rc;

	if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
		return wenf_fail(e, "network:canary", NULL, EIO, "WSAStartup: refused");
	snprintf(nonce, sizeof(nonce), "sandproof-%lu-%llu", (unsigned long)GetCurrentProcessId(),
		 (unsigned long long)GetTickCount64());
	t = loopback(SOCK_STREAM, &tp);
	u = loopback(SOCK_DGRAM, &up);
	if (t == INVALID_SOCKET || u == INVALID_SOCKET)
		rc = wenf_fail(e, "network:canary", NULL, EIO, "the runner's loopback sockets: "
			       "error %d; refused", WSAGetLastError());
	else {
		swprintf(args, 96, L"net %u %u %hs", tp, up, nonce);
		rc = canary_exec(s, args, &code, "network:canary", e);
	}
	if (rc == 0)
		rc = net_verdict(code, arrived(t, u, nonce, (code & 0x2) != 0), e);
	if (t != INVALID_SOCKET)
		closesocket(t);
	if (u != INVALID_SOCKET)
		closesocket(u);
	WSACleanup();
	return rc;
}

int canary_outside(const struct canary_spawn *s, const char *dir, struct wenf_error *e)
{
	wchar_t *wd = wenf_wide(dir), path[MAX_PATH + 64], args[MAX_PATH + 80];
	HANDLE f;
	DWORD code = 0;
	int rc;

	if (!wd)
		return wenf_fail(e, "acl:canary", dir, EINVAL, "not valid UTF-8");
	swprintf(path, MAX_PATH + 64, L"%ls\\canary-%lu-%llu", wd, (unsigned long)GetCurrentProcessId(),
		 (unsigned long long)GetTickCount64());
	free(wd);
	f = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return wenf_fail(e, "acl:canary", dir, wenf_errno(GetLastError()),
				 "cannot make the canary's file: error %lu; refused", GetLastError());
	CloseHandle(f);
	swprintf(args, MAX_PATH + 80, L"outside \"%ls\"", path);
	rc = canary_exec(s, args, &code, "acl:canary", e);
	if (rc == 0 && (code & ~0x1fu) != CANARY_BASE)
		rc = wenf_fail(e, "acl:canary", NULL, EIO, "the canary exited %lu, not a report: "
			       "refused, nothing ran", (unsigned long)code);
	else if (rc == 0 && (code & 0x1c))
		rc = wenf_fail(e, "acl:canary", NULL, EPERM,
			       "the command's token opened a file of the runner's outside the grant "
			       "for%s%s%s: the write restriction does not hold here; refused, "
			       "nothing ran", (code & 0x4) ? " DELETE" : "",
			       (code & 0x8) ? ((code & 0x4) ? ", WRITE_DAC" : " WRITE_DAC") : "",
			       (code & 0x10) ? ((code & 0xc) ? ", WRITE_DATA" : " WRITE_DATA") : "");
	DeleteFileW(path);
	return rc;
}
