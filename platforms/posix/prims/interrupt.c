/* interrupt.c - prims_interrupt_install/prims_interrupted on POSIX (every
 * POSIX platform layer compiles it): SIGINT, SIGTERM and SIGHUP only record
 * their number; the harness polls it between the slices of its waiting. */
#include "sandproof/prims.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupt_sig;

static void on_interrupt(int sig)
{
	interrupt_sig = sig;
}

int prims_interrupt_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}

int prims_interrupted(void)
{
	return interrupt_sig;
}
