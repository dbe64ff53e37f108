/* stack_overflow: unbounded recursion (SIGSEGV on the guard page; the runtime's
 * handler runs on its own signal stack). */
#include <stdio.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

/* Where the stack ends is random: the fault may be at any line of deep. */
/* fault in deep: a stack overflow */
static int deep(int n) {
	volatile char frame[512];
	frame[n % 512] = (char)n;
	if (n == -1)
		return 0;
	return deep(n + 1) + frame[(n * 7) % 512];
}

int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(i + argc);
	printf("s = %d\n", s);
	return deep(argc);
}
