/* calls.c: leaf() is called from two callers with known counts — 3 calls from
 * one(), 2 + 5 from two() (two call sites in one block, one in a loop) — and fact()
 * recursively, for call edges and pprof's per-caller split. */
#include <stdio.h>

static int leaf(int i) {
	int s = 0;
	for (int k = 0; k < 4; k++)
		s += i * k;
	return s;
}

static int one(void) {
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += leaf(i);
	return s;
}

static int two(void) {
	int s = leaf(1) + leaf(2);
	for (int i = 0; i < 5; i++)
		s += leaf(i);
	return s;
}

static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

int main(void) {
	printf("%d %d\n", one() + two(), fact(5));
	return 0;
}
