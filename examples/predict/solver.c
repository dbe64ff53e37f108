/* solver.c: Richardson iteration x ← x + w·(b − A·x) for A = I, b = 1 on n unknowns,
 * from x = 1/2, until the error e = 1 − x is below 1e-10 in magnitude. (Not from 0:
 * clang turns malloc + zeroing into calloc, whose untouched pages would make the
 * first iteration pay the page faults.) The error contracts by the factor 1 − w at every step (e ← (1 − w)·e, alternating in sign
 * when w > 1), so the number of iterations, ⌈ln(2e-10) / ln|1 − w|⌉, is a sharp V
 * of the relaxation factor w — 1 at w = 1, 212 at w = 0.1 or 1.9 — while each
 * iteration costs time ∝ n. A model with the internal state (e, the iteration
 * counter) follows the iteration; a direct model of the inputs cannot bend that
 * way. Reads "n w".
 *
 *   fragprof trace examples/predict/solver.c --input 'n = uniform_int(50000, 400000)' \
 *       --input 'w = uniform(0.1, 1.9)' --stdin '{n} {w:%.17g}\n' -o traces/
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

#define TOL 1e-10
#define MAXIT 10000

int main(void) {
	long n;
	double w;
	if (scanf("%ld %lf", &n, &w) != 2 || n < 1 || !(w > 0 && w < 2))
		return 2;
	double *x = malloc(sizeof(double) * (size_t)n);
	if (!x)
		return 3;
	for (long i = 0; i < n; i++)
		x[i] = 0.5;
	double e = 1 - x[n - 1];
	long it = 0;
	FP_POINT_VARS("start", FP_I(n), FP_D(e));
	for (;;) {
		FP_POINT_VARS("iter", FP_D(e));
		if (fabs(e) < TOL || it >= MAXIT)
			break;
		for (long i = 0; i < n; i++)
			x[i] = x[i] + w * (1 - x[i]);
		e = 1 - x[n - 1];
		it++;
	}
	FP_POINT_VARS("done", FP_I(it));
	printf("%ld %.17g\n", it, x[0]);
	free(x);
	return 0;
}
