// cputime.c: runs for argv[1] microseconds of its own CPU time (CLOCK_THREAD_CPUTIME_ID)
// and prints how many turns that took: a short run of known length, for the
// sampler's stepping and cost test (sample_test.go).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
	long long us = argc > 1 ? atoll(argv[1]) : 1000, end = cpu_ns() + us * 1000;
	volatile unsigned long x = 1;
	long turns = 0;
	while (cpu_ns() < end) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		turns++;
	}
	printf("%ld\n", turns > 0);
	return 0;
}
