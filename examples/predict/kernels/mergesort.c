/* mergesort.c: bottom-up merge sort of n pseudo-random integers (seed s): time
 * ∝ n·log n, the same for every array of one size.
 *
 *   fragprof trace examples/predict/kernels/mergesort.c --input 'n = uniform_int(1000, 8000)' \
 *       --input 's = uniform_int(1, 1000000)' --stdin '{n} {s}\n' --vary s -o traces/
 *
 * Checkpoints: "start" (n), "pass" per merging pass (its run width w), "end".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprof.h"

int main(void) {
	long n;
	unsigned long s;
	if (scanf("%ld %lu", &n, &s) != 2 || n < 1 || n > 100000000)
		return 2;
	int *a = malloc(sizeof(int) * (size_t)n);
	int *b = malloc(sizeof(int) * (size_t)n);
	if (!a || !b)
		return 3;
	for (long i = 0; i < n; i++) {
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		a[i] = (int)(s >> 33);
	}
	FP_POINT_VARS("start", FP_I(n));
	for (long w = 1; w < n; w *= 2) {
		FP_POINT_VARS("pass", FP_I(w));
		for (long lo = 0; lo < n; lo += 2 * w) {
			long mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			long i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				b[k++] = a[i] <= a[j] ? a[i++] : a[j++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		int *t = a;
		a = b;
		b = t;
	}
	FP_POINT("end");
	for (long i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 4;
	printf("%d %d\n", a[0], a[n - 1]);
	free(a);
	free(b);
	return 0;
}
