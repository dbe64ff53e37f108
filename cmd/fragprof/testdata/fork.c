/* fork.c: a parent and its forked children share the work; fragprof adds up the
 * counts of every process (TestForkCounts). With K = 3 children, each child calls
 * work 10 times, the parent 5 times; one child ends by exit(), one returns from
 * main, one is exec'd into this program again (argv[1] = "exec"), where main calls
 * work 7 times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

int main(int argc, char **argv) {
	int s = 0;
	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		for (int i = 0; i < 7; i++)
			s += work(i);
		return s == 0;
	}
	for (int k = 0; k < 3; k++) {
		pid_t pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0) {
			if (k == 2) {
				execl("/proc/self/exe", argv[0], "exec", (char *)0);
				_exit(127);
			}
			for (int i = 0; i < 10; i++)
				s += work(i);
			if (k == 0)
				exit(0);
			return 0;
		}
		int st;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 3;
	}
	for (int i = 0; i < 5; i++)
		s += work(i);
	printf("%d\n", s);
	return 0;
}
