/* brusselator_threads.c: a program that asks its model, before each sweep of
 * brusselator.c's grid, whether running it on 2 threads pays
 * (docs/predict.md, "In the program"). Built with the model of brusselator.c
 * compiled in:
 *
 *   fragprof trace examples/predict/brusselator.c --input 'K = choice(1,2,3,4,6,8,16,32)' \
 *       --stdin '{K}\n' --trials 24 --clock thread -o traces/
 *   fragprof model build traces/ -o bru.model
 *   fragprof model compile bru.model -o bru_model.c --name bru
 *   fragprof model lib -d fpmodel/
 *   cc -O2 -I fpmodel brusselator_threads.c bru_model.c fpmodel/libfragprof_model.a -lm -pthread -o bru_threads
 *   ./bru_threads 24 1 3    # 24 sweeps, K from 1 to 800, seed 1, each way 3 times
 *
 * Arguments: CALLS (24), SEED (1), REPS (3), KMAX (800). The workload is CALLS
 * sweeps: K = 1, K = KMAX and CALLS − 2 values of K drawn log-uniformly from
 * [1, KMAX] (seeded). The workload runs REPS times; each sweep runs three ways,
 * in an order that rotates from one sweep to the next so that the machine's
 * load falls on all alike: serially, on 2 threads (started and joined for the sweep, rows
 * handed out from a shared counter), and as the model says
 * (fp_model_amdahl_now of the region row → end for that K: Amdahl's condition
 * with P(2) the expected cost of starting and joining 2 threads under the load
 * now, measured first at the start and again when over a second old and
 * cheaper than 1% of the sweep; the query's own time, a measurement included,
 * is counted). The oracle
 * takes, for each sweep, the faster of its serial and parallel times. A
 * sweep's time each way is the median of its REPS times. "model_paired" times
 * the model's choices by the same sweep's serial or parallel median (plus the
 * query's median time): the policy's cost without a third draw of the
 * machine's noise. It prints one line per sweep (K, the three times in ns, the
 * model's choices, the P(2) it took, the query's time) unless QUIET
 * is set, then the totals.
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

/* parallel_pays asks the model whether the sweep of K pays on WORKERS threads,
 * at their expected cost to start and join under the load now (*p_n: as the
 * library last measured it); a failed query keeps the sweep serial. */
static int parallel_pays(const fp_model *m, long K, double *p_n) {
	fp_model_value in = {"K", (double)K};
	fp_model_decision d;
	if (fp_model_amdahl_now(m, &in, 1, "row", "end", WORKERS, &d) != FP_MODEL_OK) {
		fprintf(stderr, "K = %ld: %s\n", K, fp_model_errmsg());
		return 0;
	}
	*p_n = d.overhead_ns;
	return d.parallelise;
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

/* run_sweep runs the sweep of K by policy (0 serial, 1 parallel, 2 as the
 * model says, *choice set to its answer, *eff to the workers it took as free,
 * *query to the query's time) and returns its time in ns, the query's
 * included, with its sum in *sum. */
static double run_sweep(const fp_model *m, long K, int policy, int *choice, double *p_n, double *query,
                        double *sum) {
	double t0 = now_ns();
	if (policy == 2) {
		*choice = parallel_pays(m, K, p_n);
		*query = now_ns() - t0;
	}
	*sum = policy == 1 || (policy == 2 && *choice) ? sweep_parallel(K) : sweep_serial(K);
	return now_ns() - t0;
}

int main(int argc, char **argv) {
	long calls = argc > 1 ? atol(argv[1]) : 24, kmax = argc > 4 ? atol(argv[4]) : 800;
	unsigned long long seed = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
	int reps = argc > 3 ? atoi(argv[3]) : 3;
	if (argc > 5 || calls < 2 || reps < 1 || reps > 64 || kmax < 1) {
		fprintf(stderr, "usage: bru_threads [CALLS ≥ 2 [SEED [REPS 1..64 [KMAX]]]]\n");
		return 2;
	}
	int quiet = getenv("QUIET") != 0;
	fp_model *m;
	if (fp_model_open_bru(&m) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	const char *points[] = {"start", "row", "end"};
	fp_model_value one = {"K", 1};
	fp_model_decision d;
	if (fp_model_check_points(m, points, 3) != FP_MODEL_OK ||
	    fp_model_amdahl_now(m, &one, 1, "row", "end", WORKERS, &d) != FP_MODEL_OK) { /* P(2) measured first */
		fprintf(stderr, "%s\n", fp_model_errmsg());
		fp_model_free(m);
		return 1;
	}
	double p_n = d.overhead_ns;
	long *K = malloc((size_t)calls * sizeof *K);
	int *choice = calloc((size_t)calls * (size_t)reps, sizeof *choice); /* choice[c·reps + rep] */
	double *t = malloc((size_t)calls * 3 * (size_t)reps * sizeof *t); /* t[(c·3 + policy)·reps + rep] */
	double *pn = calloc((size_t)calls * (size_t)reps, sizeof *pn), *query = calloc((size_t)calls * (size_t)reps, sizeof *query);
	if (!K || !choice || !t || !pn || !query) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (long c = 0; c < calls; c++)
		K[c] = c == 0 ? 1 : c == 1 ? kmax : lround(pow((double)kmax, next_uniform(&seed)));
	for (int rep = 0; rep < reps; rep++)
		for (long c = 0; c < calls; c++) {
			double sum[3];
			for (int r = 0; r < 3; r++) {
				int policy = (int)((c + rep + r) % 3);
				t[(c * 3 + policy) * reps + rep] = run_sweep(m, K[c], policy, &choice[c * reps + rep],
				                                             &pn[c * reps + rep], &query[c * reps + rep], &sum[policy]);
				if (r == 2 && (!same(sum[0], sum[1]) || !same(sum[0], sum[2]))) {
					fprintf(stderr, "K = %ld: the sums differ: %.17g %.17g %.17g\n", K[c], sum[0], sum[1], sum[2]);
					fp_model_free(m);
					return 1;
				}
			}
		}
	double total[3] = {0, 0, 0}, oracle = 0, paired = 0;
	long chose_parallel = 0, chose_worse = 0;
	printf("P(%d) = %.0f ns at the start (the mean of 31); %ld sweeps, K from 1 to %ld, each way %d times (median)\n", WORKERS, p_n, calls, kmax, reps);
	for (long c = 0; c < calls; c++) {
		double med[3];
		for (int p = 0; p < 3; p++)
			total[p] += med[p] = median(&t[(c * 3 + p) * reps], reps);
		oracle += fmin(med[0], med[1]);
		/* The model's choices, each repetition's, timed by the same sweep's
		 * serial or parallel median, plus the query's median time. */
		int par = 0;
		for (int rep = 0; rep < reps; rep++) {
			par += choice[c * reps + rep];
			paired += med[choice[c * reps + rep]] / reps;
		}
		paired += median(&query[c * reps], reps);
		chose_parallel += par;
		chose_worse += par * (med[1] >= med[0]) + (reps - par) * (med[1] < med[0]);
		if (!quiet)
			printf("K %4ld serial %.0f parallel %.0f model %.0f (parallel %d of %d, P(2) %.0f ns, query %.0f ns)\n", K[c],
			       med[0], med[1], med[2], par, reps, median(&pn[c * reps], reps), median(&query[c * reps], reps));
	}
	printf("the model chose parallel for %ld sweeps of %ld, the slower way for %ld\n", chose_parallel, calls * reps,
	       chose_worse);
	printf("total_ns serial %.0f parallel %.0f model %.0f oracle %.0f model_paired %.0f\n", total[0], total[1], total[2],
	       oracle, paired);
	printf("model/oracle %.4f serial/oracle %.4f parallel/oracle %.4f model_paired/oracle %.4f\n", total[2] / oracle,
	       total[0] / oracle, total[1] / oracle, paired / oracle);
	free(K);
	free(choice);
	free(pn);
	free(query);
	free(t);
	fp_model_free(m);
	return 0;
}
