/* insertion_sort.c: insertion sort of n pseudo-random numbers (seed s): the inner
 * loop's trip count depends on the data — on average i/2 at position i, n²/4 shifts
 * in all.
 *
 *   fragprof trace examples/predict/insertion_sort.c --input 'n = uniform_int(100, 1000)' \
 *       --input 's = uniform_int(1, 1000000)' --stdin '{n} {s}\n' -o traces/
 *
 * Checkpoints: "outer" at each outer iteration (i), "inner" at each test of the inner
 * loop, "end". No variable decides when the inner loop stops (the data do): the model
 * learns its expected trip count from the state where the loop starts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

int main(void) {
	long n;
	unsigned long s;
	if (scanf("%ld %lu", &n, &s) != 2 || n < 1)
		return 2;
	double *a = malloc(sizeof(double) * (size_t)n);
	if (!a)
		return 3;
	for (long i = 0; i < n; i++) {
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		a[i] = (double)(s >> 11) / 9007199254740992.0;
	}
	FP_POINT_VARS("start", FP_I(n));
	for (long i = 1; i < n; i++) {
		double key = a[i];
		long j = i - 1;
		FP_POINT_VARS("outer", FP_I(i));
		for (;;) {
			FP_POINT("inner");
			if (j < 0 || a[j] <= key)
				break;
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = key;
	}
	FP_POINT("end");
	for (long i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 4;
	printf("%.6f %.6f\n", a[0], a[n - 1]);
	free(a);
	return 0;
}
