/* coin.c: a loop of n steps whose every step takes one of two paths by a coin
 * that no recorded value decides (a pseudo-random draw from the seed s): its
 * model's rule at "step" is a probabilistic choice, so `model predict`
 * interprets 20 runs with random choices. Reads "n s". */
#include <fragprof.h>
#include <stdio.h>

static volatile double sink;

static void work(long k) {
	double x = 0;
	for (long j = 0; j < k; j++)
		x += (double)j * 0.5;
	sink = x;
}

int main(void) {
	long n;
	unsigned long s;
	if (scanf("%ld %lu", &n, &s) != 2 || n < 1)
		return 2;
	FP_POINT_VARS("start", FP_I(n));
	for (long i = 0; i < n; i++) {
		FP_POINT("step");
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		if ((s >> 33) % 3 == 0) {
			FP_POINT("heads");
			work(20000);
		} else {
			FP_POINT("tails");
			work(5000);
		}
	}
	FP_POINT("end");
	printf("%g\n", sink);
	return 0;
}
