/* known.c: fragments of known duration, for the timing tests.
 *
 * argv[1] is T in microseconds. Every run:
 *   region:spin   spins until CLOCK_MONOTONIC_RAW has advanced by T (its known
 *                 duration: T plus at most one turn of the loop);
 *   func:rec      recurses 3 deep and spins T at every level: only the outermost
 *                 activation is timed, so one sample of 3·T per run;
 *   region:nest   a region entered again inside itself: one sample of T;
 *   region:empty  nothing: after the overhead is subtracted, about 0;
 *   func:twice    called twice per run, spinning T/2: two samples per run.
 */
#include <stdlib.h>
#include <time.h>

#include "fragprof.h"

static double now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void spin(double us) {
	double start = now_us();
	while (now_us() - start < us)
		;
}

int rec(int depth, double us) {
	spin(us);
	return depth > 1 ? 1 + rec(depth - 1, us) : 1;
}

void twice(double us) { spin(us); }

int main(int argc, char **argv) {
	double t = argc > 1 ? atof(argv[1]) : 100;
	FP_BEGIN("spin");
	spin(t);
	FP_END("spin");
	int r = rec(3, t);
	FP_BEGIN("nest");
	FP_BEGIN("nest");
	spin(t / 2);
	FP_END("nest");
	spin(t / 2);
	FP_END("nest");
	FP_BEGIN("empty");
	FP_END("empty");
	twice(t / 2);
	twice(t / 2);
	return r == 3 ? 0 : 1;
}
