/* chooser.c: fp_model_chooser on the Brusselator's model (TestModelChooser).
 *
 *   chooser MODEL rule      the rule on given times: every call recorded with
 *                           T = t serially and T = 50 µs + t/2 on 2 workers
 *   chooser MODEL pinned    real sweeps, the process pinned to one CPU
 *   chooser MODEL free      real sweeps on every CPU the process may use
 *
 * "rule" prints, after the given times, the decision at each K ("decide K
 * workers t serial_ns parallel_ns overhead_ns efficiency explore"), then
 * records serial calls only, each of 1000 ns, and prints the first call at
 * which the chooser re-measures the other way ("explore_after CALLS T_p"). The
 * real modes run each warm-up K serially and on 2 threads, ROUNDS times, both
 * recorded, print each K's median times ("measured K serial parallel") and
 * then the decisions at K from 1 to 800.
 */
#define _GNU_SOURCE
#include "fragprof_model.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STEPS 2000
#define ROUNDS 5

static const long warm[] = {1, 2, 4, 8, 16, 32, 64, 128};
static const long decide[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 200, 400, 800};
#define NWARM (int)(sizeof warm / sizeof warm[0])
#define NDECIDE (int)(sizeof decide / sizeof decide[0])

static double cell(long K, long i, long j) {
	double u = 4.0 * (double)i / (double)K, v = 4.0 * (double)j / (double)K;
	for (int s = 0; s < STEPS; s++) {
		double uuv = u * u * v, du = 1 + uuv - 4 * u, dv = 3 * u - uuv;
		u += 0.005 * du;
		v += 0.005 * dv;
	}
	return u + v;
}

struct sweep {
	long K, next;
	double part[2];
};

struct job {
	struct sweep *s;
	int id;
};

static void *worker(void *arg) {
	struct job *j = arg;
	double sum = 0;
	for (long i; (i = __atomic_fetch_add(&j->s->next, 1, __ATOMIC_RELAXED)) < j->s->K;)
		for (long c = 0; c < j->s->K; c++)
			sum += cell(j->s->K, i, c);
	j->s->part[j->id] = sum;
	return 0;
}

/* run sweeps the K×K grid on 1 or 2 threads and returns its sum. */
static double run(long K, int workers) {
	struct sweep s = {K, 0, {0, 0}};
	if (workers == 1) {
		struct job j = {&s, 0};
		worker(&j);
		return s.part[0];
	}
	pthread_t th[2];
	struct job jobs[2] = {{&s, 0}, {&s, 1}};
	for (int k = 0; k < 2; k++)
		if (pthread_create(&th[k], 0, worker, &jobs[k]) != 0)
			exit(1);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], 0);
	return s.part[0] + s.part[1];
}

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void must(int rc) {
	if (rc != FP_MODEL_OK) {
		printf("error %d %s\n", rc, fp_model_errmsg());
		exit(1);
	}
}

/* print_decisions prints the chooser's decision at each K of decide[]. */
static void print_decisions(fp_model_chooser *c) {
	for (int k = 0; k < NDECIDE; k++) {
		fp_model_value in = {"K", (double)decide[k]};
		fp_model_choice ch;
		must(fp_model_choose(c, &in, 1, &ch));
		printf("decide %ld %d %.17g %.17g %.17g %.17g %.17g %d\n", decide[k], ch.preferred, ch.t_ns, ch.serial_ns,
		       ch.parallel_ns, ch.overhead_ns, ch.efficiency, ch.explore);
	}
}

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	fp_model *m;
	must(fp_model_load(argv[1], &m));
	fp_model_chooser *c;
	if (strcmp(argv[2], "rule") == 0) {
		fp_model_chooser_options opt = {16, 0.02};
		must(fp_model_chooser_new(m, "row", "end", 2, &opt, &c));
		for (int r = 0; r < 2; r++)
			for (int k = 0; k < NWARM; k++) {
				fp_model_value in = {"K", (double)warm[k]};
				fp_model_choice ch;
				must(fp_model_choose(c, &in, 1, &ch));
				must(fp_model_chooser_record(c, &ch, 1, ch.t_ns));
				must(fp_model_chooser_record(c, &ch, 2, 50000 + ch.t_ns / 2));
			}
		print_decisions(c);
		fp_model_value one = {"K", 1};
		for (int call = 1; call <= 1000000; call++) {
			fp_model_choice ch;
			must(fp_model_choose(c, &one, 1, &ch));
			if (ch.explore) {
				printf("explore_after %d %.17g %d\n", call - 1, ch.parallel_ns, ch.workers);
				break;
			}
			must(fp_model_chooser_record(c, &ch, 1, 1000));
		}
		fp_model_chooser_free(c);
		fp_model_free(m);
		return 0;
	}
	if (strcmp(argv[2], "pinned") == 0) { /* the threads made later inherit it */
		cpu_set_t all, one;
		if (sched_getaffinity(0, sizeof all, &all) != 0)
			return 1;
		CPU_ZERO(&one);
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &all)) {
				CPU_SET(cpu, &one);
				break;
			}
		if (sched_setaffinity(0, sizeof one, &one) != 0)
			return 1;
	} else if (strcmp(argv[2], "free") != 0) {
		return 2;
	}
	fp_model_chooser_options opt = {2 * NWARM, 0};
	must(fp_model_chooser_new(m, "row", "end", 2, &opt, &c));
	double T[NWARM][2][ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < NWARM; k++)
			for (int w = 0; w < 2; w++) {
				int workers = (w + r + k) % 2 + 1; /* the first way rotates */
				fp_model_value in = {"K", (double)warm[k]};
				fp_model_choice ch;
				must(fp_model_choose(c, &in, 1, &ch));
				double t0 = now_ns();
				volatile double sum = run(warm[k], workers);
				(void)sum;
				T[k][workers - 1][r] = now_ns() - t0;
				must(fp_model_chooser_record(c, &ch, workers, T[k][workers - 1][r]));
			}
	for (int k = 0; k < NWARM; k++) {
		qsort(T[k][0], ROUNDS, sizeof(double), cmp);
		qsort(T[k][1], ROUNDS, sizeof(double), cmp);
		printf("measured %ld %.17g %.17g\n", warm[k], T[k][0][ROUNDS / 2], T[k][1][ROUNDS / 2]);
	}
	print_decisions(c);
	fp_model_chooser_free(c);
	fp_model_free(m);
	return 0;
}
