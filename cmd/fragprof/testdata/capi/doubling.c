/* doubling.c: a loop of n steps (n from stdin) whose work per step doubles
 * from step d on (d = argv[1]; never without it). Traced without d, it gives
 * a model of its steps; run with FRAGPROF_MODEL set to that model compiled,
 * it learns online from its own checkpoints and, after every step, asks the
 * model for the next step's time. It prints the predicted step time before
 * the change and at the end, from which step after the change the interval
 * held the measured step time in 9 of the next 10 steps, and what a
 * checkpoint costs with the learner fed and without it.
 */
#include <fragprof.h>
#include <fragprof_model.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static void work(long k) {
	double x = 0;
	for (long j = 0; j < k; j++)
		x += (double)j * 0.5;
	sink = x;
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* checkpoint_cost is the thread CPU time of one checkpoint, the median of 5 ×
 * 20000 (CPU time: on a loaded machine wall time counts other programs). */
static double checkpoint_cost(void) {
	double c[5];
	for (int r = 0; r < 5; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		for (int j = 0; j < 20000; j++)
			FP_POINT("end");
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		c[r] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 20000;
	}
	qsort(c, 5, sizeof c[0], cmp);
	return c[2];
}

int main(int argc, char **argv) {
	long n, d = argc > 1 ? atol(argv[1]) : -1;
	if (scanf("%ld", &n) != 1 || n < 1)
		return 2;
	fp_model *m = 0;
	if (getenv("FRAGPROF_MODEL")) {
		fp_model_value in = {"n", (double)n};
		if (fp_model_load_env(&m) || fp_model_learn_start(m, &in, 1, 0)) {
			fprintf(stderr, "%s\n", fp_model_errmsg());
			return 1;
		}
	}
	FP_POINT_VARS("start", FP_I(n));
	double *inside = calloc((size_t)n + 1, sizeof *inside), before = 0, t0 = now();
	for (long i = 0; i < n; i++) {
		FP_POINT_VARS("step", FP_I(i));
		double t1 = now();
		if (i > 0 && m) {
			fp_model_value st[] = {{"$n", (double)n}, {"i", (double)(i - 1)}, {"#step", (double)i}};
			fp_model_estimate e;
			if (fp_model_predict_time(m, "step", "step", st, 3, &e) == FP_MODEL_OK) {
				inside[i] = e.lo <= t1 - t0 && t1 - t0 <= e.hi;
				if (i == d - 1 || (d < 0 && i == n / 2))
					before = e.value;
				if (i == n - 1)
					printf("predicted_before %.6g\npredicted_end %.6g [%.6g, %.6g]\nmeasured_end %.6g\n", before, e.value,
					       e.lo, e.hi, t1 - t0);
			}
		}
		t0 = t1;
		work(i >= d && d >= 0 ? 400000 : 200000);
	}
	FP_POINT("end");
	if (m) {
		long held = -1;
		for (long i = d + 1; d >= 0 && i + 10 <= n && held < 0; i++) {
			int k = 0;
			for (long j = i; j < i + 10; j++)
				k += inside[j] != 0;
			if (k >= 9)
				held = i - d;
		}
		printf("held_after_change %ld\n", held);
		fp_model_learning s;
		fp_model_learn_stats(m, &s);
		printf("checkpoint_ns %.1f\n", checkpoint_cost());
		fp_model_learn_stop(m);
		printf("checkpoint_plain_ns %.1f\nrows %llu\nchanges %llu\ndropped %llu\n", checkpoint_cost(), s.rows, s.changes,
		       s.dropped);
		fp_model_free(m);
	}
	printf("%g\n", sink);
	return 0;
}
