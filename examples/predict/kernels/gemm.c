/* gemm.c: C := alpha·A·B + beta·C for n×n matrices, PolyBench's loop order
 * (i, k, j: the innermost loop streams a row of B and a row of C): time ∝ n³.
 *
 *   fragprof trace examples/predict/kernels/gemm.c --input 'n = uniform_int(16, 64)' \
 *       --stdin '{n}\n' -o traces/
 *
 * Checkpoints: "start" (n), one "row" per row of C (i), "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 1 || n > 5000)
		return 2;
	double *A = malloc(sizeof(double) * (size_t)(n * n));
	double *B = malloc(sizeof(double) * (size_t)(n * n));
	double *C = malloc(sizeof(double) * (size_t)(n * n));
	if (!A || !B || !C)
		return 3;
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			A[i * n + j] = (double)((i * j + 1) % n) / n;
			B[i * n + j] = (double)((i * (j + 1) + 2) % n) / n;
			C[i * n + j] = (double)((i * (j + 2) + 3) % n) / n;
		}
	const double alpha = 1.5, beta = 1.2;
	FP_POINT_VARS("start", FP_I(n));
	for (long i = 0; i < n; i++) {
		FP_POINT_VARS("row", FP_I(i));
		for (long j = 0; j < n; j++)
			C[i * n + j] *= beta;
		for (long k = 0; k < n; k++) {
			double a = alpha * A[i * n + k];
			for (long j = 0; j < n; j++)
				C[i * n + j] += a * B[k * n + j];
		}
	}
	FP_POINT("end");
	double s = 0;
	for (long i = 0; i < n; i++)
		s += C[i * n + (i * 7) % n];
	printf("%.6f\n", s);
	free(A);
	free(B);
	free(C);
	return 0;
}
