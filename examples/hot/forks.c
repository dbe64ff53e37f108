/* forks.c: forks a child that runs a hot loop while the parent waits, then runs
   its own loop. Usage: forks [iterations] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long spin(long n) {
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i & 3;
	return s;
}

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 100000;
	pid_t c = fork();
	if (c == 0) {
		spin(n);
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	printf("%ld %d\n", spin(n), WEXITSTATUS(st));
	return 0;
}
