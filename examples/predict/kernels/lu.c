/* lu.c: LU decomposition in place (Doolittle, no pivoting), PolyBench's loops: for
 * each row i, the part left of the diagonal (k innermost: a column walk of A) and the
 * part right of it (k innermost as well). Time ∝ n³ with a cache-dependent constant.
 *
 *   fragprof trace examples/predict/kernels/lu.c --input 'n = uniform_int(16, 64)' \
 *       --stdin '{n}\n' -o traces/
 *
 * Checkpoints: "start" (n), "row" per row (i), "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 1 || n > 5000)
		return 2;
	double *A = malloc(sizeof(double) * (size_t)(n * n));
	if (!A)
		return 3;
	/* Diagonally dominant, so that no pivot is small. */
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++)
			A[i * n + j] = (i == j) ? n + 1.0 : (double)((i * j) % 7) / (7.0 * n);
	FP_POINT_VARS("start", FP_I(n));
	for (long i = 0; i < n; i++) {
		FP_POINT_VARS("row", FP_I(i));
		for (long j = 0; j < i; j++) {
			for (long k = 0; k < j; k++)
				A[i * n + j] -= A[i * n + k] * A[k * n + j];
			A[i * n + j] /= A[j * n + j];
		}
		for (long j = i; j < n; j++)
			for (long k = 0; k < i; k++)
				A[i * n + j] -= A[i * n + k] * A[k * n + j];
	}
	FP_POINT("end");
	double s = 0;
	for (long i = 0; i < n; i++)
		s += A[i * n + i];
	printf("%.6f\n", s);
	free(A);
	return 0;
}
