/* treecpu.c: runs a command and appends to a file the CPU time of its whole process
   tree, as the kernel accounts it when the command is reaped (wait4: user + system
   of the command and of every descendant it waited for), and its wall time, in
   microseconds: "cpu_us wall_us exit". Each -eNAME=VALUE before the command is put
   in the command's environment, as a shell that exported it would (no env(1)
   process in the tree). For bench/samplecost.sh.
   Usage: treecpu OUTFILE [-eNAME=VALUE...] COMMAND [ARG...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int cmd = 2;
	while (cmd < argc && strncmp(argv[cmd], "-e", 2) == 0 && strchr(argv[cmd], '=')) {
		cmd++;
	}
	if (cmd >= argc) {
		fprintf(stderr, "usage: treecpu OUTFILE [-eNAME=VALUE...] COMMAND [ARG...]\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("treecpu: fork");
		return 1;
	}
	if (pid == 0) {
		for (int i = 2; i < cmd; i++) {
			putenv(argv[i] + 2);
		}
		execvp(argv[cmd], argv + cmd);
		perror(argv[cmd]);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid) {
		perror("treecpu: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *f = fopen(argv[1], "a");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	long long cpu = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
	long long wall = (long long)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
	fprintf(f, "%lld %lld %d\n", cpu, wall, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
