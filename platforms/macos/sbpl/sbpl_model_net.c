/* sbpl_model_net.c - the network filters and the localhost quirk
 * (MODEL.md, "network").
 *
 * (local|remote PROTO "HOST:PORT"): PROTO ip, ip4, ip6, tcp, tcp4, tcp6,
 * udp, udp4, udp6; HOST `*` or `localhost` (Seatbelt refuses any other
 * host); PORT `*` or a number.  `localhost` matches a loopback address
 * (127.0.0.0/8, ::1), any of the host's interface addresses, and, as the
 * local end, a socket that was never bound and the unspecified address
 * (0.0.0.0, ::; what an unbound socket's local end reads as): the quirk
 * that makes a "loopback only" allowance reach the host's own services.
 * Modelled wide on purpose: a checker that sees a localhost allowance
 * reach more can only refuse a profile, never pass a leaky one.
 * (local|remote unix-socket F): F (path-literal, subpath, path-regex) over
 * the AF_UNIX endpoint's path. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_model_int.h"

struct proto_name {
	const char *name;
	unsigned protos, fams;
};

#define TCP SBPL_PROTO_BIT(SBPL_PROTO_TCP)
#define UDP SBPL_PROTO_BIT(SBPL_PROTO_UDP)

static const struct proto_name protos[] = {
	{"ip", TCP | UDP, SBPL_FAM_4 | SBPL_FAM_6}, {"ip4", TCP | UDP, SBPL_FAM_4},
	{"ip6", TCP | UDP, SBPL_FAM_6},             {"tcp", TCP, SBPL_FAM_4 | SBPL_FAM_6},
	{"tcp4", TCP, SBPL_FAM_4},                  {"tcp6", TCP, SBPL_FAM_6},
	{"udp", UDP, SBPL_FAM_4 | SBPL_FAM_6},      {"udp4", UDP, SBPL_FAM_4},
	{"udp6", UDP, SBPL_FAM_6},
};

/* "HOST:PORT" into f (host_any, port). */
static int net_hostport(struct sbpl_pctx *c, const struct sbpl_node *a, struct sbpl_flt *f)
{
	const char *colon = a->kind == SBPL_NODE_STRING ? strrchr(a->text, ':') : NULL;
	size_t hl = colon ? (size_t)(colon - a->text) : 0;
	char *end;
	long port;

	if (!colon)
		return sbpl_model_fail(c, a->pos, "expected \"HOST:PORT\"");
	if (hl == 1 && a->text[0] == '*')
		f->host_any = true;
	else if (hl != 9 || strncmp(a->text, "localhost", 9))
		return sbpl_model_fail(c, a->pos, "host must be * or localhost");
	if (!strcmp(colon + 1, "*")) {
		f->port = -1;
		return 0;
	}
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535 || colon[1] == '-' || colon[1] == '+')
		return sbpl_model_fail(c, a->pos, "port must be * or 0..65535");
	f->port = (int)port;
	return 0;
}

/* (local|remote unix-socket [F]): without F, every unix socket there. */
static int net_unix(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f)
{
	const struct sbpl_node *sub = n->n_kids == 3 ? &n->kids[2] : NULL;
	const char *h = sub && sub->kind == SBPL_NODE_LIST && sub->n_kids &&
				sub->kids[0].kind == SBPL_NODE_SYMBOL ? sub->kids[0].text : "";

	f->kind = SBPL_FLT_UNIX;
	if (!sub)
		return 0;
	if (strcmp(h, "path-literal") && strcmp(h, "subpath") && strcmp(h, "path-regex"))
		return sbpl_model_fail(c, sub->pos, "unix-socket takes path-literal, subpath or path-regex");
	if (!(f->kids = calloc(1, sizeof(*f->kids))))
		return -ENOMEM;
	f->n_kids = 1;
	return sbpl_model_flt_parse(c, sub, f->kids);
}

int sbpl_model_net_parse(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f)
{
	const char *p = n->n_kids >= 2 && n->kids[1].kind == SBPL_NODE_SYMBOL ? n->kids[1].text : "";
	size_t k;

	f->remote = !strcmp(n->kids[0].text, "remote");
	if (!strcmp(p, "unix-socket") && n->n_kids <= 3)
		return net_unix(c, n, f);
	if (n->n_kids != 3)
		p = "";
	f->kind = SBPL_FLT_IP;
	for (k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
		if (!strcmp(p, protos[k].name)) {
			f->protos = protos[k].protos;
			f->fams = protos[k].fams;
			return net_hostport(c, &n->kids[2], f);
		}
	return sbpl_model_fail(c, n->pos, "%s: expected (%s PROTO \"HOST:PORT\") or (%s unix-socket F)",
			       n->kids[0].text, n->kids[0].text, n->kids[0].text);
}

/* The family of a numeric address (SBPL_FAM_*), 0 when it is not one. */
static unsigned ip_family(const char *ip, unsigned char bin[16])
{
	if (ip && inet_pton(AF_INET, ip, bin) == 1)
		return SBPL_FAM_4;
	if (ip && inet_pton(AF_INET6, ip, bin) == 1)
		return SBPL_FAM_6;
	return 0;
}

/* Every address of q numeric, ports in range, IP ends with a protocol. */
int sbpl_model_net_check(const struct sbpl_query *q)
{
	const struct sbpl_addr *e[2] = {&q->local, &q->remote};
	unsigned char bin[16];
	size_t k;

	for (k = 0; k < 2; k++) {
		if (e[k]->ip && (!ip_family(e[k]->ip, bin) || e[k]->port < 0 || e[k]->port > 65535 ||
				 q->proto == SBPL_PROTO_NONE))
			return -EINVAL;
		if (e[k]->unix_path && !sbpl_model_path_canonical(e[k]->unix_path))
			return -EINVAL;
	}
	for (k = 0; k < q->n_ifaddrs; k++)
		if (!ip_family(q->ifaddrs[k], bin))
			return -EINVAL;
	return 0;
}

/* Loopback, one of the host's interface addresses, or (a local end) the
 * unspecified address. */
static bool ip_is_localhost(const char *ip, bool local, const struct sbpl_query *q)
{
	static const unsigned char zero[16];
	unsigned char a[16], b[16];
	unsigned fam = ip_family(ip, a);
	size_t k;

	if (fam == SBPL_FAM_4 && a[0] == 127)
		return true;
	if (fam == SBPL_FAM_6 && !memcmp(a, &in6addr_loopback, 16))
		return true;
	if (local && !memcmp(a, zero, fam == SBPL_FAM_4 ? 4 : 16))
		return true;
	for (k = 0; k < q->n_ifaddrs; k++)
		if (ip_family(q->ifaddrs[k], b) == fam && !memcmp(a, b, fam == SBPL_FAM_4 ? 4 : 16))
			return true;
	return false;
}

static bool ip_match(const struct sbpl_flt *f, const struct sbpl_query *q)
{
	const struct sbpl_addr *e = f->remote ? &q->remote : &q->local;
	const struct sbpl_addr *other = f->remote ? &q->local : &q->remote;
	unsigned char bin[16];
	unsigned fam = ip_family(e->ip ? e->ip : other->ip, bin);

	if (q->proto == SBPL_PROTO_NONE || !(f->protos & SBPL_PROTO_BIT(q->proto)) ||
	    !(f->fams & fam))
		return false;
	if (!e->ip) /* an unbound local end: only a localhost or * host, any port */
		return !f->remote && e->unbound && f->port == -1;
	if (f->port != -1 && f->port != e->port)
		return false;
	return f->host_any || ip_is_localhost(e->ip, !f->remote, q);
}

bool sbpl_model_net_match(const struct sbpl_flt *f, const struct sbpl_query *q)
{
	const struct sbpl_addr *e = f->remote ? &q->remote : &q->local;
	struct sbpl_query sub;

	if (f->kind == SBPL_FLT_IP)
		return ip_match(f, q);
	if (!e->unix_path)
		return false;
	if (!f->n_kids)
		return true;
	sub = *q;
	sub.path = e->unix_path;
	return sbpl_model_flt_match(f->kids, &sub);
}
