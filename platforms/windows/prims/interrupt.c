/* interrupt.c - prims_interrupt_install/prims_interrupted on windows: a
 * console control handler (SetConsoleCtrlHandler) records the event as a
 * signal number and returns TRUE, so the harness ends its run itself
 * (kills the scenario's job, records what finished, exits 128 + the
 * number) instead of being ended by the default handler.  Windows runs the
 * handler on a thread of its own: it only stores a number.  A close,
 * logoff or shutdown event ends the process when the handler returns
 * (Windows' rule), so for those it waits up to 4 s for the harness to
 * finish first. */
#include "sandproof/prims.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <signal.h>

static volatile LONG interrupt_sig;

static BOOL WINAPI on_ctrl(DWORD event)
{
	LONG sig = event == CTRL_C_EVENT ? SIGINT : event == CTRL_BREAK_EVENT ? SIGBREAK : SIGTERM;

	InterlockedCompareExchange(&interrupt_sig, sig, 0);
	if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT)
		Sleep(4000);
	return TRUE;
}

int prims_interrupt_install(void)
{
	return SetConsoleCtrlHandler(on_ctrl, TRUE) ? 0 : -EINVAL;
}

int prims_interrupted(void)
{
	return (int)InterlockedCompareExchange(&interrupt_sig, 0, 0);
}
