/* loop.c: one hot loop nest. The inner loop's back edge (line 14) and the outer
   loop's back edge (line 17) carry almost every transition.
   Usage: loop [iterations] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 20000;
	volatile long s = 0;
	for (long i = 0; i < n; i++) {
		for (long j = 0; j < 100; j++) {
			if ((i ^ j) & 1)
				s += j;
			else
				s -= i;
		}
	}
	printf("%ld\n", (long)s);
	return 0;
}
