/* search_choice.c: binary or interpolation search of a sorted array, chosen per
 * data set by the program's own model (docs/predict.md, "In the program").
 *
 * Interpolation search guesses a key's place from its value: on keys spread
 * uniformly it needs about log₂ log₂ n probes, on skewed keys (normal,
 * exponential) its guesses fall far from the key and it needs tens to
 * thousands, where binary search always needs log₂ n. Which is faster depends
 * on the data, which the program sees through one cheap statistic, dev: the
 * mean distance, over 31 evenly spaced elements, between an element's place
 * and the place linear interpolation between the ends gives its value, as a
 * fraction of n (about n^−½ for uniform keys, 0.15 for normal, 0.4 for
 * exponential). The checkpoints record it:
 *
 *   data (n, lgn, dev) → binary → binary_half (lprobes) → binary_done → end   alg = 0
 *   data (n, lgn, dev) → interp → interp_half (lprobes) → interp_done → end   alg = 1
 *
 * (the lookups in two halves, lprobes the log₂ of the first half's mean probes
 * per lookup, lgn = log₂ n), so that the model learns each search's probes as a
 * function of n and dev. Probes grow as log n and are spread over three orders
 * of magnitude between the families, so both are recorded by their logarithms:
 * a polynomial in lgn and dev fits them, where one in n and probes swings
 * negative between the points it was fitted to. Trace mode reads "n s alg" on stdin: n keys drawn
 * from the family s mod 3 (0 uniform, 1 normal, 2 exponential) with seed s,
 * sorted, then LOOKUPS lookups of keys of the array by the search alg:
 *
 *   fragprof trace examples/predict/search_choice.c --input 'n = choice(2000, 5000, 10000, 20000, 50000, 100000, 200000)' \
 *       --input 's = uniform_int(1, 1000000)' --input 'alg = choice(0, 1)' --stdin '{n} {s} {alg}\n' \
 *       --trials 60 --clock thread -o traces/
 *   fragprof model build traces/ -o search.model
 *   fragprof model compile search.model -o search_model.c --name search
 *   fragprof model lib -d fpmodel/
 *   cc -O2 -I fpmodel -I runtime/c search_choice.c search_model.c fpmodel/libfragprof_model.a -lm -pthread -o search
 *   ./search choose 30 1 9
 *
 * Choose mode ("choose CASES SEED REPS [NMIN NMAX]", the model compiled in):
 * CASES data sets, the families in turn, n drawn log-uniformly from [NMIN,
 * NMAX] (2000, 200000) and the data from SEED (not the training runs' data).
 * For each, the program computes dev and asks the model for each search's
 * probes per lookup at n and dev (fp_model_predict_value of lprobes), and takes
 * the one with fewer. Every data set is searched
 * three ways — binary, interpolation, and as the model says (dev, the two
 * queries and the chosen search, timed together) — REPS times in an order
 * that rotates, on the thread's CPU clock; a way's time is the minimum of its
 * REPS, the estimate of a run's own time least moved by other programs on a
 * loaded machine (Chen & Revels, "Robust benchmarking in noisy environments",
 * 2016): their time only adds. The oracle takes the faster of binary and
 * interpolation per data set; the decision's own time (dev and the queries)
 * is also timed alone.
 * It prints a line per data set ("case" ...), unless QUIET is set, then the
 * totals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fragprof.h"
#include "fragprof_model.h"

#define LOOKUPS 4096
#define SAMPLES 32
#define FAMILIES 3

/* Defined by the model compiled in (fragprof model compile ... --name search);
 * absent from the traced build, which does not ask a model. */
int fp_model_open_search(fp_model **out) __attribute__((weak));

static const char *family_name[FAMILIES] = {"uniform", "normal", "exponential"};

/* next_uniform is a splitmix64 step mapped to (0, 1). */
static double next_uniform(unsigned long long *state) {
	unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* make_data fills a with n sorted keys of the family, drawn with seed, and
 * keys with LOOKUPS keys of a to look up. */
static void make_data(double *a, long n, int family, unsigned long long seed, double *keys) {
	unsigned long long st = seed;
	for (long i = 0; i < n; i++) {
		double u = next_uniform(&st);
		if (family == 0)
			a[i] = u;
		else if (family == 1)
			a[i] = sqrt(-2 * log(u)) * cos(6.283185307179586 * next_uniform(&st));
		else
			a[i] = -log(u);
	}
	qsort(a, (size_t)n, sizeof *a, cmp);
	for (long k = 0; k < LOOKUPS; k++)
		keys[k] = a[(long)(next_uniform(&st) * (double)n)];
}

/* deviation is the statistic dev: the mean |place − interpolated place| / n
 * over SAMPLES − 1 evenly spaced elements. */
static double deviation(const double *a, long n) {
	double span = a[n - 1] - a[0], sum = 0;
	if (!(span > 0))
		return 0;
	for (int j = 1; j < SAMPLES; j++) {
		long i = j * (n - 1) / SAMPLES;
		sum += fabs((a[i] - a[0]) / span * (double)(n - 1) - (double)i);
	}
	return sum / (SAMPLES - 1) / (double)n;
}

/* binary returns the first place of key in a, counting probes. */
static long binary(const double *a, long n, double key, long *probes) {
	long lo = 0, hi = n - 1;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		++*probes;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* interpolation returns a place of key in a, counting probes. */
static long interpolation(const double *a, long n, double key, long *probes) {
	long lo = 0, hi = n - 1;
	while (lo < hi && key >= a[lo] && key <= a[hi]) {
		++*probes;
		if (a[hi] == a[lo])
			break;
		long p = lo + (long)((key - a[lo]) / (a[hi] - a[lo]) * (double)(hi - lo));
		if (p > hi)
			p = hi;
		if (a[p] < key)
			lo = p + 1;
		else if (a[p] > key)
			hi = p - 1;
		else
			return p;
	}
	return lo;
}

/* search looks up keys[lo..hi) by alg (0 binary, 1 interpolation) and returns
 * the sum of the places found; *probes is the mean number of probes per lookup. */
static long search(const double *a, long n, const double *keys, long lo, long hi, int alg, double *probes) {
	long sum = 0, count = 0;
	for (long k = lo; k < hi; k++) {
		long p = alg ? interpolation(a, n, keys[k], &count) : binary(a, n, keys[k], &count);
		if (a[p] != keys[k]) {
			fprintf(stderr, "%s search did not find %.17g (n = %ld)\n", alg ? "interpolation" : "binary", keys[k], n);
			exit(4);
		}
		sum += p;
	}
	*probes = (double)count / (double)(hi - lo);
	return sum;
}

/* trace_run is one traced run: "n s alg" on stdin. */
static int trace_run(void) {
	long n, alg;
	unsigned long long s;
	if (scanf("%ld %llu %ld", &n, &s, &alg) != 3 || n < 2 || alg < 0 || alg > 1) {
		fprintf(stderr, "usage: search_choice < \"n s alg\" (n ≥ 2, alg 0 binary or 1 interpolation), or search_choice choose ...\n");
		return 2;
	}
	double *a = malloc(sizeof(double) * (size_t)n), *keys = malloc(sizeof(double) * LOOKUPS);
	if (!a || !keys)
		return 3;
	make_data(a, n, (int)(s % FAMILIES), s, keys);
	double dev = deviation(a, n), lgn = log2((double)n), probes, lprobes;
	(void)lgn; /* recorded by the checkpoints, which a plain build leaves out */
	FP_POINT_VARS("data", FP_I(n), FP_D(lgn), FP_D(dev));
	long sum;
	if (alg == 0) {
		FP_POINT("binary");
		sum = search(a, n, keys, 0, LOOKUPS / 2, 0, &probes);
		lprobes = log2(probes);
		(void)lprobes;
		FP_POINT_VARS("binary_half", FP_D(lprobes));
		sum += search(a, n, keys, LOOKUPS / 2, LOOKUPS, 0, &probes);
		FP_POINT("binary_done");
	} else {
		FP_POINT("interp");
		sum = search(a, n, keys, 0, LOOKUPS / 2, 1, &probes);
		lprobes = log2(probes);
		(void)lprobes;
		FP_POINT_VARS("interp_half", FP_D(lprobes));
		sum += search(a, n, keys, LOOKUPS / 2, LOOKUPS, 1, &probes);
		FP_POINT("interp_done");
	}
	FP_POINT("end");
	printf("%s n %ld dev %.4f probes %.2f sum %ld\n", family_name[s % FAMILIES], n, dev, probes, sum);
	free(a);
	free(keys);
	return 0;
}

static double cpu_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double minimum(const double *t, int n) {
	double m = t[0];
	for (int i = 1; i < n; i++)
		m = fmin(m, t[i]);
	return m;
}

/* A choice: the model's predicted probes per lookup of each search. */
struct choice {
	double probes[2];
	int alg;
};

/* choose computes dev and asks the model, for each search, for its probes per
 * lookup at n and dev (fp_model_predict_value of lprobes at alg → alg_half),
 * and takes the search with fewer (a probe of either costs about the same,
 * 5–6 ns in the runs of docs/predict.md: interpolation's division against
 * binary search's extra cache misses). A failed query is an error: the
 * program says why and stops. */
static void choose(const fp_model *m, const double *a, long n, struct choice *c) {
	static const char *from[2] = {"binary", "interp"}, *half[2] = {"binary_half", "interp_half"};
	double dev = deviation(a, n);
	fp_model_value st[] = {{"n", (double)n}, {"lgn", log2((double)n)}, {"dev", dev}, {"$n", (double)n}};
	for (int alg = 0; alg < 2; alg++) {
		double lprobes;
		if (fp_model_predict_value(m, from[alg], half[alg], "lprobes", st, 4, &lprobes) != FP_MODEL_OK) {
			fprintf(stderr, "n = %ld, dev = %g: %s\n", n, dev, fp_model_errmsg());
			exit(1);
		}
		c->probes[alg] = exp2(lprobes);
	}
	c->alg = c->probes[1] < c->probes[0];
}

static int choose_run(int argc, char **argv) {
	long cases = argc > 2 ? atol(argv[2]) : 30, nmin = argc > 5 ? atol(argv[5]) : 2000,
	     nmax = argc > 6 ? atol(argv[6]) : 200000;
	unsigned long long seed = argc > 3 ? strtoull(argv[3], 0, 10) : 1;
	int reps = argc > 4 ? atoi(argv[4]) : 9;
	if (argc > 7 || cases < 1 || reps < 1 || reps > 64 || nmin < 2 || nmax < nmin) {
		fprintf(stderr, "usage: search_choice choose [CASES ≥ 1 [SEED [REPS 1..64 [NMIN ≥ 2 [NMAX ≥ NMIN]]]]]\n");
		return 2;
	}
	if (!fp_model_open_search) {
		fprintf(stderr, "search_choice choose: no model compiled in (fragprof model compile MODEL -o search_model.c --name search)\n");
		return 2;
	}
	fp_model *m;
	const char *points[] = {"data", "binary", "binary_half", "binary_done", "interp", "interp_half", "interp_done", "end"};
	if (fp_model_open_search(&m) != FP_MODEL_OK || fp_model_check_points(m, points, 8) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	int quiet = getenv("QUIET") != 0;
	double *a = malloc(sizeof(double) * (size_t)nmax), *keys = malloc(sizeof(double) * LOOKUPS);
	double *t = malloc(sizeof(double) * 4 * (size_t)reps); /* t[way·reps + rep]; way 3: the decision alone */
	if (!a || !keys || !t)
		return 3;
	double total[4] = {0, 0, 0, 0}, oracle = 0, chosen_at_measured = 0;
	long wrong = 0, picked_interp = 0;
	unsigned long long st = seed;
	printf("%ld data sets, n from %ld to %ld, seed %llu, each way %d times (minimum, thread CPU time)\n", cases, nmin,
	       nmax, seed, reps);
	for (long c = 0; c < cases; c++) {
		int family = (int)(c % FAMILIES);
		long n = lround(exp(log((double)nmin) + (log((double)nmax) - log((double)nmin)) * next_uniform(&st)));
		unsigned long long data_seed = 0x5EA5C4ULL * (seed + 1) + (unsigned long long)c * 7919;
		make_data(a, n, family, data_seed, keys);
		struct choice ch;
		long sum[3];
		for (int rep = 0; rep < reps; rep++)
			for (int r = 0; r < 3; r++) {
				int way = (int)((c + rep + r) % 3);
				double probes, t0 = cpu_ns();
				if (way == 2) {
					choose(m, a, n, &ch);
					t[3 * reps + rep] = cpu_ns() - t0;
				}
				sum[way] = search(a, n, keys, 0, LOOKUPS, way == 2 ? ch.alg : way, &probes);
				t[way * reps + rep] = cpu_ns() - t0;
			}
		if (sum[0] != sum[1] || sum[0] != sum[2]) {
			fprintf(stderr, "case %ld: the searches disagree: %ld %ld %ld\n", c, sum[0], sum[1], sum[2]);
			return 1;
		}
		double tm[4];
		for (int w = 0; w < 4; w++)
			total[w] += tm[w] = minimum(&t[w * reps], reps);
		int best = tm[1] < tm[0];
		oracle += tm[best];
		chosen_at_measured += tm[ch.alg];
		wrong += ch.alg != best;
		picked_interp += ch.alg;
		if (!quiet)
			printf("case %ld %s n %ld dev %.4f predicted_probes binary %.1f interp %.1f "
			       "choice %s measured binary %.0f interp %.0f model %.0f\n",
			       c, family_name[family], n, deviation(a, n), ch.probes[0], ch.probes[1],
			       ch.alg ? "interp" : "binary", tm[0], tm[1], tm[2]);
	}
	printf("the model chose interpolation for %ld data sets, the slower search for %ld\n", picked_interp, wrong);
	printf("total_ns binary %.0f interp %.0f model %.0f oracle %.0f model_choices_at_measured %.0f decisions %.0f\n",
	       total[0], total[1], total[2], oracle, chosen_at_measured, total[3]);
	printf("model/oracle %.4f binary/oracle %.4f interp/oracle %.4f\n", total[2] / oracle, total[0] / oracle,
	       total[1] / oracle);
	free(a);
	free(keys);
	free(t);
	fp_model_free(m);
	return 0;
}

int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "choose"))
		return choose_run(argc, argv);
	if (argc > 1) {
		fprintf(stderr, "usage: search_choice < \"n s alg\", or search_choice choose [CASES [SEED [REPS [NMIN [NMAX]]]]]\n");
		return 2;
	}
	return trace_run();
}
