/* jacobi_blocks.c: Jacobi iteration of the heat equation on a grid of 2H × W
 * interior cells split into two blocks of H rows, each advanced by its own
 * thread, which exchange their boundary rows through pipes after every step
 * — and, every k-th exchange, do not: each block extrapolates the row it would
 * have received from the program's own model (docs/predict.md, "In the
 * program").
 *
 * The grid's top edge is held at sin(πx), the other edges at 0, the interior
 * starts at 0; a step sets every cell to the mean of its four neighbours. The
 * upper block's thread passes a checkpoint after each exchange and records the
 * means of the two exchanged rows and their changes since the last exchange:
 *
 *   start → exchange (a, da, b, db) → ... → exchange → end
 *
 * a the mean of the row the upper block receives (the lower block's first),
 * b of the row it sends (its own last), da and db their changes. The model
 * learns da and db on exchange → exchange as functions of the state of the
 * exchange before (a regression over previous exchanges). In place of an
 * exchange, a block asks the model for the change of its ghost row's mean
 * (fp_model_predict_value of da, or db, at the last exchange's state) and
 * moves each ghost cell from the last row received by its change per step
 * between the last two rows received, times the ratio of the predicted change
 * of the mean to its last change: one query per skipped exchange, no waiting
 * for the other block.
 *
 * Trace mode reads "H W S" on stdin (S steps, every exchange made):
 *
 *   fragprof trace examples/predict/jacobi_blocks.c --input 'H = uniform_int(16, 48)' \
 *       --input 'W = uniform_int(64, 256)' --input 'S = uniform_int(200, 600)' --stdin '{H} {W} {S}\n' \
 *       --trials 30 --clock thread -o traces/
 *   fragprof model build traces/ -o jacobi.model
 *   fragprof model compile jacobi.model -o jacobi_model.c --name jacobi
 *   fragprof model lib -d fpmodel/
 *   cc -O2 -I fpmodel -I runtime/c jacobi_blocks.c jacobi_model.c fpmodel/libfragprof_model.a -lm -pthread -o jacobi
 *   ./jacobi compare 40 200 500 5 0 8 4 2
 *
 * Compare mode ("compare H W S REPS K..."; K = 0: never) runs, for each K,
 * the two blocks with every K-th exchange replaced — by the model's
 * extrapolation, and, as a peer, by the last row received (stale) — REPS
 * times in rotating order (wall-clock time, median), and compares each final
 * field with the exact one: a serial Jacobi run of the whole grid (one array,
 * no blocks). It prints per K and way the time (over that of K = 0 when K = 0
 * comes first), the maximum absolute error and the relative L2 error, and
 * whether the field equals the exact one bit for bit.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fragprof.h"
#include "fragprof_model.h"

/* Defined by the model compiled in (fragprof model compile ... --name jacobi);
 * absent from the traced build, which does not ask a model. */
int fp_model_open_jacobi(fp_model **out) __attribute__((weak));

/* What replaces an exchange. */
enum { MODEL, STALE };

/* A run's settings, shared by both blocks. */
struct setup {
	long H, W, S, k; /* k: every k-th exchange replaced (0: none) */
	int way;         /* MODEL or STALE: what replaces an exchange */
	int trace;       /* pass the checkpoints (the upper block) */
	const fp_model *m;
	int up[2], down[2]; /* pipes: the upper block's last row down, the lower block's first row up */
};

/* A block: rows 0 and H + 1 are its halo (the fixed edge or the other block's
 * row), rows 1..H its own, each of W + 2 cells with the fixed side edges. */
struct block {
	const struct setup *s;
	int id; /* 0 upper, 1 lower */
	double *u, *v;
	double *ghost1, *ghost2; /* the ghost row received at the last two exchanges made */
	long gap;                /* the steps between them */
	double *own1, *own2;     /* the row sent (or that would have been) at the last two exchanges */
	int failed;
};

#define AT(p, i, j) ((p)[(long)(i) * (W + 2) + (j)])

static double row_mean(const double *r, long W) {
	double s = 0;
	for (long j = 1; j <= W; j++)
		s += r[j];
	return s / (double)W;
}

static int write_all(int fd, const void *p, size_t n) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w <= 0)
			return -1;
		c += w, n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n) {
	char *c = p;
	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r <= 0)
			return -1;
		c += r, n -= (size_t)r;
	}
	return 0;
}

/* RHO_MAX bounds the ratio of a row's predicted change to its last: a larger
 * one is a mean change near 0 divided, not a diffusion's. */
#define RHO_MAX 1.2

/* extrapolate replaces exchange t (1-based) of block blk: each cell of its
 * ghost row moves from the last row received by its change per step between
 * the last two rows received (rows received, never extrapolated ones: with
 * k = 2 an extrapolation from an extrapolation resonates with Jacobi's
 * oscillating mode, whose factor per step is near −1), times ρ, the ratio of
 * the change of the row's mean the model predicts from that state to the
 * last, in [0, RHO_MAX]. The stale way: the row stays as it was. */
static int extrapolate(struct block *blk, long t, double *ghost) {
	const struct setup *s = blk->s;
	long W = s->W;
	memcpy(ghost, blk->ghost1, sizeof(double) * (size_t)(W + 2));
	double gap = (double)blk->gap;
	if (s->way == STALE)
		return 0;
	double g = row_mean(blk->ghost1, W), dg = (g - row_mean(blk->ghost2, W)) / gap;
	double o = row_mean(blk->own1, W), dow = o - row_mean(blk->own2, W);
	/* The upper block's ghost row is a, its own row b; the lower block's the reverse. */
	fp_model_value st[] = {{"a", blk->id == 0 ? g : o},  {"da", blk->id == 0 ? dg : dow},
	                       {"b", blk->id == 0 ? o : g},  {"db", blk->id == 0 ? dow : dg},
	                       {"#exchange", (double)(t - 1)}, {"#start", 1}, {"#end", 0},
	                       {"$H", (double)s->H},         {"$W", (double)W}, {"$S", (double)s->S}};
	double want;
	if (fp_model_predict_value(s->m, "exchange", "exchange", blk->id == 0 ? "da" : "db", st, 10, &want) != FP_MODEL_OK) {
		fprintf(stderr, "exchange %ld: %s\n", t, fp_model_errmsg());
		return -1;
	}
	double rho = dg != 0 ? fmin(RHO_MAX, fmax(0, want / dg)) : 0;
	for (long j = 1; j <= W; j++)
		ghost[j] += rho * (blk->ghost1[j] - blk->ghost2[j]) / gap;
	return 0;
}

/* run_block advances block blk by S steps, exchanging or extrapolating its halo. */
static void *run_block(void *arg) {
	struct block *blk = arg;
	const struct setup *s = blk->s;
	long W = s->W, H = s->H;
	size_t row = sizeof(double) * (size_t)(W + 2);
	int out = blk->id == 0 ? s->down[1] : s->up[1], in = blk->id == 0 ? s->up[0] : s->down[0];
	double *own = &AT(blk->u, blk->id == 0 ? H : 1, 0), *ghost = &AT(blk->u, blk->id == 0 ? H + 1 : 0, 0);
	memcpy(blk->ghost1, ghost, row);
	memcpy(blk->ghost2, ghost, row);
	blk->gap = 1;
	long last = 0; /* the last exchange made */
	memcpy(blk->own1, own, row);
	memcpy(blk->own2, own, row);
	int trace = s->trace && blk->id == 0;
	if (trace)
		FP_POINT("start");
	for (long t = 1; t <= s->S; t++) {
		for (long i = 1; i <= H; i++)
			for (long j = 1; j <= W; j++)
				AT(blk->v, i, j) =
				    0.25 * ((AT(blk->u, i - 1, j) + AT(blk->u, i + 1, j)) + (AT(blk->u, i, j - 1) + AT(blk->u, i, j + 1)));
		for (long i = 1; i <= H; i++)
			memcpy(&AT(blk->u, i, 1), &AT(blk->v, i, 1), sizeof(double) * (size_t)W);
		if (s->k > 0 && t % s->k == 0) {
			if (extrapolate(blk, t, ghost) != 0) {
				blk->failed = 1;
				return 0;
			}
		} else if (write_all(out, own, row) || read_all(in, ghost, row)) {
			fprintf(stderr, "block %d: the exchange failed\n", blk->id);
			blk->failed = 1;
			return 0;
		}
		if (!(s->k > 0 && t % s->k == 0)) {
			double *x = blk->ghost2;
			blk->ghost2 = blk->ghost1, blk->ghost1 = x;
			memcpy(blk->ghost1, ghost, row);
			blk->gap = t - last, last = t;
		}
		double *x = blk->own2;
		blk->own2 = blk->own1, blk->own1 = x;
		memcpy(blk->own1, own, row);
		if (trace) {
			double a = row_mean(blk->ghost1, W), da = a - row_mean(blk->ghost2, W);
			double b = row_mean(blk->own1, W), db = b - row_mean(blk->own2, W);
			FP_POINT_VARS("exchange", FP_D(a), FP_D(da), FP_D(b), FP_D(db));
			(void)da, (void)db;
		}
	}
	if (trace)
		FP_POINT("end");
	return 0;
}

/* edge is the fixed top edge at column j of W: sin(πx). */
static double edge(long j, long W) {
	return sin(3.141592653589793 * (double)j / (double)(W + 1));
}

/* exact runs S steps of Jacobi on the whole (2H + 2) × (W + 2) grid u (scratch v). */
static void exact(double *u, double *v, long H, long W, long S) {
	long R = 2 * H;
	for (long t = 1; t <= S; t++) {
		for (long i = 1; i <= R; i++)
			for (long j = 1; j <= W; j++)
				AT(v, i, j) = 0.25 * ((AT(u, i - 1, j) + AT(u, i + 1, j)) + (AT(u, i, j - 1) + AT(u, i, j + 1)));
		for (long i = 1; i <= R; i++)
			memcpy(&AT(u, i, 1), &AT(v, i, 1), sizeof(double) * (size_t)W);
	}
}

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* blocks runs the two blocks (the upper in the calling thread) and writes the
 * final field into field ((2H + 2) × (W + 2)); it returns the wall time in ns,
 * or a negative number when a block failed. */
static double blocks(struct setup *s, double *field) {
	long H = s->H, W = s->W;
	size_t cells = (size_t)(H + 2) * (size_t)(W + 2), row = (size_t)(W + 2);
	struct block b[2];
	double *mem = calloc(cells * 4 + row * 8, sizeof(double));
	if (!mem || pipe(s->up) || pipe(s->down)) {
		fprintf(stderr, "out of memory or pipes\n");
		exit(3);
	}
	for (int k = 0; k < 2; k++) {
		double *p = mem + (size_t)k * (cells * 2 + row * 4);
		b[k] = (struct block){.s = s, .id = k, .u = p, .v = p + cells, .ghost1 = p + 2 * cells,
		                      .ghost2 = p + 2 * cells + row, .own1 = p + 2 * cells + 2 * row,
		                      .own2 = p + 2 * cells + 3 * row};
		for (long i = 0; i < H + 2; i++) /* the side edges stay 0 */
			AT(b[k].u, i, 0) = AT(b[k].u, i, W + 1) = AT(b[k].v, i, 0) = AT(b[k].v, i, W + 1) = 0;
	}
	for (long j = 1; j <= W; j++)
		AT(b[0].u, 0, j) = AT(b[0].v, 0, j) = edge(j, W);
	pthread_t lower;
	double t0 = now_ns();
	if (pthread_create(&lower, 0, run_block, &b[1])) {
		fprintf(stderr, "cannot start a thread\n");
		exit(3);
	}
	run_block(&b[0]);
	pthread_join(lower, 0);
	double t = now_ns() - t0;
	for (int k = 0; k < 2; k++) {
		close(s->up[k]);
		close(s->down[k]);
	}
	memcpy(field, b[0].u, sizeof(double) * (size_t)(H + 1) * row);
	memcpy(field + (size_t)(H + 1) * row, &AT(b[1].u, 1, 0), sizeof(double) * (size_t)(H + 1) * row);
	int failed = b[0].failed || b[1].failed;
	free(mem);
	return failed ? -1 : t;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *t, int n) {
	qsort(t, (size_t)n, sizeof *t, cmp);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* errors compares field with the exact one over the interior cells. */
static void errors(const double *field, const double *ex, long H, long W, double *maxabs, double *rel, int *identical) {
	double num = 0, den = 0;
	*maxabs = 0;
	*identical = 1;
	for (long i = 1; i <= 2 * H; i++)
		for (long j = 1; j <= W; j++) {
			double d = AT(field, i, j) - AT(ex, i, j);
			*maxabs = isnan(d) || isnan(*maxabs) ? NAN : fmax(*maxabs, fabs(d));
			num += d * d;
			den += AT(ex, i, j) * AT(ex, i, j);
			*identical &= memcmp(&AT(field, i, j), &AT(ex, i, j), sizeof(double)) == 0;
		}
	*rel = den > 0 ? sqrt(num / den) : sqrt(num);
}

static int compare(int argc, char **argv) {
	if (argc < 7) {
		fprintf(stderr, "usage: jacobi_blocks compare H W S REPS K... (K = 0: every exchange made)\n");
		return 2;
	}
	long H = atol(argv[2]), W = atol(argv[3]), S = atol(argv[4]);
	int reps = atoi(argv[5]), nk = argc - 6;
	if (H < 1 || W < 1 || W > 4000 || S < 1 || reps < 1 || reps > 64) {
		fprintf(stderr, "jacobi_blocks compare: H ≥ 1, 1 ≤ W ≤ 4000, S ≥ 1, 1 ≤ REPS ≤ 64\n");
		return 2;
	}
	if (!fp_model_open_jacobi) {
		fprintf(stderr, "jacobi_blocks compare: no model compiled in (fragprof model compile MODEL -o jacobi_model.c --name jacobi)\n");
		return 2;
	}
	fp_model *m;
	const char *points[] = {"start", "exchange", "end"};
	if (fp_model_open_jacobi(&m) != FP_MODEL_OK || fp_model_check_points(m, points, 3) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	size_t cells = (size_t)(2 * H + 2) * (size_t)(W + 2);
	double *ex = calloc(cells, sizeof(double)), *scratch = calloc(cells, sizeof(double)), *field = calloc(cells, sizeof(double));
	double *t = malloc(sizeof(double) * (size_t)nk * 2 * (size_t)reps);
	if (!ex || !scratch || !field || !t)
		return 3;
	for (long j = 1; j <= W; j++)
		AT(ex, 0, j) = AT(scratch, 0, j) = edge(j, W);
	exact(ex, scratch, H, W, S);
	printf("grid %ld × %ld in two blocks of %ld rows, %ld steps, each way %d times (median wall time)\n", 2 * H, W, H, S,
	       reps);
	double err[64][2][2];
	int same[64][2];
	if (nk > 64)
		nk = 64;
	for (int rep = 0; rep < reps; rep++)
		for (int r = 0; r < 2 * nk; r++) {
			int c = (r + rep) % (2 * nk), kk = c / 2, way = c % 2 ? STALE : MODEL;
			long k = atol(argv[6 + kk]);
			if (k < 0 || k == 1) {
				fprintf(stderr, "jacobi_blocks compare: K = %ld: want 0 (never) or K ≥ 2\n", k);
				return 2;
			}
			struct setup s = {H, W, S, k, way, 0, m, {0, 0}, {0, 0}};
			double dt = blocks(&s, field);
			if (dt < 0)
				return 1;
			t[(kk * 2 + c % 2) * reps + rep] = dt;
			errors(field, ex, H, W, &err[kk][c % 2][0], &err[kk][c % 2][1], &same[kk][c % 2]);
		}
	/* Both ways make every exchange when k = 0: its 2·REPS runs are the exact run's time. */
	double base = atol(argv[6]) == 0 ? median(t, 2 * reps) : 0;
	for (int kk = 0; kk < nk; kk++) {
		long k = atol(argv[6 + kk]);
		for (int w = 0; w < (k == 0 ? 1 : 2); w++) {
			double med = k == 0 ? base : median(&t[(kk * 2 + w) * reps], reps);
			printf("k %ld way %s time_ms %.3f time/exact %.4f maxabs %.3g rel_l2 %.3g identical %d\n", k,
			       k == 0 ? "exact" : w ? "stale" : "model", med / 1e6, base > 0 ? med / base : NAN, err[kk][w][0],
			       err[kk][w][1], same[kk][w] && same[kk][k == 0]);
		}
	}
	free(ex);
	free(scratch);
	free(field);
	free(t);
	fp_model_free(m);
	return 0;
}

int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "compare"))
		return compare(argc, argv);
	long H, W, S;
	if (argc > 1 || scanf("%ld %ld %ld", &H, &W, &S) != 3 || H < 1 || W < 1 || W > 4000 || S < 1) {
		fprintf(stderr, "usage: jacobi_blocks < \"H W S\" (1 ≤ W ≤ 4000), or jacobi_blocks compare H W S REPS K...\n");
		return 2;
	}
	size_t cells = (size_t)(2 * H + 2) * (size_t)(W + 2);
	double *field = calloc(cells, sizeof(double));
	if (!field)
		return 3;
	struct setup s = {H, W, S, 0, MODEL, 1, 0, {0, 0}, {0, 0}};
	if (blocks(&s, field) < 0)
		return 1;
	printf("centre %.17g\n", AT(field, H, W / 2 + 1));
	free(field);
	return 0;
}
