/* lab.c: the timing guide's exercise (docs/methods.md): fragments D, E, F, G, schemes A, B, C.
 *
 * Fragments (each a function, timed by `fragprof time --fragment func:NAME`):
 *   D  bubble_sort     bubble sort of 1000 random numbers
 *   E  insertion_sort  insertion sort of 1000 random numbers
 *   F  factor          factorisation of 909091, 1336337 or 614657 by trial division
 *   G  mat_mul         product of two random 100×100 matrices
 * Schemes (each a function scheme_X, its whole run the region region:X):
 *   A  D; E; F; G                              a sequence
 *   B  D; if (r < p) E else G; F               a branch
 *   C  E; while (r < p) { G; E }               a loop: K passes through G, K geometric
 * with r = Uniform(0, 1) drawn afresh for every decision and p the design probability.
 *
 * Usage:
 *   lab                  read integers from stdin, bubble-sort them in region:sort
 *   lab D|E|F|G SEED     run one fragment
 *   lab A|B|C SEED [P]   run a scheme (P = 0.5 by default)
 * SEED comes from fragprof's input language (a fresh value for every repetition);
 * everything random — arrays, matrices, the number to factor, every r — is drawn
 * from it BEFORE the timed work starts: filling is not part of a fragment. The
 * output is a checksum, so that the compiler cannot drop the work.
 *
 *   fragprof time examples/lab.c --fragment func:bubble_sort --fragment region:sort \
 *       --input 'a = array(1000, uniform_int(0, 1e6))' --timer tsc --reps 1000
 *   fragprof compose examples/lab.c --scheme B
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprof.h"

enum { N = 1000, M = 100, MAXPASS = 64 };

/* ---- fragments ---- */

void bubble_sort(int *a, int n) {
	for (int i = 0; i < n - 1; i++)
		for (int j = 0; j < n - i - 1; j++)
			if (a[j] > a[j + 1]) {
				int t = a[j];
				a[j] = a[j + 1];
				a[j + 1] = t;
			}
}

/* The manual's pseudocode stops at j ≠ 0 and never compares a[0]; this one is a
 * correct sort. */
void insertion_sort(int *a, int n) {
	for (int i = 1; i < n; i++)
		for (int j = i - 1; j >= 0 && a[j] > a[j + 1]; j--) {
			int t = a[j];
			a[j] = a[j + 1];
			a[j + 1] = t;
		}
}

/* factor writes the prime factors of n into f and returns how many: trial division
 * by i = 2, 3, ... while i·i ≤ n. */
int factor(long n, long *f) {
	int k = 0;
	for (long i = 2; i * i <= n; i++)
		while (n % i == 0) {
			f[k++] = i;
			n /= i;
		}
	if (n > 1)
		f[k++] = n;
	return k;
}

void mat_mul(const double *a, const double *b, double *c, int m) {
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++) {
			double s = 0;
			for (int k = 0; k < m; k++)
				s += a[i * m + k] * b[k * m + j];
			c[i * m + j] = s;
		}
}

/* ---- inputs, drawn before any timing ---- */

static uint64_t state;

static uint64_t next(void) { /* SplitMix64 */
	uint64_t z = (state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static double uniform(void) { return (double)(next() >> 11) * 0x1p-53; }

static const long numbers[3] = {909091, 1336337, 614657};

struct data {
	int d[N];          /* D's array */
	int e[MAXPASS][N]; /* E's arrays, one per pass */
	long f;            /* F's number */
	double ga[M * M], gb[M * M], gc[M * M];
	double r[MAXPASS]; /* the decisions' r */
	double p;
	long factors[64];
	long sum; /* checksum */
};

static void fill(struct data *x, int passes) {
	for (int i = 0; i < N; i++)
		x->d[i] = (int)(next() % 1000001);
	for (int k = 0; k < passes; k++)
		for (int i = 0; i < N; i++)
			x->e[k][i] = (int)(next() % 1000001);
	x->f = numbers[next() % 3];
	for (int i = 0; i < M * M; i++) {
		x->ga[i] = uniform();
		x->gb[i] = uniform();
	}
	for (int k = 0; k < MAXPASS; k++)
		x->r[k] = uniform();
}

/* ---- the schemes: control flow and the fragments' calls only ---- */

/* Each scheme calls the fragment functions directly, so that the blocks of its CFG
 * map to the parts (fragprof compose --markov); the checksum is the only glue. */

void scheme_A(struct data *x) {
	bubble_sort(x->d, N);
	insertion_sort(x->e[0], N);
	x->sum += factor(x->f, x->factors);
	mat_mul(x->ga, x->gb, x->gc, M);
}

void scheme_B(struct data *x) {
	bubble_sort(x->d, N);
	if (x->r[0] < x->p)
		insertion_sort(x->e[0], N);
	else
		mat_mul(x->ga, x->gb, x->gc, M);
	x->sum += factor(x->f, x->factors);
}

void scheme_C(struct data *x) {
	int pass = 0;
	insertion_sort(x->e[0], N);
	while (pass + 1 < MAXPASS && x->r[pass] < x->p) {
		mat_mul(x->ga, x->gb, x->gc, M);
		insertion_sort(x->e[++pass], N);
	}
	x->sum += pass;
}

/* checksum keeps the sorted arrays and the product alive. */
static void checksum(struct data *x) {
	x->sum += x->d[N / 2] + x->e[0][N / 2] + (long)(x->gc[M + 1] * 1000);
}

static struct data x;

int main(int argc, char **argv) {
	if (argc < 2) {
		/* The array on stdin: region:sort is the bubble sort alone. */
		static int a[1 << 20];
		int n = 0;
		while (n < (int)(sizeof a / sizeof a[0]) && scanf("%d", &a[n]) == 1)
			n++;
		FP_BEGIN("sort");
		bubble_sort(a, n);
		FP_END("sort");
		printf("%d\n", n ? a[n / 2] : 0);
		return 0;
	}
	const char *what = argv[1];
	state = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
	x.p = argc > 3 ? atof(argv[3]) : 0.5;
	/* C needs an array per pass of E; the others one. */
	fill(&x, what[0] == 'C' ? MAXPASS : 1);
	switch (what[0]) {
	case 'D':
		bubble_sort(x.d, N);
		break;
	case 'E':
		insertion_sort(x.e[0], N);
		break;
	case 'F':
		x.sum += factor(x.f, x.factors);
		break;
	case 'G':
		mat_mul(x.ga, x.gb, x.gc, M);
		break;
	case 'A':
		FP_BEGIN("A");
		scheme_A(&x);
		FP_END("A");
		break;
	case 'B':
		FP_BEGIN("B");
		scheme_B(&x);
		FP_END("B");
		break;
	case 'C':
		FP_BEGIN("C");
		scheme_C(&x);
		FP_END("C");
		break;
	default:
		fprintf(stderr, "lab: unknown fragment or scheme %s (want D, E, F, G, A, B or C)\n", what);
		return 2;
	}
	checksum(&x);
	printf("%ld\n", x.sum);
	return 0;
}
