/* sys/mman.h - the windows build's <sys/mman.h>: declared in wincompat.h (the forced
 * include); this file lets POSIX code include it by its usual name. */
#include "wincompat.h"
