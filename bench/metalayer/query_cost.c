/* query_cost.c: the cost of asking a model in the program, against a plain
 * function call timed in the same run (bench/metalayer.sh).
 *
 *   query_cost MODEL.fpm K N
 *
 * Opens the model compiled in (fp_model_open_bru, from `fragprof model compile
 * --name bru`) and the one loaded from MODEL.fpm, and times N calls of each
 * query at input K: fp_model_predict_time (one transition row → row),
 * fp_model_predict_region (row → end), fp_model_amdahl (row → end, 2 workers,
 * P(2) given), and of a function the compiler may not inline that computes a
 * polynomial of K. Each figure is the median over 7 rounds, the rounds of all
 * queries interleaved, of the round's time / N (CLOCK_MONOTONIC). Prints one
 * line a query: ns a call and the ratio to the plain call.
 */
#include "fragprof_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int fp_model_open_bru(fp_model **out); /* defined by the compiled model */

#define ROUNDS 7

static double sink;

__attribute__((noinline)) static double plain(double K) {
	__asm__ volatile("" ::: "memory");
	return 1e-3 * K * K + 2.5 * K + 7;
}

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* query runs N calls of query q (0 plain, 1 time, 2 region, 3 amdahl) on m and
 * returns ns a call; a failed query aborts the bench. */
static double query(const fp_model *m, int q, double K, long n) {
	fp_model_value in = {"K", K}, st = {"$K", K};
	fp_model_estimate e;
	fp_model_decision d;
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		int rc = FP_MODEL_OK;
		switch (q) {
		case 0:
			sink += plain(K);
			break;
		case 1:
			rc = fp_model_predict_time(m, "row", "row", &st, 1, &e);
			sink += e.value;
			break;
		case 2:
			rc = fp_model_predict_region(m, &in, 1, "row", "end", &e);
			sink += e.value;
			break;
		default:
			rc = fp_model_amdahl(m, &in, 1, "row", "end", 2, 50000, &d);
			sink += d.parallelise;
		}
		if (rc != FP_MODEL_OK) {
			fprintf(stderr, "query %d: %s\n", q, fp_model_errmsg());
			exit(1);
		}
	}
	return (now_ns() - t0) / (double)n;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: query_cost MODEL.fpm K N\n");
		return 2;
	}
	double K = atof(argv[2]);
	long n = atol(argv[3]);
	fp_model *m[2];
	if (fp_model_open_bru(&m[0]) != FP_MODEL_OK || fp_model_load(argv[1], &m[1]) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	static const char *names[] = {"plain call", "predict_time", "predict_region", "amdahl"};
	double t[2][4][ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		for (int q = 0; q < 4; q++)
			for (int k = 0; k < 2; k++)
				t[k][q][r] = query(m[k], q, K, q == 0 ? 100 * n : n);
	for (int k = 0; k < 2; k++)
		for (int q = 0; q < 4; q++)
			qsort(t[k][q], ROUNDS, sizeof(double), cmp);
	double base = t[0][0][ROUNDS / 2];
	printf("%-16s %12s %10s %12s %10s\n", "query (K)", "compiled_ns", "ratio", "loaded_ns", "ratio");
	for (int q = 0; q < 4; q++)
		printf("%-16s %12.1f %10.1f %12.1f %10.1f\n", names[q], t[0][q][ROUNDS / 2], t[0][q][ROUNDS / 2] / base,
		       t[1][q][ROUNDS / 2], t[1][q][ROUNDS / 2] / base);
	fp_model_free(m[0]);
	fp_model_free(m[1]);
	return sink == 42.4242 ? 3 : 0;
}
