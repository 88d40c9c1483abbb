/* child.c - see child.h. */
#include "child.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

char **child_env(void)
{
	size_t n = 0, k = 0, plen = strlen(CHILD_MARKER "=");
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 2, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], CHILD_MARKER "=", plen) != 0)
			env[k++] = environ[i];
	/* the last entry is ours to free */
	if (asprintf(&env[k], CHILD_MARKER "=%ld", (long)getpid()) < 0) {
		free(env);
		return NULL;
	}
	return env;
}

void child_env_free(char **env)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	if (n)
		free(env[n - 1]);
	free(env);
}

int child_check(const char *subcommand)
{
	const char *m = getenv(CHILD_MARKER);
	char *end;
	long pid = m ? strtol(m, &end, 10) : 0;

	if (!m || *end || pid <= 0 || pid != (long)getppid()) {
		fprintf(stderr, "sandproof: %s is internal: only `sandproof run` and `sandproof smoke` "
			"start it (%s)\n", subcommand,
			m ? CHILD_MARKER " does not name the parent process" : CHILD_MARKER " is not set");
		return -1;
	}
	unsetenv(CHILD_MARKER);
	return 0;
}

/* ---- sp.spawn_bg's options, as records: a tag byte, a 32-bit length in
 * host order (the reader is this same executable), the bytes; strings
 * with their NUL. */

struct blob {
	char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct blob *b, char tag, const void *data, size_t n)
{
	uint32_t n32 = (uint32_t)n;

	if (b->failed)
		return;
	if (b->len + 5 + n > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096) + 5 + n;
		char *p = realloc(b->p, cap);

		if (!p || n > UINT32_MAX) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	b->p[b->len] = tag;
	memcpy(b->p + b->len + 1, &n32, 4);
	if (n)
		memcpy(b->p + b->len + 5, data, n);
	b->len += 5 + n;
}

static void put_str(struct blob *b, char tag, const char *s)
{
	put(b, tag, s, strlen(s) + 1);
}

static void put_num(struct blob *b, char tag, long long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", v);
	put_str(b, tag, num);
}

int child_spawn_encode(const struct proc_opts *o, int delay_ms, char **out, size_t *len)
{
	struct blob b = {0};

	if (delay_ms > 0)
		put_num(&b, 'D', delay_ms);

	for (size_t i = 0; o->argv[i]; i++)
		put_str(&b, 'a', o->argv[i]);
	if (o->envp) {
		put(&b, 'E', "", 0);
		for (size_t i = 0; o->envp[i]; i++)
			put_str(&b, 'e', o->envp[i]);
	}
	if (o->cwd)
		put_str(&b, 'c', o->cwd);
	put(&b, 'i', o->stdin_data ? o->stdin_data : "", o->stdin_len);
	put_num(&b, 't', o->timeout_ms);
	put_num(&b, 'k', o->kill_leftovers);
	put_num(&b, 'p', o->private_mounts);
	put_num(&b, 'U', o->userns_fd);
	put_num(&b, 'N', o->netns_fd);
	if (o->fault_syscall) {
		put_str(&b, 'f', o->fault_syscall);
		put_num(&b, '1', o->fault_errno);
		put_num(&b, '2', o->fault_nth);
		put_num(&b, '3', o->fault_once);
		put_num(&b, '4', o->fault_arg1_set);
		put_num(&b, '5', (long long)o->fault_arg1);
	}
	for (size_t i = 0; o->hold_syscalls && o->hold_syscalls[i]; i++)
		put_str(&b, 'h', o->hold_syscalls[i]);
	put_num(&b, 'H', o->hold_at);
	if (o->hold_comm)
		put_str(&b, 'C', o->hold_comm);
	if (b.failed) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* The decoded options: o points into the blob and the vectors. */
struct spawn_args {
	struct proc_opts o;
	const char **argv, **envp, **hold;
	size_t nargv, nenvp, nhold;
	long delay_ms; /* before the program starts */
};

static int vec_add(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

/* One record (tag, data s of n bytes: a NUL-terminated string for every
 * tag but 'i' and 'E') into a.  0, -EINVAL for a record this reader does
 * not know or a string without its NUL, -ENOMEM. */
static int decode_one(struct spawn_args *a, char tag, const char *s, size_t n)
{
	struct proc_opts *o = &a->o;
	long long v;

	if (tag == 'i') {
		o->stdin_data = s;
		o->stdin_len = n;
		return 0;
	}
	if (tag == 'E') {
		if (!a->envp && !(a->envp = calloc(1, sizeof(*a->envp))))
			return -ENOMEM;
		return 0;
	}
	if (n == 0 || s[n - 1] != '\0')
		return -EINVAL;
	v = strtoll(s, NULL, 10);
	switch (tag) {
	case 'a': return vec_add(&a->argv, &a->nargv, s);
	case 'e': return vec_add(&a->envp, &a->nenvp, s);
	case 'h': return vec_add(&a->hold, &a->nhold, s);
	case 'c': o->cwd = s; return 0;
	case 'f': o->fault_syscall = s; return 0;
	case 'C': o->hold_comm = s; return 0;
	case 't': o->timeout_ms = (int)v; return 0;
	case 'k': o->kill_leftovers = v != 0; return 0;
	case 'p': o->private_mounts = v != 0; return 0;
	case 'U': o->userns_fd = (int)v; return 0;
	case 'N': o->netns_fd = (int)v; return 0;
	case '1': o->fault_errno = (int)v; return 0;
	case '2': o->fault_nth = (unsigned)v; return 0;
	case '3': o->fault_once = v != 0; return 0;
	case '4': o->fault_arg1_set = v != 0; return 0;
	case '5': o->fault_arg1 = (uint64_t)v; return 0;
	case 'H': o->hold_at = (int)v; return 0;
	case 'D': a->delay_ms = v > 0 ? (long)v : 0; return 0;
	default: return -EINVAL;
	}
}

static int spawn_decode(char *p, size_t len, struct spawn_args *a)
{
	size_t at = 0;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	proc_opts_init(&a->o);
	while (rc == 0 && at < len) {
		uint32_t n;

		if (len - at < 5)
			return -EINVAL;
		memcpy(&n, p + at + 1, 4);
		if (len - at - 5 < n)
			return -EINVAL;
		rc = decode_one(a, p[at], p + at + 5, n);
		at += 5 + n;
	}
	if (rc == 0 && !a->argv)
		rc = -EINVAL;
	a->o.argv = (char *const *)a->argv;
	a->o.envp = (char *const *)a->envp;
	a->o.hold_syscalls = a->hold;
	return rc;
}

/* All of stdin, malloc'd into *p.  0 or -errno. */
static int read_all(char **p, size_t *len)
{
	size_t cap = 65536;
	ssize_t n;

	*len = 0;
	if (!(*p = malloc(cap)))
		return -ENOMEM;
	while ((n = read(0, *p + *len, cap - *len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		*len += (size_t)n;
		if (*len == cap) {
			char *more = realloc(*p, cap * 2);

			if (!more)
				return -ENOMEM;
			*p = more;
			cap *= 2;
		}
	}
	return 0;
}

int child_spawn_main(void)
{
	struct spawn_args a;
	struct proc_result r;
	char *blob = NULL;
	size_t len;
	int rc;

	if (child_check("__spawn") < 0)
		return 2;
	if ((rc = read_all(&blob, &len)) < 0 || (rc = spawn_decode(blob, len, &a)) < 0) {
		fprintf(stderr, "sandproof: __spawn: bad options on stdin: %s\n", strerror(-rc));
		return 2;
	}
	if (a.delay_ms > 0) {
		struct timespec ts = {a.delay_ms / 1000, (a.delay_ms % 1000) * 1000000L};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	/* Orphans of the program stay ours, so its tree kill reaches them. */
	proc_init();
	rc = proc_run(&a.o, &r);
	if (rc == 0) {
		printf("code=%d\nsignal=%d\nstdout=%zu\n", r.exited ? r.exit_code : -1,
		       r.term_signal, r.out_len);
		fwrite(r.out, 1, r.out_len, stdout);
	}
	proc_result_free(&r);
	free(a.argv);
	free(a.envp);
	free(a.hold);
	free(blob);
	return fflush(stdout) == 0 ? 0 : 1;
}
