/* lab.c - lab.h on windows, copied from the posix bring-up platform:
 * Windows has no network namespace to build a lab in, so every call is
 * refused (prims_lacks("lab")).  No lab ever exists. */
#include "sandproof/prims.h"
#include "sandproof/lab.h"

#include <errno.h>
#include <stdio.h>

int lab_create(const struct lab_opts *o, struct lab **out, char *err, size_t errlen)
{
	(void)o;
	*out = NULL;
	if (err && errlen)
		snprintf(err, errlen, "unsupported on %s: no network namespaces", prims_os_name());
	return -EOPNOTSUPP;
}

int lab_enter(const struct lab *l)
{
	(void)l;
	return -EOPNOTSUPP;
}

int lab_enter_far(const struct lab *l)
{
	(void)l;
	return -EOPNOTSUPP;
}

int lab_listen(struct lab *l, int proto, const char *addr, uint16_t port,
	       uint16_t *port_out)
{
	(void)l;
	(void)proto;
	(void)addr;
	(void)port;
	(void)port_out;
	return -EOPNOTSUPP;
}

int lab_listen_unix(struct lab *l, const char *path, const char *abstract_name, int type)
{
	(void)l;
	(void)path;
	(void)abstract_name;
	(void)type;
	return -EOPNOTSUPP;
}

long lab_hits(const struct lab *l, int id)
{
	(void)l;
	(void)id;
	return -EINVAL;
}

long lab_hits_wait(const struct lab *l, int id, unsigned long min, int timeout_ms)
{
	(void)l;
	(void)id;
	(void)min;
	(void)timeout_ms;
	return -EINVAL;
}

void lab_destroy(struct lab *l)
{
	(void)l; /* always NULL: lab_create never made one */
}
