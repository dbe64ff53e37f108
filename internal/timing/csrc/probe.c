/* probe.c: `fragprof timers` — measures every timer of the fragprof runtime
 * (runtime/c/timing.c) through the runtime's own read functions, so the figures
 * describe exactly the timers fragments are measured with.
 *
 * Linked with the runtime; its main replaces the runtime's (weak) one. Prints one
 * line per timer and one for the TSC calibration, read by internal/timing/probe.go:
 *   timer NAME OK CLAIMED_NS STEP_NS PAIR_MEDIAN_NS PAIR_MIN_NS LOOP_NS FRAG_MEDIAN_NS FRAG_MIN_NS
 *   tsc HZ_MEAN HZ_MIN HZ_MAX HZ_REL_SD INVARIANT SLICES SLICE_NS
 * argv[1] is the number of calibration slices, argv[2] their length in ms.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int __fragprof_timer_count(void);
const char *__fragprof_timer_name(int t);
int __fragprof_timer_use(int t);
uint64_t __fragprof_timer_now(void);
double __fragprof_timer_res(int t);
int __fragprof_tsc_invariant(void);
void __fragprof_timer_overhead(double *median, double *minimum);

#define PAIRS 20001
#define STEPS 200000
#define LOOP 100000

static double raw_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t pairs[PAIRS];

/* calibrate returns TSC ticks per second over slices of ms milliseconds. */
static void calibrate(int slices, int ms, double *mean, double *lo, double *hi, double *rsd) {
	double s = 0, s2 = 0;
	*lo = INFINITY;
	*hi = 0;
	for (int k = 0; k < slices; k++) {
		double a0 = raw_ns();
		uint64_t t0 = __fragprof_timer_now();
		double a1 = raw_ns();
		double b0, b1;
		uint64_t t1;
		do {
			b0 = raw_ns();
			t1 = __fragprof_timer_now();
			b1 = raw_ns();
		} while (b0 - a1 < ms * 1e6);
		double hz = (double)(t1 - t0) / (((b0 + b1) - (a0 + a1)) / 2) * 1e9;
		s += hz;
		s2 += hz * hz;
		if (hz < *lo)
			*lo = hz;
		if (hz > *hi)
			*hi = hz;
	}
	*mean = s / slices;
	double var = slices > 1 ? (s2 - s * s / slices) / (slices - 1) : 0;
	*rsd = var > 0 ? sqrt(var) / *mean : 0;
}

int main(int argc, char **argv) {
	int slices = argc > 1 ? atoi(argv[1]) : 10;
	int ms = argc > 2 ? atoi(argv[2]) : 20;
	double hz = 0;
	if (__fragprof_timer_use(0) == 0) {
		double lo, hi, rsd;
		calibrate(slices, ms, &hz, &lo, &hi, &rsd);
		printf("tsc %.1f %.1f %.1f %.3g %d %d %d\n", hz, lo, hi, rsd, __fragprof_tsc_invariant(), slices, ms);
	}
	for (int t = 0; t < __fragprof_timer_count(); t++) {
		const char *name = __fragprof_timer_name(t);
		if (__fragprof_timer_use(t) != 0) {
			printf("timer %s 0 0 0 0 0 0 0 0\n", name);
			continue;
		}
		double npt = t <= 1 ? (hz > 0 ? 1e9 / hz : 0) : 1;
		/* Cost of one read: back-to-back pairs. */
		for (int i = 0; i < PAIRS; i++) {
			uint64_t a = __fragprof_timer_now();
			uint64_t b = __fragprof_timer_now();
			pairs[i] = b - a;
		}
		qsort(pairs, PAIRS, sizeof pairs[0], cmp_u64);
		double pmed = (double)pairs[PAIRS / 2] * npt, pmin = (double)pairs[0] * npt;
		/* Observed resolution: the smallest non-zero step between consecutive reads. */
		uint64_t step = UINT64_MAX, prev = __fragprof_timer_now();
		for (int i = 0; i < STEPS; i++) {
			uint64_t x = __fragprof_timer_now();
			if (x > prev && x - prev < step)
				step = x - prev;
			prev = x;
		}
		/* Cost per read in a loop, by CLOCK_MONOTONIC_RAW. */
		double l0 = raw_ns();
		volatile uint64_t sink = 0;
		for (int i = 0; i < LOOP; i++)
			sink += __fragprof_timer_now();
		double loop = (raw_ns() - l0) / LOOP;
		double fmed, fmin;
		__fragprof_timer_overhead(&fmed, &fmin);
		printf("timer %s 1 %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", name, __fragprof_timer_res(t),
		       step == UINT64_MAX ? 0 : (double)step * npt, pmed, pmin, loop, fmed * npt, fmin * npt);
	}
	return 0;
}
