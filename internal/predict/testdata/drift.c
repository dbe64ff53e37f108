/* drift.c: n rows, row r doing 80·(r + 1) dependent floating-point steps (time ∝
 * r, the whole run ∝ n²) — and when n > 1000, 80·(r + 1)·(1 + 48r/n) steps: each
 * row then costs more per step than the one before, up to 49× at the last, as
 * lu's rows do once its columns leave a cache level. No training run below
 * n = 1000 shows the drift; a probe's self-test sees it begin. TestProbeDrift
 * predicts n = 1600 from runs of n ≤ 500.
 *
 * Checkpoints: "start" (n), one "row" per row (r), "end".
 */
#include <stdio.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 1)
		return 2;
	volatile double sink = 0;
	double x = 1;
	FP_POINT_VARS("start", FP_I(n));
	for (long r = 0; r < n; r++) {
		FP_POINT_VARS("row", FP_I(r));
		long steps = 80 * (r + 1);
		if (n > 1000)
			steps += 3840 * (r + 1) * r / n;
		for (long i = 0; i < steps; i++)
			x = x * 0.999999 + 1e-7;
		sink = x;
	}
	FP_POINT("end");
	printf("%g\n", sink);
	return 0;
}
