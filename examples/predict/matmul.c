/* matmul.c: the product of two n×n matrices by the triple loop: time ∝ n³.
 *
 *   fragprof trace examples/predict/matmul.c --input 'n = uniform_int(60, 200)' \
 *       --stdin '{n}\n' -o traces/
 *
 * Checkpoints: "start" (n), one "row" per row of the product (its index), "end".
 * The time of row → row is a quadratic in n; the model multiplies it by the n rows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 1 || n > 4000)
		return 2;
	double *a = malloc(sizeof(double) * (size_t)(n * n));
	double *b = malloc(sizeof(double) * (size_t)(n * n));
	double *c = malloc(sizeof(double) * (size_t)(n * n));
	if (!a || !b || !c)
		return 3;
	for (long i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7) - 3;
		b[i] = (double)(i % 5) * 0.5;
	}
	FP_POINT_VARS("start", FP_I(n));
	for (long i = 0; i < n; i++) {
		FP_POINT_VARS("row", FP_I(i));
		for (long j = 0; j < n; j++) {
			double s = 0;
			for (long k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
	}
	FP_POINT("end");
	double tr = 0;
	for (long i = 0; i < n; i++)
		tr += c[i * n + i];
	printf("%.3f\n", tr);
	free(a);
	free(b);
	free(c);
	return 0;
}
