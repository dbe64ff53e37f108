/* sigterm: an uncaught SIGTERM sent to itself with kill (SIGTERM). */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(i + argc);
	printf("s = %d\n", s);
	fflush(stdout);
	kill(getpid(), SIGTERM);
	for (;;)
		pause();
}
