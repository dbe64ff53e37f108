/* threads.c: two threads, each with its own hot loop, joined by main.
   Usage: threads [iterations] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n = 200000;

static void *work(void *arg) {
	volatile long s = (long)arg;
	for (long i = 0; i < n; i++)
		s = s * 3 + (i & 7);
	return (void *)(long)s;
}

int main(int argc, char **argv) {
	if (argc > 1)
		n = atol(argv[1]);
	pthread_t t;
	void *r1, *r2;
	pthread_create(&t, NULL, work, (void *)1);
	r1 = work((void *)2);
	pthread_join(t, &r2);
	printf("%ld\n", (long)r1 + (long)r2);
	return 0;
}
