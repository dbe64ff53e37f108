/* divzero: an integer division by zero (SIGFPE). */
#include <stdio.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(i + argc);
	printf("s = %d\n", s);
	int d = argc - 1;
	printf("%d\n", s / d);  /* fault: an integer division by zero */
	return 0;
}
