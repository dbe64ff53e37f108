/* heat3d.c: T steps of the 7-point heat stencil on an n×n×n grid, PolyBench's
 * heat-3d (A → B, then B → A): time ∝ T·n³.
 *
 *   fragprof trace examples/predict/kernels/heat3d.c --input 'n = uniform_int(8, 24)' \
 *       --input 'T = 10' --stdin '{n} {T}\n' -o traces/
 *
 * Checkpoints: "start" (n, T), "step" per time step (t), "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

#define AT(X, i, j, k) X[((i) * n + (j)) * n + (k)]

static void sweep(long n, const double *A, double *B) {
	for (long i = 1; i < n - 1; i++)
		for (long j = 1; j < n - 1; j++)
			for (long k = 1; k < n - 1; k++)
				AT(B, i, j, k) = 0.125 * (AT(A, i + 1, j, k) - 2.0 * AT(A, i, j, k) + AT(A, i - 1, j, k)) +
						 0.125 * (AT(A, i, j + 1, k) - 2.0 * AT(A, i, j, k) + AT(A, i, j - 1, k)) +
						 0.125 * (AT(A, i, j, k + 1) - 2.0 * AT(A, i, j, k) + AT(A, i, j, k - 1)) +
						 AT(A, i, j, k);
}

int main(void) {
	long n, T;
	if (scanf("%ld %ld", &n, &T) != 2 || n < 3 || n > 1000 || T < 1)
		return 2;
	double *A = malloc(sizeof(double) * (size_t)(n * n * n));
	double *B = malloc(sizeof(double) * (size_t)(n * n * n));
	if (!A || !B)
		return 3;
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++)
			for (long k = 0; k < n; k++)
				AT(A, i, j, k) = AT(B, i, j, k) = (double)(i + j + (n - k)) * 10 / n;
	FP_POINT_VARS("start", FP_I(n), FP_I(T));
	for (long t = 0; t < T; t++) {
		FP_POINT_VARS("step", FP_I(t));
		sweep(n, A, B);
		sweep(n, B, A);
	}
	FP_POINT("end");
	printf("%.6f\n", AT(A, n / 2, n / 2, n / 2));
	free(A);
	free(B);
	return 0;
}
