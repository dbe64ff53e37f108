/* assert: a failed assert (SIGABRT, with the assertion on stderr). */
#include <assert.h>
#include <stdio.h>

static int work(int i) { return i % 3 == 0 ? i * 2 : i + 1; }

int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(i + argc);
	printf("s = %d\n", s);
	assert(s < 0);
	return 0;
}
