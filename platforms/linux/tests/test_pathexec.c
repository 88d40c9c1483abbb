/* test_pathexec.c - the one PATH search (common/pathexec.h).
 *
 * Each case forks a child that calls pathexec_execve() with a given argv[0],
 * environment and working directory.  The programs it may find are shell
 * scripts in a scratch tree, each exiting with its own code, so the exit
 * status says which one ran; when none runs, the child sends back the
 * errno pathexec_execve() returned and exits 100.  The tree:
 *   d1/prog   exits 11           d2/prog   exits 12
 *   cwd/prog  exits 13           noexec/prog  mode 0644 (EACCES)
 *   junk/prog mode 0755, not a program the kernel knows (ENOEXEC)
 *   file      a regular file used as a PATH element (ENOTDIR) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pathexec.h"
#include "t.h"

static char root[64];

/* root/rel, in a static ring of buffers (several in one expression). */
static const char *at(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int i;
	char *b = buf[i++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", root, rel);
	return b;
}

static void put(const char *rel, const char *text, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) < 0) {
		perror(rel);
		exit(2);
	}
	close(fd);
}

/* Run pathexec_execve(name) from cwd under envp.  Returns the program's
 * exit code (11, 12, 13, 0...) or, when none ran, -errno as returned. */
static int run(const char *name, const char *cwd, char *const envp[])
{
	char *argv[] = {(char *)name, NULL};
	int p[2], status, err = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1000;
	pid = fork();
	if (pid == 0) {
		if (chdir(cwd) < 0)
			_exit(99);
		err = pathexec_execve(argv, envp);
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(98);
		_exit(100);
	}
	close(p[1]);
	if (read(p[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
		return -err;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -2000;
}

static char *env1(const char *kv)
{
	static char buf[4][PATH_MAX * 2];
	static int i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "%s", kv);
	return b;
}

static void tree(void)
{
	const char *dirs[] = {"d1", "d2", "cwd", "noexec", "junk"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdir(at(dirs[i]), 0755) < 0) {
			perror(dirs[i]);
			exit(2);
		}
	put("d1/prog", "#!/bin/sh\nexit 11\n", 0755);
	put("d2/prog", "#!/bin/sh\nexit 12\n", 0755);
	put("cwd/prog", "#!/bin/sh\nexit 13\n", 0755);
	put("noexec/prog", "#!/bin/sh\nexit 14\n", 0644);
	put("junk/prog", "\x01\x02 not a program\n", 0755);
	put("file", "", 0644);
}

static void cases_where(void)
{
	char path[PATH_MAX * 2];
	char *e1[] = {path, NULL};
	char *e2[] = {env1("HOME=/"), path, env1("PATH=/nonexistent"), NULL};
	char *none[] = {env1("HOME=/"), NULL};
	char saved[PATH_MAX];

	snprintf(path, sizeof(path), "PATH=%s", at("d1"));
	t_ok(run("prog", "/", e1) == 11, "a name is found in envp's PATH");
	t_ok(run("prog", "/", e2) == 11, "envp's first PATH entry is the one searched");
	/* The caller's own PATH holds d2: it must never be searched. */
	snprintf(saved, sizeof(saved), "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", at("d2"), 1);
	t_ok(run("prog", "/", none) == -ENOENT,
	     "without PATH in envp the caller's PATH is not searched (%d)", run("prog", "/", none));
	setenv("PATH", saved, 1);
	t_ok(run("true", "/", none) == 0, "without PATH in envp, " PATHEXEC_DEFAULT " is");
	t_ok(run("true", "/", NULL) == 0, "a NULL envp is an empty one: the default PATH");
	snprintf(path, sizeof(path), "PATH=%s", at("d1"));
	t_ok(run(at("d2/prog"), "/", e1) == 12, "a name with a '/' is executed as it is");
	t_ok(run("./prog", at("cwd"), e1) == 13, "a relative name with a '/' is not searched");
	t_ok(run("", at("cwd"), e1) == -ENOENT, "an empty name is ENOENT");
	snprintf(path, sizeof(path), "PATH=/nonexistent:%s", at("d2"));
	t_ok(run("prog", "/", e1) == 12, "elements are tried in order, a missing one skipped");
	snprintf(path, sizeof(path), "PATH=%s:%s", at("file"), at("d2"));
	t_ok(run("prog", "/", e1) == 12, "an element that is a file (ENOTDIR) is skipped");
	snprintf(path, sizeof(path), "PATH=/%0*d:%s", PATH_MAX - 2, 0, at("d2"));
	t_ok(run("prog", "/", e1) == 12, "an element too long for PATH_MAX is skipped");
	snprintf(path, sizeof(path), "PATH=/nonexistent");
	t_ok(run("prog", at("cwd"), e1) == -ENOENT, "found nowhere: ENOENT");
}

static void cases_empty(void)
{
	char path[PATH_MAX * 2];
	char *e1[] = {path, NULL};

	snprintf(path, sizeof(path), "PATH=:%s", at("d1"));
	t_ok(run("prog", at("cwd"), e1) == 13, "a leading empty element is the working directory");
	snprintf(path, sizeof(path), "PATH=/nonexistent::%s", at("d1"));
	t_ok(run("prog", at("cwd"), e1) == 13, "a middle empty element is the working directory");
	snprintf(path, sizeof(path), "PATH=/nonexistent:");
	t_ok(run("prog", at("cwd"), e1) == 13, "a trailing empty element is the working directory");
	snprintf(path, sizeof(path), "PATH=");
	t_ok(run("prog", at("cwd"), e1) == 13, "an empty PATH is the working directory");
	snprintf(path, sizeof(path), "PATH=%s", at("d1"));
	t_ok(run("prog", at("cwd"), e1) == 11, "no empty element: the working directory is not searched");
}

static void cases_errors(void)
{
	char path[PATH_MAX * 2];
	char *e1[] = {path, NULL};

	snprintf(path, sizeof(path), "PATH=%s:/nonexistent", at("noexec"));
	t_ok(run("prog", "/", e1) == -EACCES, "EACCES is reported over a later ENOENT (%d)",
	     run("prog", "/", e1));
	snprintf(path, sizeof(path), "PATH=/nonexistent:%s", at("noexec"));
	t_ok(run("prog", "/", e1) == -EACCES, "EACCES is reported over an earlier ENOENT");
	snprintf(path, sizeof(path), "PATH=%s:%s", at("noexec"), at("d1"));
	t_ok(run("prog", "/", e1) == 11, "after EACCES the search goes on and finds d1/prog");
	snprintf(path, sizeof(path), "PATH=%s:%s", at("junk"), at("d1"));
	t_ok(run("prog", "/", e1) == -ENOEXEC,
	     "ENOEXEC ends the search: the first program found is not replaced by a later one (%d)",
	     run("prog", "/", e1));
	snprintf(path, sizeof(path), "PATH=%s:%s", at("noexec"), at("junk"));
	t_ok(run("prog", "/", e1) == -ENOEXEC, "an error that ends the search is reported over EACCES");
}

int main(void)
{
	char cmd[PATH_MAX + 16];
	int rc;

	snprintf(root, sizeof(root), "/tmp/sp-pathexec-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	tree();
	cases_where();
	cases_empty();
	cases_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	rc = system(cmd);
	t_ok(rc == 0 && access(root, F_OK) < 0, "scratch tree removed");
	return t_done();
}
