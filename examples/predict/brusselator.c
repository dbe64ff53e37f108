/* brusselator.c: the metalayer article's example, the Brusselator over a K×K grid of initial values.
 *
 *   dx/dt = A + x²y − (B+1)x,   dy/dt = Bx − x²y,   A = 1, B = 3
 *
 * integrated by Euler's method from every (x0, y0) = (4i/K, 4j/K), 0 ≤ i, j < K.
 * The work is K² integrations of STEPS steps: time(K) ∝ K². brusselator_par.c is the
 * same sweep on N threads, for 'fragprof model advise'.
 *
 *   fragprof trace examples/predict/brusselator.c --input 'K = choice(1,2,4,8,16,32,64)' \
 *       --stdin '{K}\n' --trials 40 -o traces/
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

#define A 1.0
#define B 3.0
#define STEPS 2000
#define H 0.005

/* integrate advances (x, y) by STEPS Euler steps. */
static void integrate(double *x, double *y) {
	double u = *x, v = *y;
	for (int s = 0; s < STEPS; s++) {
		double uuv = u * u * v;
		double du = A + uuv - (B + 1) * u;
		double dv = B * u - uuv;
		u += H * du;
		v += H * dv;
	}
	*x = u;
	*y = v;
}

int main(void) {
	long K;
	if (scanf("%ld", &K) != 1 || K < 1)
		return 2;
	FP_POINT_VARS("start", FP_I(K));
	double sum = 0;
	for (long i = 0; i < K; i++) {
		FP_POINT_VARS("row", FP_I(i));
		for (long j = 0; j < K; j++) {
			double x = 4.0 * (double)i / (double)K, y = 4.0 * (double)j / (double)K;
			integrate(&x, &y);
			sum += x + y;
		}
	}
	FP_POINT("end");
	printf("%.6f\n", sum);
	return 0;
}
