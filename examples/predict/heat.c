/* heat.c: T Jacobi sweeps of the heat equation's steady state on an n×n plate
 * whose top edge is held at 1, each followed by the residual — the largest change
 * of the sweep — and the copy of the new grid over the old: two phases of about
 * the same cost, time ∝ T·n².
 *
 *   fragprof trace examples/predict/heat.c --input 'n = uniform_int(40, 100)' \
 *       --input 'T = uniform_int(20, 60)' --stdin '{n} {T}\n' -o traces/
 *
 * Checkpoints: "start" (n, T), "sweep" per sweep (t), "residual" after it, "end"
 * (the last residual). A change to one phase moves its arc's time, not the
 * other's: `fragprof model check` compares the two within a run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n, T;
	if (scanf("%ld %ld", &n, &T) != 2 || n < 3 || n > 20000 || T < 1)
		return 2;
	double *u = malloc(sizeof(double) * (size_t)(n * n));
	double *v = malloc(sizeof(double) * (size_t)(n * n));
	if (!u || !v)
		return 3;
	for (long i = 0; i < n * n; i++) /* every page touched before the first sweep */
		u[i] = v[i] = i < n;
	double r = 0;
	FP_POINT_VARS("start", FP_I(n), FP_I(T));
	for (long t = 0; t < T; t++) {
		FP_POINT_VARS("sweep", FP_I(t));
		for (long i = 1; i < n - 1; i++) {
			for (long j = 1; j < n - 1; j++)
				v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
		}
		FP_POINT("residual");
		r = 0;
		for (long i = 1; i < n - 1; i++) {
			for (long j = 1; j < n - 1; j++) {
				double d = fabs(v[i * n + j] - u[i * n + j]);
				r = d > r ? d : r;
				u[i * n + j] = v[i * n + j];
			}
		}
	}
	FP_POINT_VARS("end", FP_D(r));
	printf("%.17g %.17g\n", r, u[(n / 2) * n + n / 2]);
	free(u);
	free(v);
	return 0;
}
