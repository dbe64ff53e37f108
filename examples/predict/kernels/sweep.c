/* sweep.c: 64 sweeps over an array of n doubles, each summing every element: time ∝ n,
 * working set 8n bytes, every byte reused 64 times. While the array fits a cache
 * level the sweeps read it from there; past the last level that holds it they
 * stream it from the next, and the time per element rises (docs/predict.md,
 * "The working set and the caches").
 *
 *   fragprof trace examples/predict/kernels/sweep.c --input 'n = uniform_int(1000, 16000)' \
 *       --stdin '{n}\n' --repeat 3 -o traces/
 *   fragprof model predict m.model --set n=2000000    # 16 MB: warns that it leaves L2
 *
 * Four accumulators, so that the additions' latency does not hide the loads.
 * Checkpoints: "start" (n), one "sweep" per pass (r), "end".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n;
	if (scanf("%ld", &n) != 1 || n < 4 || n > 100000000)
		return 2;
	double *a = malloc(sizeof(double) * (size_t)n);
	if (!a)
		return 3;
	for (long i = 0; i < n; i++)
		a[i] = (double)(i % 7) * 0.25;
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	FP_POINT_VARS("start", FP_I(n));
	for (long r = 0; r < 64; r++) {
		FP_POINT_VARS("sweep", FP_I(r));
		for (long i = 0; i + 3 < n; i += 4) {
			s0 += a[i];
			s1 += a[i + 1];
			s2 += a[i + 2];
			s3 += a[i + 3];
		}
	}
	FP_POINT("end");
	printf("%.6f\n", s0 + s1 + s2 + s3);
	free(a);
	return 0;
}
