/* canary_main.c - sandproof-canary.exe: what the runner starts under the
 * command's very token and job before the command, to see that what must
 * be refused is (canary.c; DESIGN.md, "Verifying what we cannot run", 3).
 *
 *   sandproof-canary net TCPPORT UDPPORT NONCE
 *       a TCP connect to 127.0.0.1:TCPPORT and a UDP datagram NONCE to
 *       127.0.0.1:UDPPORT (both the runner's); the runner also watches its
 *       own sockets, so a result this program misreports is still seen;
 *   sandproof-canary outside PATH
 *       opens PATH (a file of the runner's, outside the grant) for DELETE,
 *       then WRITE_DAC, then FILE_WRITE_DATA, each on its own.
 * Exit: 0x40 | the bits of what got through (0x1 TCP connected, 0x2 UDP
 * sent, 0x4 DELETE, 0x8 WRITE_DAC, 0x10 WRITE_DATA); 2 for bad arguments;
 * anything else is a failure the runner treats as a refusal. */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define BASE 0x40

static unsigned short port_of(const wchar_t *s)
{
	wchar_t *end = NULL;
	unsigned long v = wcstoul(s, &end, 10);

	return end && !*end && v > 0 && v < 65536 ? (unsigned short)v : 0;
}

static int net(unsigned short tport, unsigned short uport, const wchar_t *nonce)
{
	struct sockaddr_in a;
	SOCKET t, u;
	char buf[64];
	int n = WideCharToMultiByte(CP_UTF8, 0, nonce, -1, buf, sizeof(buf), NULL, NULL);
	int got = 0;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(tport);
	t = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	if (t != INVALID_SOCKET && connect(t, (struct sockaddr *)&a, sizeof(a)) == 0)
		got |= 0x1;
	if (t != INVALID_SOCKET)
		closesocket(t);
	a.sin_port = htons(uport);
	u = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	if (u != INVALID_SOCKET && n > 1 &&
	    sendto(u, buf, n - 1, 0, (struct sockaddr *)&a, sizeof(a)) == n - 1)
		got |= 0x2;
	if (u != INVALID_SOCKET)
		closesocket(u);
	return BASE | got;
}

static bool opens(const wchar_t *path, DWORD access)
{
	HANDLE h = CreateFileW(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			       NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);

	if (h == INVALID_HANDLE_VALUE)
		return false;
	CloseHandle(h);
	return true;
}

static int outside(const wchar_t *path)
{
	int got = 0;

	if (opens(path, DELETE))
		got |= 0x4;
	if (opens(path, WRITE_DAC))
		got |= 0x8;
	if (opens(path, FILE_WRITE_DATA))
		got |= 0x10;
	return BASE | got;
}

int wmain(int argc, wchar_t **argv);

int wmain(int argc, wchar_t **argv)
{
	WSADATA wsa;

	if (argc == 5 && wcscmp(argv[1], L"net") == 0) {
		unsigned short tp = port_of(argv[2]), up = port_of(argv[3]);

		if (!tp || !up || WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
			return 2;
		return net(tp, up, argv[4]);
	}
	if (argc == 3 && wcscmp(argv[1], L"outside") == 0)
		return outside(argv[2]);
	return 2;
}
