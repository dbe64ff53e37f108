/* floyd.c: all-pairs shortest paths by Floyd–Warshall on n nodes, PolyBench's
 * floyd-warshall (k, i, j; j innermost): time ∝ n³.
 *
 *   fragprof trace examples/predict/kernels/floyd.c --input 'n = uniform_int(16, 64)' \
 *       --stdin '{n}\n' -o traces/
 *
 * Checkpoints: "start" (n), "pivot" per k, "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 1 || n > 5000)
		return 2;
	int *P = malloc(sizeof(int) * (size_t)(n * n));
	if (!P)
		return 3;
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			P[i * n + j] = (int)(i * j % 7 + 1);
			if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
				P[i * n + j] = 999;
		}
	FP_POINT_VARS("start", FP_I(n));
	for (long k = 0; k < n; k++) {
		FP_POINT_VARS("pivot", FP_I(k));
		for (long i = 0; i < n; i++) {
			int pik = P[i * n + k];
			for (long j = 0; j < n; j++) {
				int via = pik + P[k * n + j];
				if (via < P[i * n + j])
					P[i * n + j] = via;
			}
		}
	}
	FP_POINT("end");
	long s = 0;
	for (long i = 0; i < n * n; i++)
		s += P[i];
	printf("%ld\n", s);
	free(P);
	return 0;
}
