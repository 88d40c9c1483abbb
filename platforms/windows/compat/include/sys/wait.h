/* sys/wait.h - the windows build's <sys/wait.h>: declared in wincompat.h (the forced
 * include); this file lets POSIX code include it by its usual name. */
#include "wincompat.h"
