/* brusselator_threads.c: a program that asks its model, before each sweep of
 * brusselator.c's grid, whether running it on 2 threads pays, and tells it
 * how long each sweep it ran took (fp_model_chooser: docs/predict.md, "In the
 * program"). Built with the model of brusselator.c compiled in:
 *
 *   fragprof trace examples/predict/brusselator.c --input 'K = choice(1,2,3,4,6,8,16,32)' \
 *       --stdin '{K}\n' --trials 24 --clock thread -o traces/
 *   fragprof model build traces/ -o bru.model
 *   fragprof model compile bru.model -o bru_model.c --name bru
 *   fragprof model lib -d fpmodel/
 *   cc -O2 -I fpmodel brusselator_threads.c bru_model.c fpmodel/libfragprof_model.a -lm -pthread -o bru_threads
 *   ./bru_threads 1000000 1 3    # 1e6 cells a decade of K, seed 1, each way 3 times
 *
 * Arguments: CELLS (1000000), SEED (1), REPS (3), KMAX (800). The workload
 * mixes K from 1 to KMAX as a program that sweeps grids of all sizes would:
 * many small sweeps, few large ones, each decade of K ([1, 10), [10, 100),
 * [100, KMAX]) about the same share of the time. Each decade's sweeps are
 * drawn (seeded) with P(K = k) ∝ k⁻³ over its integers — a sweep costs ∝ K²,
 * so each K carries a time ∝ 1/k and each decade about the same — until
 * their cells, ΣK², reach CELLS; the last decade starts with K = KMAX. The
 * sweeps are then shuffled (Fisher–Yates, seeded). Always-parallel loses on
 * the small sweeps (starting 2 threads costs tens of µs and more, the K = 1
 * sweep 10 µs), always-serial on the large ones when the second core is free.
 *
 * The workload runs REPS times; each sweep runs three ways, in an order that
 * rotates from one sweep to the next so that the machine's load falls on all
 * alike: serially, on 2 threads (started and joined for the sweep, rows handed
 * out from a shared counter), and as the model says — fp_model_choose on the
 * region row → end for that K, then fp_model_chooser_record with the sweep's
 * time: the chooser learns from the model's own sweeps only (never from the
 * serial and parallel runs beside them) and starts afresh each repetition.
 * The model's time includes the choice and the record. The oracle takes, for
 * each sweep, the faster of its serial and parallel times; a sweep's time each
 * way is the median of its REPS times. "model_paired" times the model's
 * choices by the same sweep's serial or parallel median plus the median time
 * of its query and record: the policy's cost without a third draw of the
 * machine's noise. It prints the totals by decade of K and in all (one line
 * per distinct K too when VERBOSE is set).
 */
#include "fragprof_model.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int fp_model_open_bru(fp_model **out); /* defined by bru_model.c */

#define A 1.0
#define B 3.0
#define STEPS 2000
#define H 0.005
#define WORKERS 2

/* integrate advances (x, y) by STEPS Euler steps, as brusselator.c does. */
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

/* row sums the integrated row i of the K×K grid. */
static double row(long K, long i) {
	double sum = 0;
	for (long j = 0; j < K; j++) {
		double x = 4.0 * (double)i / (double)K, y = 4.0 * (double)j / (double)K;
		integrate(&x, &y);
		sum += x + y;
	}
	return sum;
}

/* A parallel sweep's shared state. */
struct sweep {
	long K, next;
	double partial[WORKERS];
};

struct job {
	struct sweep *s;
	int id;
};

static void *worker(void *arg) {
	struct job *j = arg;
	double sum = 0;
	for (;;) {
		long i = __atomic_fetch_add(&j->s->next, 1, __ATOMIC_RELAXED);
		if (i >= j->s->K)
			break;
		sum += row(j->s->K, i);
	}
	j->s->partial[j->id] = sum;
	return 0;
}

static double sweep_serial(long K) {
	double sum = 0;
	for (long i = 0; i < K; i++)
		sum += row(K, i);
	return sum;
}

static double sweep_parallel(long K) {
	struct sweep s = {K, 0, {0}};
	struct job jobs[WORKERS];
	pthread_t th[WORKERS];
	for (int k = 0; k < WORKERS; k++) {
		jobs[k] = (struct job){&s, k};
		pthread_create(&th[k], 0, worker, &jobs[k]);
	}
	double sum = 0;
	for (int k = 0; k < WORKERS; k++) {
		pthread_join(th[k], 0);
		sum += s.partial[k];
	}
	return sum;
}

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* next_uniform is a splitmix64 step mapped to [0, 1). */
static double next_uniform(unsigned long long *state) {
	unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

/* same says whether two sums of one sweep agree (they are added in another order). */
static int same(double a, double b) {
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* median sorts the n times in t and returns their median. */
static double median(double *t, int n) {
	qsort(t, (size_t)n, sizeof *t, cmp);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* run_sweep runs the sweep of K serially (policy 0), on 2 threads (1) or as
 * the chooser says (2: *choice set to the workers it chose, *explored to
 * whether that was a re-measurement, *query to the time of the choice and the
 * record) and returns its time in ns, the chooser's included, with its sum in
 * *sum; a failed query runs the sweep serially. */
static double run_sweep(fp_model_chooser *c, long K, int policy, int *choice, int *explored, double *query, double *sum) {
	double t0 = now_ns();
	if (policy != 2) {
		*sum = policy == 1 ? sweep_parallel(K) : sweep_serial(K);
		return now_ns() - t0;
	}
	fp_model_value in = {"K", (double)K};
	fp_model_choice ch;
	if (fp_model_choose(c, &in, 1, &ch) != FP_MODEL_OK) {
		fprintf(stderr, "K = %ld: %s\n", K, fp_model_errmsg());
		*choice = 1, *explored = 0;
		*sum = sweep_serial(K);
		*query = now_ns() - t0;
		return *query;
	}
	double t1 = now_ns();
	*choice = ch.workers, *explored = ch.explore;
	*sum = ch.workers > 1 ? sweep_parallel(K) : sweep_serial(K);
	double t2 = now_ns();
	fp_model_chooser_record(c, &ch, ch.workers, t2 - t1);
	double t3 = now_ns();
	*query = (t1 - t0) + (t3 - t2);
	return t3 - t0;
}

/* draw_k draws K from P(K = k) ∝ k⁻³ over [lo, hi] by inverting its
 * distribution function (cdf[k − lo] = P(K ≤ k)). */
static long draw_k(const double *cdf, long lo, long hi, unsigned long long *state) {
	double u = next_uniform(state);
	long a = 0, b = hi - lo; /* the first k with cdf ≥ u */
	while (a < b) {
		long mid = (a + b) / 2;
		if (cdf[mid] >= u)
			b = mid;
		else
			a = mid + 1;
	}
	return lo + a;
}

/* workload fills *out with the sweeps' K (the mix in the header) and returns their number, −1 out of memory. */
static long workload(double cells, long kmax, unsigned long long seed, long **out) {
	long n = 0, cap = 1024, *K = malloc((size_t)cap * sizeof *K);
	double *cdf = malloc((size_t)kmax * sizeof *cdf);
	if (!K || !cdf)
		return -1;
	for (long lo = 1; lo <= kmax; lo *= 10) {
		long hi = lo * 10 - 1 < kmax ? lo * 10 - 1 : kmax;
		double sum = 0, have = 0;
		for (long k = lo; k <= hi; k++)
			cdf[k - lo] = sum += 1.0 / ((double)k * k * k);
		for (long k = lo; k <= hi; k++)
			cdf[k - lo] /= sum;
		for (int first = hi == kmax; have < cells; first = 0) {
			long k = first ? kmax : draw_k(cdf, lo, hi, &seed);
			if (n == cap && !(K = realloc(K, (size_t)(cap *= 2) * sizeof *K)))
				return -1;
			K[n++] = k;
			have += (double)k * (double)k;
		}
	}
	for (long i = n - 1; i > 0; i--) { /* Fisher–Yates */
		long j = (long)(next_uniform(&seed) * (double)(i + 1)), x = K[i];
		K[i] = K[j], K[j] = x;
	}
	free(cdf);
	*out = K;
	return n;
}

/* Totals of a group of sweeps (a decade of K, one K, all). */
struct tally {
	long sweeps, parallel, explored, worse;
	double way[3], oracle, paired;
};

static void tally_print(const char *what, const struct tally *s, int reps) {
	printf("%s sweeps %ld serial %.0f parallel %.0f model %.0f oracle %.0f model_paired %.0f (model parallel %ld of %ld, "
	       "explored %ld, the slower way %ld)\n",
	       what, s->sweeps, s->way[0], s->way[1], s->way[2], s->oracle, s->paired, s->parallel, s->sweeps * reps,
	       s->explored, s->worse);
}

int main(int argc, char **argv) {
	double cells = argc > 1 ? atof(argv[1]) : 1e6;
	long kmax = argc > 4 ? atol(argv[4]) : 800;
	unsigned long long seed = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
	int reps = argc > 3 ? atoi(argv[3]) : 3;
	if (argc > 5 || !(cells >= 1) || reps < 1 || reps > 64 || kmax < 1) {
		fprintf(stderr, "usage: bru_threads [CELLS ≥ 1 [SEED [REPS 1..64 [KMAX ≥ 1]]]]\n");
		return 2;
	}
	int verbose = getenv("VERBOSE") != 0;
	fp_model *m;
	if (fp_model_open_bru(&m) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	const char *points[] = {"start", "row", "end"};
	if (fp_model_check_points(m, points, 3) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		fp_model_free(m);
		return 1;
	}
	long *K = 0, calls = workload(cells, kmax, seed, &K);
	size_t cr = calls > 0 ? (size_t)calls * (size_t)reps : 0;
	int *choice = malloc(cr * sizeof *choice), *explored = malloc(cr * sizeof *explored); /* [c·reps + rep] */
	double *t = malloc(cr * 3 * sizeof *t);                                              /* t[(c·3 + policy)·reps + rep] */
	double *query = malloc(cr * sizeof *query);
	if (calls < 0 || !choice || !explored || !t || !query) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (int rep = 0; rep < reps; rep++) {
		fp_model_chooser *ch;
		if (fp_model_chooser_new(m, "row", "end", WORKERS, 0, &ch) != FP_MODEL_OK) {
			fprintf(stderr, "%s\n", fp_model_errmsg());
			return 1;
		}
		for (long c = 0; c < calls; c++) {
			double sum[3];
			size_t i = (size_t)c * (size_t)reps + (size_t)rep;
			for (int r = 0; r < 3; r++) {
				int policy = (int)((c + rep + r) % 3);
				t[((size_t)c * 3 + (size_t)policy) * (size_t)reps + (size_t)rep] =
				    run_sweep(ch, K[c], policy, &choice[i], &explored[i], &query[i], &sum[policy]);
			}
			if (!same(sum[0], sum[1]) || !same(sum[0], sum[2])) {
				fprintf(stderr, "K = %ld: the sums differ: %.17g %.17g %.17g\n", K[c], sum[0], sum[1], sum[2]);
				return 1;
			}
		}
		fp_model_chooser_free(ch);
	}
	/* Totals by decade of K, by K, and in all. */
	struct tally all = {0}, dec[8] = {{0}}, *byk = calloc((size_t)kmax + 1, sizeof *byk);
	if (!byk) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (long c = 0; c < calls; c++) {
		double med[3];
		for (int p = 0; p < 3; p++)
			med[p] = median(&t[((size_t)c * 3 + (size_t)p) * (size_t)reps], reps);
		struct tally one = {1, 0, 0, 0, {med[0], med[1], med[2]}, fmin(med[0], med[1]), 0};
		/* The model's choices, each repetition's, timed by the same sweep's
		 * serial or parallel median, plus its choice's and record's median time. */
		for (int rep = 0; rep < reps; rep++) {
			size_t i = (size_t)c * (size_t)reps + (size_t)rep;
			int par = choice[i] > 1;
			one.parallel += par, one.explored += explored[i];
			one.worse += par ? med[1] >= med[0] : med[1] < med[0];
			one.paired += med[par] / reps;
		}
		one.paired += median(&query[(size_t)c * (size_t)reps], reps);
		int d = 0;
		for (long k = K[c]; k >= 10 && d < 7; k /= 10)
			d++;
		struct tally *to[3] = {&all, &dec[d], &byk[K[c]]};
		for (int g = 0; g < 3; g++) {
			to[g]->sweeps += one.sweeps, to[g]->parallel += one.parallel, to[g]->explored += one.explored;
			to[g]->worse += one.worse, to[g]->oracle += one.oracle, to[g]->paired += one.paired;
			for (int p = 0; p < 3; p++)
				to[g]->way[p] += one.way[p];
		}
	}
	printf("%ld sweeps, K from 1 to %ld (%.0f cells a decade, seed %llu), each way %d times (median)\n", calls, kmax,
	       cells, seed, reps);
	char what[64];
	for (long k = 1; verbose && k <= kmax; k++)
		if (byk[k].sweeps) {
			snprintf(what, sizeof what, "K %ld", k);
			tally_print(what, &byk[k], reps);
		}
	for (long lo = 1, d = 0; lo <= kmax && d < 8; lo *= 10, d++) {
		snprintf(what, sizeof what, "K %ld-%ld", lo, lo * 10 - 1 < kmax ? lo * 10 - 1 : kmax);
		tally_print(what, &dec[d], reps);
	}
	tally_print("all", &all, reps);
	printf("total_ns serial %.0f parallel %.0f model %.0f oracle %.0f model_paired %.0f\n", all.way[0], all.way[1],
	       all.way[2], all.oracle, all.paired);
	printf("model/oracle %.4f serial/oracle %.4f parallel/oracle %.4f model_paired/oracle %.4f\n", all.way[2] / all.oracle,
	       all.way[0] / all.oracle, all.way[1] / all.oracle, all.paired / all.oracle);
	free(byk);
	free(K);
	free(choice);
	free(explored);
	free(query);
	free(t);
	fp_model_free(m);
	return 0;
}
