/* kmeans.c: T iterations of Lloyd's k-means on n pseudo-random points of the unit
 * square's four corners' neighbourhoods (K = 4 clusters, seed s): each iteration
 * assigns every point to its nearest centre, then moves every centre to the mean
 * of its points and sums the squared distances (the inertia). Time ∝ T·n, the
 * assignment about three quarters of it.
 *
 *   fragprof trace examples/predict/kmeans.c --input 'n = uniform_int(2000, 6000)' \
 *       --input 'T = uniform_int(10, 30)' --input 's = uniform_int(1, 1000000)' \
 *       --stdin '{n} {T} {s}\n' -o traces/
 *
 * Checkpoints: "start" (n, T), "assign" per iteration (t), "update" after the
 * assignment, "end" (the last inertia).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

#define K 4

int main(void) {
	long n, T;
	unsigned long s;
	if (scanf("%ld %ld %lu", &n, &T, &s) != 3 || n < K || T < 1)
		return 2;
	double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
	int *c = malloc(sizeof(int) * (size_t)n);
	if (!x || !y || !c)
		return 3;
	for (long i = 0; i < n; i++) {
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		double a = (double)(s >> 11) / 9007199254740992.0;
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		double b = (double)(s >> 11) / 9007199254740992.0;
		x[i] = (double)(i % 2) + 0.4 * (a - 0.5);
		y[i] = (double)(i / 2 % 2) + 0.4 * (b - 0.5);
		c[i] = 0; /* every page touched before the first assignment */
	}
	double cx[K], cy[K];
	for (int k = 0; k < K; k++)
		cx[k] = x[k], cy[k] = y[k];
	double inertia = 0;
	FP_POINT_VARS("start", FP_I(n), FP_I(T));
	for (long t = 0; t < T; t++) {
		FP_POINT_VARS("assign", FP_I(t));
		for (long i = 0; i < n; i++) {
			int best = 0;
			double bd = 1e300;
			for (int k = 0; k < K; k++) {
				double dx = x[i] - cx[k], dy = y[i] - cy[k], d = dx * dx + dy * dy;
				if (d < bd)
					bd = d, best = k;
			}
			c[i] = best;
		}
		FP_POINT("update");
		double sx[K] = {0}, sy[K] = {0};
		long m[K] = {0};
		for (long i = 0; i < n; i++) {
			sx[c[i]] += x[i];
			sy[c[i]] += y[i];
			m[c[i]]++;
		}
		for (int k = 0; k < K; k++)
			if (m[k] > 0)
				cx[k] = sx[k] / (double)m[k], cy[k] = sy[k] / (double)m[k];
		inertia = 0;
		for (long i = 0; i < n; i++) {
			double dx = x[i] - cx[c[i]], dy = y[i] - cy[c[i]];
			inertia += dx * dx + dy * dy;
		}
	}
	FP_POINT_VARS("end", FP_D(inertia));
	printf("%.17g\n", inertia);
	free(x);
	free(y);
	free(c);
	return 0;
}
