/* collatz_threads.c: three threads (main and two more) with branchy work — a loop
   calling through a table of function pointers, a conditional, returns — for the
   in-process sampler's multi-threaded stepping. Prints a checksum.
   Usage: collatz_threads [n] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n = 20000;

static long half(long v) { return v / 2; }
static long triple(long v) { return 3 * v + 1; }
static long (*const step[2])(long) = {half, triple};

__attribute__((noinline)) static long collatz(long v) {
	long steps = 0;
	while (v != 1) {
		v = step[v & 1](v);
		steps++;
	}
	return steps;
}

static void *work(void *arg) {
	long s = 0;
	for (long i = 1; i < n; i++)
		s += collatz(i + (long)arg);
	return (void *)s;
}

int main(int argc, char **argv) {
	if (argc > 1)
		n = atol(argv[1]);
	pthread_t t[2];
	void *r[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	long s = (long)work((void *)0);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &r[i]);
		s += (long)r[i];
	}
	printf("%ld\n", s);
	return 0;
}
