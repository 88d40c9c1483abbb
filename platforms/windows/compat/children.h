/* children.h - between children.c and poll.c (private). */
#ifndef SANDPROOF_WINCOMPAT_CHILDREN_H
#define SANDPROOF_WINCOMPAT_CHILDREN_H
/* Calls the SIGCHLD handler once per registered child that has ended. */
void wc_children_notify(void);
#endif
