/* work100.c: about 0.1 s of CPU of branchy integer work (a Collatz walk over a
   range), single-threaded, no system calls in the loop: the short program of
   bench/samplecost.sh. Prints a checksum. Usage: work100 [n] (default 450000) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 450000, sum = 0;
	for (long i = 1; i < n; i++)
		for (long v = i; v != 1; sum++)
			v = v & 1 ? 3 * v + 1 : v / 2;
	printf("%ld\n", sum);
	return 0;
}
