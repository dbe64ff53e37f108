/* euler_lag.c: Euler integration of a first-order lag T·y' = u − y with step h, over N
 * steps: y ← y + a·(u − y), a = h/T (the metalayer article's example). Reads "y0 u a N", prints y.
 *
 *   fragprof trace examples/predict/euler_lag.c --input 'y0 = uniform(-1, 1)' \
 *       --input 'u = uniform(0, 2)' --input 'a = uniform(0.001, 0.05)' \
 *       --input 'N = uniform_int(50, 400)' --stdin '{y0:%.17g} {u:%.17g} {a:%.17g} {N}\n' -o traces/
 *
 * The model of the loop — a counter and the one-step data rule y := y + a·u − a·y,
 * learnt exactly by least squares — reproduces y_N to ~1e-13 relative, at the cost of
 * the original computation; a direct "inputs → y_N" fit is cheap and rough.
 */
#include <stdio.h>

#include "fragprof.h"

int main(void) {
	double y, u, a;
	long N;
	if (scanf("%lf %lf %lf %ld", &y, &u, &a, &N) != 4 || N < 0)
		return 2;
	FP_POINT_VARS("start", FP_D(y));
	for (long k = 0; k < N; k++) {
		FP_POINT_VARS("step", FP_D(y));
		y = y + a * (u - y);
	}
	FP_POINT_VARS("end", FP_D(y));
	printf("%.17g\n", y);
	return 0;
}
