/* oob_write: a write far past the end of an array (SIGSEGV). */
#include <stdio.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

char table[16];

int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(i + argc);
	printf("s = %d\n", s);
	long off = (1L << 40) * argc;
	table[off] = (char)s;  /* fault */
	return table[0];
}
