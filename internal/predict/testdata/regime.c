/* regime.c: n rounds of n·20 dependent floating-point steps (time ∝ n²), each
 * step done three times over when n > 1000: a change of regime — as where a
 * program's data leaves a cache level — that no training run below n = 1000 can
 * see. TestProbe predicts n = 1600 from runs of n ≤ 400.
 *
 * Checkpoints: "start" (n), one "round" per round (r), "end".
 */
#include <stdio.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 1)
		return 2;
	long reps = n > 1000 ? 3 : 1;
	volatile double sink = 0;
	double x = 1;
	FP_POINT_VARS("start", FP_I(n));
	for (long r = 0; r < n; r++) {
		FP_POINT_VARS("round", FP_I(r));
		for (long k = 0; k < reps; k++)
			for (long i = 0; i < 20 * n; i++)
				x = x * 0.999999 + 1e-7;
		sink = x;
	}
	FP_POINT("end");
	printf("%g\n", sink);
	return 0;
}
