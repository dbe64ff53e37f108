/* crash.c: runs a hot loop, then dereferences a null pointer (SIGSEGV).
   Usage: crash [iterations] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	volatile int *p = (int *)(s & 0);
	return *p;
}
