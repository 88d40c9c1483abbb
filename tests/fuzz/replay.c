/* replay.c - main() for a fuzz driver built without libFuzzer: runs the
 * driver once over every file of the directories (or files) named on the
 * command line, so the committed corpus is a regression test on every
 * compiler.  Exit 0 when every input ran (a violated property aborts);
 * 1 when an input could not be read or none was found. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int replay_dir(const char *dir, int *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), rc = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (replay_file(path) < 0)
				rc = -1;
			else
				(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc |= replay_dir(argv[i], &count) < 0;
		else if (replay_file(argv[i]) < 0)
			rc = 1;
		else
			count++;
	}
	printf("replayed %d inputs\n", count);
	return rc || count == 0 ? 1 : 0;
}
