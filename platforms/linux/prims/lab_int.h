/* lab_int.h - what the parts of the network lab share (contract in
 * sandproof/lab.h):
 *
 *   lab_netlink.c  a minimal rtnetlink client: links, veth pairs,
 *                  addresses, routes (the keeper builds the lab with it)
 *   lab_child.c    the lab's child processes: tethered, fds kept, killed
 *   lab_keeper.c   the keeper, its handshake with lab_create, the lab's
 *                  life (create, enter, destroy)
 *   lab_listen.c   the listeners and their hit counters
 */
#ifndef SANDPROOF_LAB_INT_H
#define SANDPROOF_LAB_INT_H

#include <sys/types.h>

#include "sandproof/lab.h"

/* ---- lab_netlink.c: every call acts on the network namespace the socket
 * was created in, whatever the caller's current one; 0 (or an index) or
 * -errno. */

/* A NETLINK_ROUTE socket with a 5 s receive timeout. */
int lab_nl_open(void);
/* Bring the interface name up, first adding addr/prefix (IPv4) when addr
 * is not NULL.  Returns its index. */
int lab_nl_bring_up(int fd, const char *name, const char *addr, int prefix);
/* A veth pair name <-> peer, the peer moved into peer_netns (-1: stays). */
int lab_nl_add_veth(int fd, const char *name, const char *peer, int peer_netns);
/* A route to dst/len via gw out of the interface oif (IPv4). */
int lab_nl_add_route(int fd, const char *dst, int len, const char *gw, int oif);

/* ---- lab_child.c ---- */

/* A pidfd for pid, or -1 (errno set). */
int lab_child_open_pidfd(pid_t pid);
/* Kill and reap a child of ours, closing its pidfd (-1: none). */
void lab_child_kill(pid_t pid, int pidfd);
/* Child side, right after fork: die with the creating thread (parent: its
 * pid before fork).  0, or -1 when the parent is already gone. */
int lab_child_tether(pid_t parent);
/* Child side: keep only fd (moved to 3) and /dev/null on 0-2.  Returns 3,
 * or -1. */
int lab_child_keep_one_fd(int fd);
/* Wait until fd is readable, at most timeout_ms: 0, -ETIMEDOUT or -errno. */
int lab_child_wait_readable(int fd, int timeout_ms);

/* ---- lab_listen.c ---- */

/* Kill every listener of l and remove the filesystem sockets that are
 * still the ones they bound (lab_destroy's first step). */
void lab_listeners_stop(struct lab *l);

#endif
