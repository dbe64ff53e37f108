/* kill.c: works for a while, says so, then waits to be killed (SIGKILL): the
 * continuous-mode test checks that the counts up to that point survive. */
#include <stdio.h>
#include <unistd.h>

static int step(int i) { return i % 7 == 0 ? i * 3 : i + 1; }

int main(void) {
	long s = 0;
	for (int i = 0; i < 1000; i++)
		s += step(i);
	printf("ready %ld\n", s);
	fflush(stdout);
	for (;;)
		pause();
}
