/* calls.c: a hot loop that calls a small function through a direct call and one
   through a pointer, so the hot graph holds call and return edges.
   Usage: calls [iterations] */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long step(long x) {
	return (x * 1103515245 + 12345) & 0x7fffffff;
}

__attribute__((noinline)) static long mix(long x) {
	for (int k = 0; k < 8; k++)
		x ^= x >> 3;
	return x;
}

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 200000;
	long (*volatile f)(long) = mix;
	long x = 1, acc = 0;
	for (long i = 0; i < n; i++) {
		x = step(x);
		if (x & 4)
			acc += f(x);
		else
			acc -= x;
	}
	printf("%ld\n", acc);
	return 0;
}
