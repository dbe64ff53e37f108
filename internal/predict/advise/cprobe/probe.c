/* probe.c: P(N), the cost of a parallel region on N workers — starting N POSIX
 * threads that do nothing and joining them — measured reps times. Built and run by
 * 'fragprof model advise --overhead measured' (internal/predict/advise.go). Prints
 * the median, the first and the third quartile, and the minimum, in ns; then the
 * processors actually available: N threads each given the work one thread does in
 * about 2 ms finish in E_N, one in E_1, and N·E_1/E_N is how many ran at once (N on
 * an idle machine, near 1 when every other processor is busy).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *nothing(void *arg) { return arg; }

static volatile unsigned long spin_sink;
static unsigned long spin_iters;

static void *spin(void *arg) {
	unsigned long x = (unsigned long)arg | 1;
	for (unsigned long i = 0; i < spin_iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	spin_sink = x;
	return 0;
}

static long long now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 2;
	int reps = argc > 2 ? atoi(argv[2]) : 200;
	if (n < 1 || n > 1024 || reps < 1)
		return 2;
	pthread_t *th = malloc(sizeof *th * (size_t)n);
	long long *d = malloc(sizeof *d * (size_t)reps);
	if (!th || !d)
		return 3;
	for (int r = 0; r < reps; r++) {
		long long t0 = now();
		for (int k = 0; k < n; k++)
			if (pthread_create(&th[k], 0, nothing, 0) != 0)
				return 4;
		for (int k = 0; k < n; k++)
			pthread_join(th[k], 0);
		d[r] = now() - t0;
	}
	qsort(d, (size_t)reps, sizeof *d, cmp);
	/* Calibrate ~2 ms of work, then time it on 1 and on n threads (best of 3). */
	spin_iters = 1000;
	for (;;) {
		long long t0 = now();
		spin(0);
		if (now() - t0 > 2000000 || spin_iters > (1UL << 40))
			break;
		spin_iters *= 2;
	}
	long long e1 = -1, en = -1;
	for (int r = 0; r < 3; r++) {
		long long t0 = now();
		spin(0);
		long long a = now() - t0;
		t0 = now();
		for (int k = 0; k < n; k++)
			pthread_create(&th[k], 0, spin, (void *)(long)k);
		for (int k = 0; k < n; k++)
			pthread_join(th[k], 0);
		long long b = now() - t0;
		if (e1 < 0 || a < e1)
			e1 = a;
		if (en < 0 || b < en)
			en = b;
	}
	double avail = en > 0 ? (double)n * (double)e1 / (double)en : n;
	if (avail > n)
		avail = n;
	printf("%lld %lld %lld %lld %.3f\n", d[reps / 2], d[reps / 4], d[3 * reps / 4], d[0], avail);
	return 0;
}
