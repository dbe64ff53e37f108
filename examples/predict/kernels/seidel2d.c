/* seidel2d.c: T sweeps of the 9-point Gauss–Seidel stencil on an n×n grid, in
 * place (PolyBench's seidel-2d: each point reads its already updated neighbours, a
 * loop-carried dependence that a Jacobi sweep does not have): time ∝ T·n².
 *
 *   fragprof trace examples/predict/kernels/seidel2d.c --input 'n = uniform_int(32, 128)' \
 *       --input 'T = 10' --stdin '{n} {T}\n' -o traces/
 *
 * Checkpoints: "start" (n, T), "sweep" per sweep (t), "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n, T;
	if (scanf("%ld %ld", &n, &T) != 2 || n < 3 || n > 20000 || T < 1)
		return 2;
	double *A = malloc(sizeof(double) * (size_t)(n * n));
	if (!A)
		return 3;
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++)
			A[i * n + j] = ((double)i * (j + 2) + 2) / n;
	FP_POINT_VARS("start", FP_I(n), FP_I(T));
	for (long t = 0; t < T; t++) {
		FP_POINT_VARS("sweep", FP_I(t));
		for (long i = 1; i < n - 1; i++)
			for (long j = 1; j < n - 1; j++)
				A[i * n + j] = (A[(i - 1) * n + j - 1] + A[(i - 1) * n + j] + A[(i - 1) * n + j + 1] +
						A[i * n + j - 1] + A[i * n + j] + A[i * n + j + 1] +
						A[(i + 1) * n + j - 1] + A[(i + 1) * n + j] + A[(i + 1) * n + j + 1]) /
					       9.0;
	}
	FP_POINT("end");
	printf("%.6f\n", A[(n / 2) * n + n / 2]);
	free(A);
	return 0;
}
