/* null_store: a store through a null pointer (SIGSEGV). At -O2 clang ends main with
 * `unreachable` at the store, so the code falls off main's end: the plain build dies
 * of SIGSEGV in what follows it, and so must the instrumented one. */
#include <stdio.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(i + argc);
	printf("s = %d\n", s);
	int *p = 0;
	*p = s;  /* fault: a null pointer -O0; just past the end of main -O2 */
	return 0;
}
