// interleave.c: times several builds of one program run by run, in turn, without a
// shell between them, for bench/overhead.sh.
//
// Usage: interleave RUNS STDIN CMD...
// Each CMD is one string of words split at spaces: leading NAME=VALUE words set
// environment variables of that command's runs alone, the next word is the program
// and the rest its arguments (no quoting: the benches' arguments have no spaces).
// RUNS times, every CMD is started in turn (A B C A B C ...) with STDIN as its
// standard input and /dev/null as its output, and waited for. For each run one line
// is printed: "INDEX WALL CPU", the 0-based index of the CMD, the wall seconds from
// just before the start to just after the wait (CLOCK_MONOTONIC), and the CPU
// seconds the kernel accounted to the child (wait4's rusage, user + system).
// A run's exit status is not looked at: some examples crash or exit non-zero on
// purpose, and overhead.sh checks beforehand that every build prints what the
// plain one prints.
//
// Why not a shell loop: a loop of `sh -c 'for …; do ./x; done'` adds the shell's own
// fork and exec to every run, and a program that runs for a millisecond (the
// examples) is then measured inside a figure twice its size; taking the builds in
// turn run by run, rather than in blocks of a hundred, lets a change of the
// machine's speed hit every build alike.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct cmd {
	const char *text;
	char **argv; // program and arguments
	char **envp; // environ with the command's NAME=VALUE words added
};

// parse splits text at spaces into a command.
static void parse(struct cmd *c, const char *text) {
	char *s = strdup(text), *w, *save = NULL;
	size_t nenv = 0, nargv = 0, cap = strlen(text) + 2;
	char **sets = calloc(cap, sizeof *sets);
	c->text = text;
	c->argv = calloc(cap, sizeof *c->argv);
	for (w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (nargv == 0 && strchr(w, '=') && w[0] != '=' && w[0] != '.' && w[0] != '/')
			sets[nenv++] = w;
		else
			c->argv[nargv++] = w;
	}
	if (nargv == 0) {
		fprintf(stderr, "interleave: no program in %s\n", text);
		exit(2);
	}
	size_t n = 0;
	while (environ[n])
		n++;
	c->envp = calloc(n + nenv + 1, sizeof *c->envp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		// A variable the command sets replaces the inherited one.
		int over = 0;
		for (size_t j = 0; j < nenv; j++) {
			size_t len = strchr(sets[j], '=') - sets[j] + 1;
			over |= strncmp(environ[i], sets[j], len) == 0;
		}
		if (!over)
			c->envp[k++] = environ[i];
	}
	for (size_t j = 0; j < nenv; j++)
		c->envp[k++] = sets[j];
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: interleave RUNS STDIN CMD...\n");
		return 2;
	}
	long runs = strtol(argv[1], NULL, 10);
	const char *in = argv[2];
	int k = argc - 3;
	struct cmd *cmds = calloc(k, sizeof *cmds);
	for (int i = 0; i < k; i++)
		parse(&cmds[i], argv[3 + i]);
	for (long r = 0; r < runs; r++) {
		for (int i = 0; i < k; i++) {
			posix_spawn_file_actions_t fa;
			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
			posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
			posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
			pid_t pid;
			double t0 = now();
			int err = posix_spawn(&pid, cmds[i].argv[0], &fa, NULL, cmds[i].argv, cmds[i].envp);
			posix_spawn_file_actions_destroy(&fa);
			if (err) {
				fprintf(stderr, "interleave: %s: %s\n", cmds[i].text, strerror(err));
				return 1;
			}
			int st;
			struct rusage ru;
			while (wait4(pid, &st, 0, &ru) < 0)
				if (errno != EINTR) {
					perror("interleave: wait4");
					return 1;
				}
			double wall = now() - t0;
			double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
			printf("%d %.6f %.6f\n", i, wall, cpu);
		}
	}
	return 0;
}
