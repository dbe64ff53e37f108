/* jacobi2d.c: T steps of the 5-point Jacobi stencil on an n×n grid, PolyBench's
 * jacobi-2d (two arrays, A → B then B → A): time ∝ T·n².
 *
 *   fragprof trace examples/predict/kernels/jacobi2d.c --input 'n = uniform_int(32, 128)' \
 *       --input 'T = 20' --stdin '{n} {T}\n' -o traces/
 *
 * Checkpoints: "start" (n, T), "step" per time step (t), "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n, T;
	if (scanf("%ld %ld", &n, &T) != 2 || n < 3 || n > 20000 || T < 1)
		return 2;
	double *A = malloc(sizeof(double) * (size_t)(n * n));
	double *B = malloc(sizeof(double) * (size_t)(n * n));
	if (!A || !B)
		return 3;
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			A[i * n + j] = ((double)i * (j + 2) + 2) / n;
			B[i * n + j] = ((double)i * (j + 3) + 3) / n;
		}
	FP_POINT_VARS("start", FP_I(n), FP_I(T));
	for (long t = 0; t < T; t++) {
		FP_POINT_VARS("step", FP_I(t));
		for (long i = 1; i < n - 1; i++)
			for (long j = 1; j < n - 1; j++)
				B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
						      A[(i + 1) * n + j] + A[(i - 1) * n + j]);
		for (long i = 1; i < n - 1; i++)
			for (long j = 1; j < n - 1; j++)
				A[i * n + j] = 0.2 * (B[i * n + j] + B[i * n + j - 1] + B[i * n + j + 1] +
						      B[(i + 1) * n + j] + B[(i - 1) * n + j]);
	}
	FP_POINT("end");
	printf("%.6f\n", A[(n / 2) * n + n / 2]);
	free(A);
	free(B);
	return 0;
}
