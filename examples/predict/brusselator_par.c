/* brusselator_par.c: brusselator.c's sweep on N POSIX threads, rows handed out one at
 * a time from a shared counter (like OpenMP's dynamic schedule). Reads "K N"; N = 1
 * runs the plain sequential loop without starting any thread. It includes no
 * fragprof header: it is built plainly (clang -O2 -pthread) to check 'fragprof model
 * advise' against real parallel runs. It prints the sum and, on stderr, the time of
 * the sweep in ns (thread start and join included).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define A 1.0
#define B 3.0
#define STEPS 2000
#define H 0.005

static long K;
static long next_row;
static double partial[64];

static void integrate(double *x, double *y) {
	double u = *x, v = *y;
	for (int s = 0; s < STEPS; s++) {
		double uuv = u * u * v;
		double du = A + uuv - (B + 1) * u;
		double dv = B * u - uuv;
		u += H * du;
		v += H * dv;
	}
	*x = u;
	*y = v;
}

static double row(long i) {
	double sum = 0;
	for (long j = 0; j < K; j++) {
		double x = 4.0 * (double)i / (double)K, y = 4.0 * (double)j / (double)K;
		integrate(&x, &y);
		sum += x + y;
	}
	return sum;
}

static void *worker(void *arg) {
	long id = (long)arg;
	double sum = 0;
	for (;;) {
		long i = __atomic_fetch_add(&next_row, 1, __ATOMIC_RELAXED);
		if (i >= K)
			break;
		sum += row(i);
	}
	partial[id] = sum;
	return 0;
}

static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void) {
	long N;
	if (scanf("%ld %ld", &K, &N) != 2 || K < 1 || N < 1 || N > 64)
		return 2;
	long long t0 = now_ns();
	double sum = 0;
	if (N == 1) {
		for (long i = 0; i < K; i++)
			sum += row(i);
	} else {
		pthread_t th[64];
		for (long k = 0; k < N; k++)
			pthread_create(&th[k], 0, worker, (void *)k);
		for (long k = 0; k < N; k++)
			pthread_join(th[k], 0);
		for (long k = 0; k < N; k++)
			sum += partial[k];
	}
	long long t1 = now_ns();
	printf("%.6f\n", sum);
	fprintf(stderr, "%lld\n", t1 - t0);
	return 0;
}
