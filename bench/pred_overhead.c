/* pred_overhead.c: the cost of a checkpoint (bench/predict.sh). Reads "N MODE" and
 * passes a checkpoint N times in a loop doing next to nothing else: MODE 0 FP_POINT,
 * MODE 1 FP_POINT_VARS with two variables. Prints on stderr, per iteration in ns: the
 * loop's wall time, its thread's CPU time, and the process's CPU time (the drainer
 * thread's included). Build it with 'fragprof cc'; run it with FRAGPROF_TRACE=1 (and
 * an extra channel) to trace, without to measure the untraced loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "fragprof.h"

static double clk(clockid_t c) {
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double proc(void) {
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e9 +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e3;
}

int main(void) {
	long n;
	int mode;
	if (scanf("%ld %d", &n, &mode) != 2)
		return 2;
	volatile double s = 0;
	double t0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_THREAD_CPUTIME_ID), p0 = proc();
	if (mode == 0) {
		for (long i = 0; i < n; i++) {
			s += (double)i;
			FP_POINT("p");
		}
	} else {
		for (long i = 0; i < n; i++) {
			s += (double)i;
			FP_POINT_VARS("p", FP_I(i), FP_D(s));
		}
	}
	double t1 = clk(CLOCK_MONOTONIC), c1 = clk(CLOCK_THREAD_CPUTIME_ID), p1 = proc();
	fprintf(stderr, "%.3f %.3f %.3f\n", (t1 - t0) / (double)n, (c1 - c0) / (double)n, (p1 - p0) / (double)n);
	printf("%g\n", s);
	return 0;
}
