/* fp_model.c: the C library behind fragprof_model.h — reads a model's runtime
 * form (written by `fragprof model compile`, internal/predict/capi.go) and
 * interprets it exactly as `fragprof model predict` does (internal/predict/
 * interp.go): the same rules, formulas, fast-forward of self loops, random
 * choices (Go's math/rand/v2 PCG-DXSM, seed 1, run r's stream r), clustering of
 * the runs, interval and choice of predictor. Only libc, libm and pthreads. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime */
#endif
#ifndef _ISOC11_SOURCE
#define _ISOC11_SOURCE /* aligned_alloc */
#endif
#include "fragprof_model.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FPM_VERSION 1
#define FPM_RUNS 20
#define FPM_SEED 1
#define FPM_MAX_STEPS 200000000LL

enum { K_CONST, K_COPY, K_SHIFT, K_POLY, K_GMDH, K_POWER };
enum { P_INTERVAL, P_EQUAL, P_ARITH, P_GEOM };

typedef struct {
	int in0, in1;
	double c[6];
} fpm_neuron;

typedef struct {
	int kind, nv, *idx;
	double value, exp, coef0;
	int nterms, *terms; /* nterms × nv exponents */
	double *coefs;
	double *mu, *sd, muy, sdy;
	int nlayers, *lsize, out, maxlayer;
	fpm_neuron **layers;
	int fit_n;
	double cvrmse;
} fpm_formula;

typedef struct {
	int kind, has_lo, has_hi;
	double lo, hi, value, step;
} fpm_piece;

typedef struct {
	int arc, a, b, ratio, npieces;
	fpm_piece *pieces;
} fpm_cond;

typedef struct {
	int arc;
	double p;
} fpm_share;

typedef struct {
	int ncond;
	fpm_cond *conds;
	int has_trip, trip_arc;
	fpm_formula trip_count;
	int ntcond;
	fpm_cond *tconds;
	int nexit;
	fpm_share *exit;
	int nres;
	fpm_share *res;
} fpm_rule;

typedef struct {
	int from, to, resets, body;
	double mean_ns;
	fpm_formula time;
	int ndata, *dvar;
	fpm_formula *data;
} fpm_arc;

typedef struct {
	char *name;
	int nplaces;
	char **places;
} fpm_node;

struct fp_model {
	char *name, *program;
	int ni, nv, nn, na, F;
	char **inputs, **vars;
	fpm_node *nodes;
	fpm_arc *arcs;
	fpm_rule *rules;
	double scale, overhead;
	int has_eval;
	double mape;
	int has_base, nbterms, *bnf;
	double bconst, *bcoef;
	int *bfin, *bfj;
	double *bfi;
	int has_power, pw_in;
	double pw_a, pw_b, pw_k;
	int has_seg, sg_in;
	double sg_a, sg_b, sg_c, sg_k, sg_x0;
	int has_sel;
	char *chosen;
	double level, q, widen;
	int nnoise, *noise_n;
	double **noise_in, *noise_q;
	int *has_range;
	double *rmin, *rmax;
	int has_mem, mem_in, ncache;
	double mem_a, mem_b, mem_k, mem_min, mem_max, *caches;
	/* derived */
	int **out, *nout, *ff_self, *ff_ok, *trip_node, probabilistic;
	/* fast-forward of self loops (fastforward.go's ffInfo): by node, each
	 * feature's step per iteration and the features that move */
	double **ff_delta;
	int **ff_moving, *ff_nmoving;
	/* online learning (fp_model_learn_start): the refitted arcs, published
	 * once, and the learner that refits them */
	struct fpm_arcfit *_Atomic fit;
	struct fpm_learner *learner;
	/* set by the learner when the program passed a checkpoint the model does
	 * not know (its name first): every query then fails */
	_Atomic int mismatch;
	char mismatch_name[128];
};

static int fpm_fail(int code, const char *fmt, ...);

/* learned_ok fails when online learning found the program's checkpoints not
 * to be the model's. */
static int learned_ok(const fp_model *m) {
	if (!atomic_load_explicit(&((fp_model *)m)->mismatch, memory_order_acquire))
		return FP_MODEL_OK;
	return fpm_fail(FP_MODEL_EMISMATCH,
	                "%s: the program passed checkpoint \"%s\", which the model of %s was not learned from: trace the "
	                "program as it is now and build and compile the model again",
	                m->name, m->mismatch_name, m->program);
}

/* fpm_arcfit is an arc's time formula as online learning refits it: its factor
 * c, the residual standard deviation s (ns) and the rows n behind them (0: not
 * refitted yet), each published atomically by the learner. */
struct fpm_arcfit {
	_Atomic uint64_t c, s, n;
};

static double fpm_bits(uint64_t u) {
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

static uint64_t fpm_u64(double x) {
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

/* arc_fit returns arc a's factor, error (ns) and rows: the learnt ones when the
 * learner has refitted it, else 1 and the model's own. */
static double arc_fit(const fp_model *m, int a, double *sigma, double *n) {
	struct fpm_arcfit *f = atomic_load_explicit(&((fp_model *)m)->fit, memory_order_acquire);
	uint64_t rows = f ? atomic_load_explicit(&f[a].n, memory_order_acquire) : 0;
	if (rows == 0) {
		if (sigma)
			*sigma = m->arcs[a].time.cvrmse * m->scale;
		if (n)
			*n = m->arcs[a].time.fit_n;
		return 1;
	}
	if (sigma)
		*sigma = fpm_bits(atomic_load_explicit(&f[a].s, memory_order_relaxed));
	if (n)
		*n = (double)rows;
	return fpm_bits(atomic_load_explicit(&f[a].c, memory_order_relaxed));
}

/* ---- errors ------------------------------------------------------------------ */

static _Thread_local char fpm_msg[1024];

const char *fp_model_errmsg(void) { return fpm_msg; }

static int fpm_fail(int code, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fpm_msg, sizeof fpm_msg, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- Go's arithmetic where C's differs ---------------------------------------- */

/* fpm_max is Go's math.Max: NaN wins over a finite value, unlike fmax. */
static double fpm_max(double a, double b) {
	if (isinf(a) && a > 0)
		return a;
	if (isinf(b) && b > 0)
		return b;
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == 0 && a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

/* Go's math/rand/v2 PCG with DXSM output, and Rand.Float64. */
typedef struct {
	uint64_t hi, lo;
} fpm_pcg;

static uint64_t fpm_pcg_u64(fpm_pcg *p) {
	const uint64_t mulHi = 2549297995355413924ULL, mulLo = 4865540595714422341ULL;
	const uint64_t incHi = 6364136223846793005ULL, incLo = 1442695040888963407ULL;
	uint64_t hi, lo = p->lo * mulLo;
	{ /* hi: the high half of p->lo · mulLo (Go's bits.Mul64) */
		const uint64_t mask = 0xffffffffULL;
		uint64_t x0 = p->lo & mask, x1 = p->lo >> 32, y0 = mulLo & mask, y1 = mulLo >> 32;
		uint64_t w0 = x0 * y0, t = x1 * y0 + (w0 >> 32), w1 = t & mask, w2 = t >> 32;
		w1 += x0 * y1;
		hi = x1 * y1 + w2 + (w1 >> 32);
	}
	hi += p->hi * mulLo + p->lo * mulHi;
	uint64_t nlo = lo + incLo;
	uint64_t c = nlo < lo;
	hi = hi + incHi + c;
	p->lo = nlo;
	p->hi = hi;
	lo = nlo;
	hi ^= hi >> 32;
	hi *= 0xda942042e4dd58b5ULL;
	hi ^= hi >> 48;
	hi *= (lo | 1);
	return hi;
}

static double fpm_float64(fpm_pcg *p) { return (double)(fpm_pcg_u64(p) << 11 >> 11) / 9007199254740992.0; }

/* ---- reading the runtime form -------------------------------------------------- */

typedef struct {
	const char *s, *end, *name, *start;
	int bad;
	char what[160];
} fpm_rd;

static void rd_skip(fpm_rd *r) {
	while (r->s < r->end && (*r->s == ' ' || *r->s == '\n' || *r->s == '\t' || *r->s == '\r'))
		r->s++;
}

static void rd_bad(fpm_rd *r, const char *what) {
	if (!r->bad)
		snprintf(r->what, sizeof r->what, "%s", what);
	r->bad = 1;
}

static double rd_num(fpm_rd *r) {
	rd_skip(r);
	if (r->bad || r->s >= r->end) {
		rd_bad(r, "a number");
		return 0;
	}
	char buf[64];
	size_t n = 0;
	while (r->s < r->end && *r->s != ' ' && *r->s != '\n' && n < sizeof buf - 1)
		buf[n++] = *r->s++;
	buf[n] = 0;
	char *e;
	double x = strtod(buf, &e);
	if (e == buf || *e) {
		rd_bad(r, "a number");
		return 0;
	}
	return x;
}

static int rd_int(fpm_rd *r, int lo, int hi) {
	double x = rd_num(r);
	if (r->bad)
		return lo;
	if (x != floor(x) || x < lo || x > hi) {
		rd_bad(r, "an index or count in range");
		return lo;
	}
	return (int)x;
}

static char *rd_str(fpm_rd *r) {
	rd_skip(r);
	long n = 0;
	while (!r->bad && r->s < r->end && *r->s >= '0' && *r->s <= '9' && n < 1 << 20)
		n = n * 10 + (*r->s++ - '0');
	if (r->bad || r->s >= r->end || *r->s != ':' || r->end - r->s - 1 < n) {
		rd_bad(r, "a string");
		return 0;
	}
	r->s++;
	char *out = malloc((size_t)n + 1);
	if (!out) {
		rd_bad(r, "memory");
		return 0;
	}
	memcpy(out, r->s, (size_t)n);
	out[n] = 0;
	r->s += n;
	return out;
}

static void *rd_alloc(fpm_rd *r, size_t n, size_t size) {
	void *p = calloc(n ? n : 1, size);
	if (!p)
		rd_bad(r, "memory");
	return p;
}

#define RD_ARRAY(r, p, n) ((p) = rd_alloc((r), (size_t)(n), sizeof *(p)))
#define MAXN 100000000

static void rd_formula(fpm_rd *r, fpm_formula *f, int F) {
	f->kind = rd_int(r, 0, K_POWER);
	f->nv = rd_int(r, 0, F);
	if (!RD_ARRAY(r, f->idx, f->nv))
		return;
	for (int i = 0; i < f->nv && !r->bad; i++)
		f->idx[i] = rd_int(r, 0, F - 1);
	switch (f->kind) {
	case K_CONST:
	case K_COPY:
	case K_SHIFT:
		f->value = rd_num(r);
		if (f->kind != K_CONST && f->nv != 1)
			rd_bad(r, "a copy or shift of one variable");
		break;
	case K_POWER:
		f->value = rd_num(r);
		f->coef0 = rd_num(r);
		f->exp = rd_num(r);
		if (f->nv != 1)
			rd_bad(r, "a power law of one variable");
		break;
	case K_POLY:
		f->nterms = rd_int(r, 0, MAXN);
		if (!RD_ARRAY(r, f->coefs, f->nterms) || !RD_ARRAY(r, f->terms, (size_t)f->nterms * (size_t)f->nv + 1))
			return;
		for (int k = 0; k < f->nterms && !r->bad; k++) {
			f->coefs[k] = rd_num(r);
			for (int v = 0; v < f->nv; v++)
				f->terms[k * f->nv + v] = rd_int(r, 0, 1000);
		}
		break;
	case K_GMDH: {
		if (!RD_ARRAY(r, f->mu, f->nv) || !RD_ARRAY(r, f->sd, f->nv))
			return;
		for (int i = 0; i < f->nv; i++) {
			f->mu[i] = rd_num(r);
			f->sd[i] = rd_num(r);
		}
		f->muy = rd_num(r);
		f->sdy = rd_num(r);
		f->nlayers = rd_int(r, 1, 1000);
		if (!RD_ARRAY(r, f->lsize, f->nlayers) || !RD_ARRAY(r, f->layers, f->nlayers))
			return;
		int prev = 0;
		for (int l = 0; l < f->nlayers && !r->bad; l++) {
			f->lsize[l] = rd_int(r, 1, 100000);
			if (f->lsize[l] > f->maxlayer)
				f->maxlayer = f->lsize[l];
			if (!RD_ARRAY(r, f->layers[l], f->lsize[l]))
				return;
			for (int k = 0; k < f->lsize[l] && !r->bad; k++) {
				fpm_neuron *nr = &f->layers[l][k];
				nr->in0 = rd_int(r, 0, prev + f->nv - 1);
				nr->in1 = rd_int(r, 0, prev + f->nv - 1);
				for (int c = 0; c < 6; c++)
					nr->c[c] = rd_num(r);
			}
			prev = f->lsize[l];
		}
		f->out = rd_int(r, 0, prev - 1);
		break;
	}
	}
	f->fit_n = rd_int(r, 0, 2000000000);
	f->cvrmse = rd_num(r);
}

static void rd_conds(fpm_rd *r, int *n, fpm_cond **cs, int na, int F) {
	*n = rd_int(r, 0, MAXN);
	if (!RD_ARRAY(r, *cs, *n))
		return;
	for (int k = 0; k < *n && !r->bad; k++) {
		fpm_cond *c = &(*cs)[k];
		c->arc = rd_int(r, 0, na - 1);
		c->a = rd_int(r, 0, F - 1);
		c->b = rd_int(r, -1, F - 1);
		c->ratio = rd_int(r, 0, 1);
		c->npieces = rd_int(r, 1, MAXN);
		if (!RD_ARRAY(r, c->pieces, c->npieces))
			return;
		for (int i = 0; i < c->npieces && !r->bad; i++) {
			fpm_piece *p = &c->pieces[i];
			p->kind = rd_int(r, 0, P_GEOM);
			p->has_lo = rd_int(r, 0, 1);
			p->lo = rd_num(r);
			p->has_hi = rd_int(r, 0, 1);
			p->hi = rd_num(r);
			p->value = rd_num(r);
			p->step = rd_num(r);
		}
	}
}

static void rd_shares(fpm_rd *r, int *n, fpm_share **ss, int na) {
	*n = rd_int(r, 0, MAXN);
	if (!RD_ARRAY(r, *ss, *n))
		return;
	for (int k = 0; k < *n && !r->bad; k++) {
		(*ss)[k].arc = rd_int(r, 0, na - 1);
		(*ss)[k].p = rd_num(r);
	}
}

static void free_formula(fpm_formula *f) {
	free(f->idx);
	free(f->terms);
	free(f->coefs);
	free(f->mu);
	free(f->sd);
	if (f->layers)
		for (int l = 0; l < f->nlayers; l++)
			free(f->layers[l]);
	free(f->layers);
	free(f->lsize);
}

static void free_conds(fpm_cond *cs, int n) {
	for (int k = 0; cs && k < n; k++)
		free(cs[k].pieces);
	free(cs);
}

static void learner_free(fp_model *m);

void fp_model_free(fp_model *m) {
	if (!m)
		return;
	learner_free(m);
	free((void *)m->fit);
	free(m->name);
	free(m->program);
	for (int i = 0; m->inputs && i < m->ni; i++)
		free(m->inputs[i]);
	free(m->inputs);
	for (int i = 0; m->vars && i < m->nv; i++)
		free(m->vars[i]);
	free(m->vars);
	for (int i = 0; m->nodes && i < m->nn; i++) {
		free(m->nodes[i].name);
		for (int k = 0; m->nodes[i].places && k < m->nodes[i].nplaces; k++)
			free(m->nodes[i].places[k]);
		free(m->nodes[i].places);
	}
	free(m->nodes);
	for (int i = 0; m->arcs && i < m->na; i++) {
		fpm_arc *a = &m->arcs[i];
		free_formula(&a->time);
		for (int k = 0; a->data && k < a->ndata; k++)
			free_formula(&a->data[k]);
		free(a->data);
		free(a->dvar);
	}
	free(m->arcs);
	for (int i = 0; m->rules && i < m->nn; i++) {
		fpm_rule *r = &m->rules[i];
		free_conds(r->conds, r->ncond);
		free_formula(&r->trip_count);
		free_conds(r->tconds, r->ntcond);
		free(r->exit);
		free(r->res);
	}
	free(m->rules);
	free(m->bnf);
	free(m->bcoef);
	free(m->bfin);
	free(m->bfj);
	free(m->bfi);
	free(m->chosen);
	for (int i = 0; m->noise_in && i < m->nnoise; i++)
		free(m->noise_in[i]);
	free(m->noise_in);
	free(m->noise_n);
	free(m->noise_q);
	free(m->has_range);
	free(m->rmin);
	free(m->rmax);
	free(m->caches);
	for (int i = 0; m->out && i < m->nn; i++)
		free(m->out[i]);
	free(m->out);
	free(m->nout);
	free(m->ff_self);
	free(m->ff_ok);
	for (int i = 0; m->ff_delta && i < m->nn; i++) {
		free(m->ff_delta[i]);
		free(m->ff_moving[i]);
	}
	free(m->ff_delta);
	free(m->ff_moving);
	free(m->ff_nmoving);
	free(m->trip_node);
	free(m);
}

/* formula_polynomial is regress.Formula.Polynomial: a polynomial of degree at
 * most FPM_ALONG_DEGREE wherever the features marked in moving change. */
#define FPM_ALONG_DEGREE 3
static int formula_polynomial(const fpm_formula *f, const char *moving) {
	int moves = 0;
	for (int i = 0; i < f->nv; i++)
		moves |= moving[f->idx[i]];
	if (!moves)
		return 1;
	switch (f->kind) {
	case K_CONST:
	case K_COPY:
	case K_SHIFT:
		return 1;
	case K_POWER:
		return f->exp == trunc(f->exp) && f->exp >= 0 && f->exp <= FPM_ALONG_DEGREE;
	case K_POLY:
		for (int k = 0; k < f->nterms; k++) {
			int d = 0;
			for (int v = 0; v < f->nv; v++)
				if (moving[f->idx[v]])
					d += f->terms[k * f->nv + v];
			if (d > FPM_ALONG_DEGREE)
				return 0;
		}
		return 1;
	}
	return 0;
}

/* derive mirrors Model.compile's checks that matter here and prepareFastForward. */
static int derive(fp_model *m, fpm_rd *r) {
	int nn = m->nn;
	if (!RD_ARRAY(r, m->out, nn) || !RD_ARRAY(r, m->nout, nn) || !RD_ARRAY(r, m->ff_self, nn) ||
	    !RD_ARRAY(r, m->ff_ok, nn) || !RD_ARRAY(r, m->trip_node, nn) || !RD_ARRAY(r, m->ff_delta, nn) ||
	    !RD_ARRAY(r, m->ff_moving, nn) || !RD_ARRAY(r, m->ff_nmoving, nn))
		return 0;
	for (int i = 0; i < m->na; i++) {
		fpm_arc *a = &m->arcs[i];
		if (a->from == 1 || a->to == 0) {
			rd_bad(r, "arcs that neither leave END nor enter START");
			return 0;
		}
		m->nout[a->from]++;
		if (a->body >= 0 && (m->arcs[a->body].from != a->from || m->arcs[a->body].to != a->from || a->body == i)) {
			rd_bad(r, "an arc's body that is its node's self arc");
			return 0;
		}
	}
	for (int n = 0; n < nn; n++) {
		if (!RD_ARRAY(r, m->out[n], m->nout[n]))
			return 0;
		m->nout[n] = 0;
	}
	for (int i = 0; i < m->na; i++)
		m->out[m->arcs[i].from][m->nout[m->arcs[i].from]++] = i;
	for (int n = 0; n < nn; n++) {
		fpm_rule *ru = &m->rules[n];
		int own = 1;
		for (int k = 0; k < ru->ncond; k++)
			own = own && m->arcs[ru->conds[k].arc].from == n;
		for (int k = 0; k < ru->nres; k++)
			own = own && m->arcs[ru->res[k].arc].from == n;
		if (ru->has_trip) {
			own = own && m->arcs[ru->trip_arc].from == n && ru->nexit > 0;
			for (int k = 0; k < ru->ntcond; k++)
				own = own && m->arcs[ru->tconds[k].arc].from == n;
			for (int k = 0; k < ru->nexit; k++)
				own = own && m->arcs[ru->exit[k].arc].from == n;
			m->trip_node[n] = 1;
			m->probabilistic |= ru->nexit > 1;
		} else {
			if (n != 1 && ru->nres == 0 && m->nout[n] > 0)
				own = 0;
			m->probabilistic |= ru->nres > 1;
		}
		if (!own) {
			rd_bad(r, "rules that name their own node's arcs and have a default");
			return 0;
		}
		/* prepareFastForward */
		m->ff_self[n] = -1;
		for (int k = 0; k < m->nout[n]; k++)
			if (m->arcs[m->out[n][k]].to == n)
				m->ff_self[n] = m->out[n][k];
		int s = m->ff_self[n];
		if (s < 0)
			continue;
		int cnt = m->ni + m->nv + n, F = m->F;
		fpm_arc *a = &m->arcs[s];
		int ok = !a->resets && a->body < 0;
		double *delta;
		char *moving = calloc((size_t)F + 1, 1);
		if (!RD_ARRAY(r, m->ff_delta[n], F + 1) || !RD_ARRAY(r, m->ff_moving[n], F + 1) || !moving) {
			free(moving);
			return 0;
		}
		delta = m->ff_delta[n];
		delta[cnt] = 1;
		for (int k = 0; k < a->ndata; k++) {
			const fpm_formula *f = &a->data[k];
			if (f->kind == K_CONST)
				continue;
			if (f->kind != K_COPY && f->kind != K_SHIFT) {
				ok = 0;
				continue;
			}
			int src = f->idx[0], tgt = a->dvar[k], j = -1;
			for (int q = 0; q < a->ndata; q++)
				if (a->dvar[q] == src)
					j = q;
			if (src == tgt && f->kind == K_SHIFT)
				delta[src] = f->value;
			else if (src == tgt || src == cnt)
				delta[tgt] = delta[src];
			else if (j >= 0) {
				const fpm_formula *g = &a->data[j];
				if ((g->kind == K_SHIFT || g->kind == K_COPY) && g->idx[0] == a->dvar[j]) {
					if (g->kind == K_SHIFT)
						delta[tgt] = g->value;
				} else
					ok = 0;
			}
		}
		for (int f = 0; f < F; f++)
			if (delta[f] != 0) {
				moving[f] = 1;
				m->ff_moving[n][m->ff_nmoving[n]++] = f;
				ok = ok && delta[f] == trunc(delta[f]) && !isinf(delta[f]);
			}
		ok = ok && formula_polynomial(&a->time, moving);
		for (int t = 0; t < 2; t++) {
			int nc = t ? (ru->has_trip ? ru->ntcond : 0) : ru->ncond;
			const fpm_cond *cs = t ? ru->tconds : ru->conds;
			for (int k = 0; k < nc; k++) {
				const fpm_cond *c = &cs[k];
				if (!moving[c->a] && !(c->b >= 0 && moving[c->b]))
					continue;
				if (c->ratio && c->b >= 0 && moving[c->b])
					ok = 0;
				for (int p = 0; p < c->npieces; p++)
					ok = ok && (c->pieces[p].kind == P_INTERVAL || c->pieces[p].kind == P_EQUAL);
			}
		}
		free(moving);
		m->ff_ok[n] = ok;
	}
	return 1;
}

static int parse(fp_model *m, fpm_rd *r) {
	rd_skip(r);
	const char magic[] = "fragprof-model-c";
	if ((size_t)(r->end - r->s) < sizeof magic - 1 || memcmp(r->s, magic, sizeof magic - 1) != 0) {
		return fpm_fail(FP_MODEL_EFORMAT,
		                "%s: not a fragprof model (`fragprof model build` writes them, `fragprof model compile` their "
		                "compiled form)",
		                r->name);
	}
	r->s += sizeof magic - 1;
	int v = rd_int(r, 0, 1000000);
	if (!r->bad && v > FPM_VERSION)
		return fpm_fail(FP_MODEL_EVERSION,
		                "%s: compiled model version %d, this library reads up to %d: rebuild the program with the "
		                "fragprof that compiled the model",
		                r->name, v, FPM_VERSION);
	m->program = rd_str(r);
	m->ni = rd_int(r, 0, MAXN);
	RD_ARRAY(r, m->inputs, m->ni);
	for (int i = 0; i < m->ni && !r->bad; i++)
		m->inputs[i] = rd_str(r);
	m->nv = rd_int(r, 0, MAXN);
	RD_ARRAY(r, m->vars, m->nv);
	for (int i = 0; i < m->nv && !r->bad; i++)
		m->vars[i] = rd_str(r);
	m->nn = rd_int(r, 2, MAXN);
	RD_ARRAY(r, m->nodes, m->nn);
	for (int i = 0; i < m->nn && !r->bad; i++) {
		m->nodes[i].name = rd_str(r);
		m->nodes[i].nplaces = rd_int(r, 0, MAXN);
		if (!RD_ARRAY(r, m->nodes[i].places, m->nodes[i].nplaces))
			break;
		for (int k = 0; k < m->nodes[i].nplaces && !r->bad; k++)
			m->nodes[i].places[k] = rd_str(r);
	}
	if (r->bad)
		goto bad;
	if (strcmp(m->nodes[0].name, "START") || strcmp(m->nodes[1].name, "END")) {
		rd_bad(r, "START and END as its first nodes");
		goto bad;
	}
	m->F = m->ni + m->nv + m->nn;
	m->scale = rd_num(r);
	m->overhead = rd_num(r);
	m->has_eval = rd_int(r, 0, 1);
	m->mape = rd_num(r);
	m->na = rd_int(r, 0, MAXN);
	RD_ARRAY(r, m->arcs, m->na);
	for (int i = 0; i < m->na && !r->bad; i++) {
		fpm_arc *a = &m->arcs[i];
		a->from = rd_int(r, 0, m->nn - 1);
		a->to = rd_int(r, 0, m->nn - 1);
		a->resets = rd_int(r, 0, 1);
		a->body = rd_int(r, -1, m->na - 1);
		a->mean_ns = rd_num(r);
		rd_formula(r, &a->time, m->F);
		a->ndata = rd_int(r, 0, m->nv);
		if (!RD_ARRAY(r, a->data, a->ndata) || !RD_ARRAY(r, a->dvar, a->ndata))
			break;
		for (int k = 0; k < a->ndata && !r->bad; k++) {
			a->dvar[k] = rd_int(r, m->ni, m->ni + m->nv - 1);
			rd_formula(r, &a->data[k], m->F);
		}
	}
	if (r->bad || m->na == 0) {
		rd_bad(r, "arcs");
		goto bad;
	}
	RD_ARRAY(r, m->rules, m->nn);
	for (int i = 0; i < m->nn && !r->bad; i++) {
		fpm_rule *ru = &m->rules[i];
		rd_conds(r, &ru->ncond, &ru->conds, m->na, m->F);
		ru->has_trip = rd_int(r, 0, 1);
		if (ru->has_trip) {
			ru->trip_arc = rd_int(r, 0, m->na - 1);
			rd_formula(r, &ru->trip_count, m->F);
			rd_conds(r, &ru->ntcond, &ru->tconds, m->na, m->F);
			rd_shares(r, &ru->nexit, &ru->exit, m->na);
		}
		rd_shares(r, &ru->nres, &ru->res, m->na);
	}
	m->has_base = rd_int(r, 0, 1);
	if (m->has_base) {
		m->bconst = rd_num(r);
		m->nbterms = rd_int(r, 0, MAXN);
		RD_ARRAY(r, m->bcoef, m->nbterms);
		RD_ARRAY(r, m->bnf, m->nbterms);
		/* factors are at most 8 a term in practice; read them into flat arrays */
		int cap = 16, nf = 0;
		RD_ARRAY(r, m->bfin, cap);
		RD_ARRAY(r, m->bfi, cap);
		RD_ARRAY(r, m->bfj, cap);
		for (int t = 0; t < m->nbterms && !r->bad; t++) {
			m->bcoef[t] = rd_num(r);
			m->bnf[t] = rd_int(r, 0, 1000);
			for (int k = 0; k < m->bnf[t] && !r->bad; k++, nf++) {
				if (nf == cap) {
					cap *= 2;
					int *a = realloc(m->bfin, sizeof *a * (size_t)cap);
					if (a)
						m->bfin = a;
					int *c = realloc(m->bfj, sizeof *c * (size_t)cap);
					if (c)
						m->bfj = c;
					double *b = realloc(m->bfi, sizeof *b * (size_t)cap);
					if (b)
						m->bfi = b;
					if (!a || !b || !c) {
						rd_bad(r, "memory");
						break;
					}
				}
				m->bfin[nf] = rd_int(r, 0, m->ni - 1);
				m->bfi[nf] = rd_num(r);
				m->bfj[nf] = rd_int(r, 0, 100);
			}
		}
	}
	m->has_power = rd_int(r, 0, 1);
	if (m->has_power) {
		m->pw_in = rd_int(r, 0, m->ni - 1);
		m->pw_a = rd_num(r);
		m->pw_b = rd_num(r);
		m->pw_k = rd_num(r);
	}
	m->has_seg = rd_int(r, 0, 1);
	if (m->has_seg) {
		m->sg_in = rd_int(r, 0, m->ni - 1);
		m->sg_a = rd_num(r);
		m->sg_b = rd_num(r);
		m->sg_c = rd_num(r);
		m->sg_k = rd_num(r);
		m->sg_x0 = rd_num(r);
	}
	m->has_sel = rd_int(r, 0, 1);
	if (m->has_sel) {
		m->chosen = rd_str(r);
		m->level = rd_num(r);
		m->q = rd_num(r);
		m->widen = rd_num(r);
		m->nnoise = rd_int(r, 0, MAXN);
		RD_ARRAY(r, m->noise_n, m->nnoise);
		RD_ARRAY(r, m->noise_in, m->nnoise);
		RD_ARRAY(r, m->noise_q, m->nnoise);
		for (int i = 0; i < m->nnoise && !r->bad; i++) {
			m->noise_n[i] = rd_int(r, 0, MAXN);
			if (!RD_ARRAY(r, m->noise_in[i], m->noise_n[i]))
				break;
			for (int k = 0; k < m->noise_n[i]; k++)
				m->noise_in[i][k] = rd_num(r);
			m->noise_q[i] = rd_num(r);
		}
	}
	RD_ARRAY(r, m->has_range, m->ni);
	RD_ARRAY(r, m->rmin, m->ni);
	RD_ARRAY(r, m->rmax, m->ni);
	for (int i = 0; i < m->ni && !r->bad; i++) {
		m->has_range[i] = rd_int(r, 0, 1);
		m->rmin[i] = rd_num(r);
		m->rmax[i] = rd_num(r);
	}
	m->has_mem = rd_int(r, 0, 1);
	if (m->has_mem) {
		m->mem_in = rd_int(r, 0, m->ni - 1);
		m->mem_a = rd_num(r);
		m->mem_b = rd_num(r);
		m->mem_k = rd_num(r);
		m->mem_min = rd_num(r);
		m->mem_max = rd_num(r);
		m->ncache = rd_int(r, 0, 64);
		RD_ARRAY(r, m->caches, m->ncache);
		for (int i = 0; i < m->ncache && !r->bad; i++)
			m->caches[i] = rd_num(r);
	}
	rd_skip(r);
	if (!r->bad && (r->end - r->s < 3 || memcmp(r->s, "end", 3) != 0))
		rd_bad(r, "its end marker (the file is truncated)");
	if (r->bad || !derive(m, r))
		goto bad;
	return FP_MODEL_OK;
bad:
	if (!strcmp(r->what, "memory"))
		return fpm_fail(FP_MODEL_ENOMEM, "%s: out of memory while loading", r->name);
	return fpm_fail(FP_MODEL_EFORMAT,
	                "%s: damaged compiled model (expected %s at byte %ld): compile it again with `fragprof model "
	                "compile`",
	                r->name, r->what[0] ? r->what : "more", (long)(r->s - r->start));
}

static int load_json(const char *text, size_t len, const char *name, fp_model **out);

int fp_model_load_text(const char *text, unsigned long len, const char *name, fp_model **out) {
	if (!out)
		return fpm_fail(FP_MODEL_EARG, "fp_model_load_text: out is NULL");
	*out = 0;
	if (!text)
		return fpm_fail(FP_MODEL_EARG, "fp_model_load_text: text is NULL");
	if (!name)
		name = "model";
	const char *first = text;
	while (first < text + len && (*first == ' ' || *first == '\n' || *first == '\t' || *first == '\r'))
		first++;
	if (first < text + len && *first == '{') /* the model file itself */
		return load_json(text, len, name, out);
	fp_model *m = calloc(1, sizeof *m);
	if (!m || !(m->name = strdup(name))) {
		free(m);
		return fpm_fail(FP_MODEL_ENOMEM, "%s: out of memory while loading", name);
	}
	fpm_rd r = {text, text + len, m->name, text, 0, {0}};
	int rc = parse(m, &r);
	if (rc != FP_MODEL_OK) {
		fp_model_free(m);
		return rc;
	}
	*out = m;
	return FP_MODEL_OK;
}

int fp_model_load(const char *path, fp_model **out) {
	if (!out)
		return fpm_fail(FP_MODEL_EARG, "fp_model_load: out is NULL");
	*out = 0;
	if (!path)
		return fpm_fail(FP_MODEL_EARG, "fp_model_load: path is NULL");
	FILE *f = fopen(path, "rb");
	if (!f)
		return fpm_fail(FP_MODEL_EIO, "%s: %s (`fragprof model compile MODEL -o %s` writes it)", path,
		                strerror(errno), path);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			return fpm_fail(FP_MODEL_ENOMEM, "%s: out of memory while reading", path);
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *b = realloc(buf, cap *= 2);
		if (!b)
			free(buf);
		buf = b;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return fpm_fail(FP_MODEL_EIO, "%s: read error", path);
	}
	int rc = fp_model_load_text(buf, n, path, out);
	free(buf);
	return rc;
}

/* ---- evaluation ---------------------------------------------------------------- */

/* eval is regress.Formula.Eval. */
static double eval(const fpm_formula *f, const double *st) {
	switch (f->kind) {
	case K_CONST:
		return f->value;
	case K_COPY:
		return st[f->idx[0]];
	case K_SHIFT:
		return st[f->idx[0]] + f->value;
	case K_POWER: {
		double x = st[f->idx[0]];
		if (x <= 0)
			return f->value;
		return f->value + f->coef0 * pow(x, f->exp);
	}
	case K_POLY: {
		double s = 0;
		for (int k = 0; k < f->nterms; k++) {
			double p = f->coefs[k];
			for (int v = 0; v < f->nv; v++) {
				double x = st[f->idx[v]];
				for (int e = f->terms[k * f->nv + v]; e > 0; e--)
					p *= x;
			}
			s += p;
		}
		return s;
	}
	case K_GMDH: {
		double zbuf[64], a0[256], a1[256];
		double *z = f->nv <= 64 ? zbuf : malloc(sizeof *z * (size_t)f->nv);
		double *cur = f->maxlayer <= 256 ? a0 : malloc(sizeof *cur * (size_t)f->maxlayer);
		double *prev = f->maxlayer <= 256 ? a1 : malloc(sizeof *prev * (size_t)f->maxlayer);
		double y = NAN;
		if (z && cur && prev) {
			for (int i = 0; i < f->nv; i++)
				z[i] = (st[f->idx[i]] - f->mu[i]) / f->sd[i];
			int np = 0;
			for (int l = 0; l < f->nlayers; l++) {
				for (int i = 0; i < f->lsize[l]; i++) {
					const fpm_neuron *nr = &f->layers[l][i];
					double a = nr->in0 < np ? prev[nr->in0] : z[nr->in0 - np];
					double b = nr->in1 < np ? prev[nr->in1] : z[nr->in1 - np];
					const double *c = nr->c;
					cur[i] = c[0] + c[1] * a + c[2] * b + c[3] * a * b + c[4] * a * a + c[5] * b * b;
				}
				double *t = prev;
				prev = cur;
				cur = t;
				np = f->lsize[l];
			}
			y = f->muy + f->sdy * prev[f->out];
		}
		if (z != zbuf)
			free(z);
		if (f->maxlayer > 256) {
			free(cur);
			free(prev);
		}
		return y;
	}
	}
	return NAN;
}

static double expr_eval(const fpm_cond *c, const double *st) {
	if (c->b < 0)
		return st[c->a];
	if (c->ratio)
		return st[c->a] / st[c->b];
	return st[c->a] - st[c->b];
}

/* piece_match is graph.Piece.match. */
static int piece_match(const fpm_piece *p, double x) {
	switch (p->kind) {
	case P_INTERVAL:
		return (!p->has_lo || x >= p->lo) && (!p->has_hi || x <= p->hi);
	case P_EQUAL:
		return x == p->value;
	case P_ARITH:
		if (x != trunc(x))
			return 0;
		return fmod(fmod(x - p->value, p->step) + p->step, p->step) == 0;
	case P_GEOM: {
		if (x == 0 || (x > 0) != (p->value > 0))
			return 0;
		double k = log(x / p->value) / log(p->step);
		return fabs(k - round(k)) < 1e-9;
	}
	}
	return 0;
}

static int cond_match(const fpm_cond *c, const double *st) {
	double x = expr_eval(c, st);
	for (int i = 0; i < c->npieces; i++)
		if (piece_match(&c->pieces[i], x))
			return 1;
	return 0;
}

static int pick_share(const fpm_share *ss, int n, fpm_pcg *rng) {
	if (n == 1)
		return ss[0].arc;
	double q = fpm_float64(rng), acc = 0;
	for (int i = 0; i < n; i++) {
		acc += ss[i].p;
		if (q < acc)
			return ss[i].arc;
	}
	return ss[n - 1].arc;
}

/* decide_det is Model.decideDet: the decision when no random choice is involved. */
static int decide_det(const fp_model *m, int n, const double *st, const double *trip, int *arc) {
	const fpm_rule *r = &m->rules[n];
	for (int k = 0; k < r->ncond; k++)
		if (cond_match(&r->conds[k], st)) {
			*arc = r->conds[k].arc;
			return 1;
		}
	if (r->has_trip) {
		if (st[m->ni + m->nv + n] < trip[n]) {
			*arc = r->trip_arc;
			return 1;
		}
		for (int k = 0; k < r->ntcond; k++)
			if (cond_match(&r->tconds[k], st)) {
				*arc = r->tconds[k].arc;
				return 1;
			}
		if (r->nexit == 1) {
			*arc = r->exit[0].arc;
			return 1;
		}
		return 0;
	}
	if (r->nres == 1) {
		*arc = r->res[0].arc;
		return 1;
	}
	return 0;
}

static int decide(const fp_model *m, int n, const double *st, const double *trip, fpm_pcg *rng) {
	int a;
	if (decide_det(m, n, st, trip, &a))
		return a;
	const fpm_rule *r = &m->rules[n];
	if (r->has_trip)
		return pick_share(r->exit, r->nexit, rng);
	return pick_share(r->res, r->nres, rng);
}

/* pick_exit is Model.pickExit: the residual's arcs but the self arc, renormalised. */
static int pick_exit(const fp_model *m, int n, fpm_pcg *rng) {
	const fpm_rule *r = &m->rules[n];
	int self = m->ff_self[n], k = 0;
	fpm_share buf[16], *ss = r->nres <= 16 ? buf : malloc(sizeof *ss * (size_t)r->nres);
	if (!ss)
		return r->res[0].arc;
	double tot = 0;
	for (int i = 0; i < r->nres; i++)
		if (r->res[i].arc != self) {
			ss[k++] = r->res[i];
			tot += r->res[i].p;
		}
	for (int i = 0; i < k; i++)
		ss[i].p /= tot;
	int a = k ? pick_share(ss, k, rng) : r->res[0].arc;
	if (ss != buf)
		free(ss);
	return a;
}

/* poly_mul_linear sets p (of *len coefficients) to p·(a + b·j). */
static void poly_mul_linear(double *p, int *len, double a, double b) {
	p[*len] = 0;
	for (int m = *len; m >= 0; m--)
		p[m] = p[m] * a + (m > 0 ? p[m - 1] * b : 0);
	(*len)++;
}

/* formula_along is regress.Formula.Along: the formula at st + j·delta, j = 0 …
 * n−1, as a polynomial in j (c[0 .. *len), the constant first); 0 when none. */
static int formula_along(const fpm_formula *f, const double *st, const double *delta, double n, double *c,
                         int *len) {
	int moves = 0;
	for (int i = 0; i < f->nv; i++)
		moves |= delta[f->idx[i]] != 0;
	*len = 1;
	if (!moves)
		c[0] = eval(f, st);
	else
		switch (f->kind) {
		case K_CONST:
			c[0] = f->value;
			break;
		case K_COPY:
			c[0] = st[f->idx[0]], c[1] = delta[f->idx[0]], *len = 2;
			break;
		case K_SHIFT:
			c[0] = st[f->idx[0]] + f->value, c[1] = delta[f->idx[0]], *len = 2;
			break;
		case K_POWER: {
			double x0 = st[f->idx[0]], d = delta[f->idx[0]], last = x0 + (n - 1) * d;
			if (x0 <= 0 && last <= 0)
				c[0] = f->value;
			else if (x0 > 0 && last > 0 && f->exp == trunc(f->exp) && f->exp >= 0 && f->exp <= FPM_ALONG_DEGREE) {
				c[0] = f->coef0;
				for (int e = (int)f->exp; e > 0; e--)
					poly_mul_linear(c, len, x0, d);
				c[0] += f->value;
			} else
				return 0;
			break;
		}
		case K_POLY:
			c[0] = 0;
			for (int k = 0; k < f->nterms; k++) {
				double p[FPM_ALONG_DEGREE + 2] = {f->coefs[k]};
				int pl = 1;
				for (int v = 0; v < f->nv; v++) {
					double x0 = st[f->idx[v]], d = delta[f->idx[v]];
					for (int e = f->terms[k * f->nv + v]; e > 0; e--) {
						if (d == 0) {
							for (int q = 0; q < pl; q++)
								p[q] *= x0;
							continue;
						}
						if (pl > FPM_ALONG_DEGREE)
							return 0;
						poly_mul_linear(p, &pl, x0, d);
					}
				}
				while (*len < pl)
					c[(*len)++] = 0;
				for (int q = 0; q < pl; q++)
					c[q] += p[q];
			}
			break;
		default:
			return 0;
		}
	for (int q = 0; q < *len; q++)
		if (isnan(c[q]) || isinf(c[q]))
			return 0;
	return 1;
}

static double horner(const double *c, int len, double x) {
	double y = 0;
	for (int m = len - 1; m >= 0; m--)
		y = y * x + c[m];
	return y;
}

/* poly_sum is polySum: Σ P(j) over the whole numbers j in [p, q). */
static double poly_sum(const double *c, int len, double p, double q) {
	double s[FPM_ALONG_DEGREE + 1];
	memcpy(s, c, sizeof *s * (size_t)len);
	for (int k = 0; k < len; k++)
		for (int m = len - 2; m >= k; m--)
			s[m] += p * s[m + 1];
	double n = q - p, t = n * (n - 1) / 2;
	double pw[4] = {n, t, (n - 1) * n * (2 * n - 1) / 6, t * t}, sum = 0;
	for (int m = 0; m < len; m++)
		sum += s[m] * pw[m];
	return sum;
}

/* monotone_clamped_sum is monotoneClampedSum. */
static double monotone_clamped_sum(const double *c, int len, double p, double q) {
	int first = horner(c, len, p) >= 0, last = horner(c, len, q - 1) >= 0;
	if (first && last)
		return poly_sum(c, len, p, q);
	if (!first && !last)
		return 0;
	double a = p, b = q - 1;
	while (b - a > 1) {
		double mid = floor(a + (b - a) / 2);
		if ((horner(c, len, mid) >= 0) == first)
			a = mid;
		else
			b = mid;
	}
	return first ? poly_sum(c, len, p, b) : poly_sum(c, len, b, q);
}

/* clamped_sum is clampedSum: Σ max(0, P(j)) over the whole numbers j in [p, q). */
static double clamped_sum(const double *c, int len, double p, double q) {
	while (len > 1 && c[len - 1] == 0)
		len--;
	if (q <= p)
		return 0;
	if (len == 1)
		return fpm_max(0, c[0]) * (q - p);
	double turns[3], d[3] = {0, 0, 0};
	int nt = 0;
	for (int m = 1; m < len; m++)
		d[m - 1] = m * c[m];
	if (d[2] != 0) {
		double disc = d[1] * d[1] - 4 * d[2] * d[0];
		if (disc >= 0) {
			double sq = sqrt(disc), qq = -0.5 * (d[1] + copysign(sq, d[1]));
			if (qq != 0)
				turns[nt++] = qq / d[2], turns[nt++] = d[0] / qq;
			else
				turns[nt++] = 0;
		}
	} else if (d[1] != 0)
		turns[nt++] = -d[0] / d[1];
	if (nt == 2 && turns[1] < turns[0]) {
		double t = turns[0];
		turns[0] = turns[1], turns[1] = t;
	}
	turns[nt++] = q;
	double sum = 0, lo = p;
	for (int i = 0; i < nt; i++) {
		double r = turns[i], hi = q;
		if (r < q)
			hi = floor(r) + 1;
		if (!(hi > lo))
			continue;
		sum += monotone_clamped_sum(c, len, lo, hi);
		lo = hi;
	}
	return sum;
}

static const char *feature_name(const fp_model *m, int f, char *buf, size_t cap);

/* skip is Model.skip: how many more times node n's self arc is taken in a row,
 * and the arc's time along them as a polynomial in the iteration. */
static int skip(const fp_model *m, int n, const double *st, const double *trip, fpm_pcg *rng, double *k,
                int *force, double *poly, int *plen) {
	int ci = m->ni + m->nv + n, self = m->ff_self[n];
	const double *delta = m->ff_delta[n];
	double next = INFINITY;
	const fpm_rule *r = &m->rules[n];
	*force = 0;
	*k = 0;
	for (int i = 0; i < m->ff_nmoving[n]; i++) {
		double x = st[m->ff_moving[n][i]];
		if (x != trunc(x) || fabs(x) > 9007199254740992.0)
			return FP_MODEL_OK;
	}
#define CONSIDER(j)                                                                                                    \
	do {                                                                                                               \
		double j_ = (j);                                                                                               \
		if (j_ > 0 && j_ < next)                                                                                       \
			next = j_;                                                                                                 \
	} while (0)
	for (int t = 0; t < 2; t++) {
		int nc = t ? (r->has_trip ? r->ntcond : 0) : r->ncond;
		const fpm_cond *cs = t ? r->tconds : r->conds;
		for (int i = 0; i < nc; i++) {
			const fpm_cond *cd = &cs[i];
			double e0, slope;
			if (cd->b < 0)
				e0 = st[cd->a], slope = delta[cd->a];
			else if (cd->ratio)
				e0 = st[cd->a] / st[cd->b], slope = delta[cd->a] / st[cd->b];
			else
				e0 = st[cd->a] - st[cd->b], slope = delta[cd->a] - delta[cd->b];
			if (slope == 0)
				continue;
			for (int p = 0; p < cd->npieces; p++) {
				const fpm_piece *pc = &cd->pieces[p];
				double bounds[2];
				int nb = 0;
				if (pc->kind == P_INTERVAL) {
					if (pc->has_lo)
						bounds[nb++] = pc->lo;
					if (pc->has_hi)
						bounds[nb++] = pc->hi;
				} else if (pc->kind == P_EQUAL)
					bounds[nb++] = pc->value;
				for (int j = 0; j < nb; j++) {
					double x = (bounds[j] - e0) / slope;
					CONSIDER(floor(x));
					CONSIDER(floor(x) + 1);
					CONSIDER(ceil(x));
				}
			}
		}
	}
	if (r->has_trip)
		CONSIDER(trip[n] - st[ci]);
#undef CONSIDER
	int arc;
	if (decide_det(m, n, st, trip, &arc)) {
		if (arc != self)
			return FP_MODEL_OK;
		if (isinf(next))
			return fpm_fail(FP_MODEL_ENOEND, "the model did not reach END: node %s loops on itself for ever (no rule "
			                                 "ever leaves it)",
			                m->nodes[n].name);
		*k = next;
	} else {
		double p = 0;
		for (int i = 0; i < r->nres; i++)
			if (r->res[i].arc == self)
				p = r->res[i].p;
		if (p == 0)
			return FP_MODEL_OK;
		double g = floor(log(1 - fpm_float64(rng)) / log(p));
		*k = next;
		if (g < next)
			*k = g, *force = 1;
	}
	if (!(*k > 0)) {
		*k = 0;
		return FP_MODEL_OK;
	}
	for (int i = 0; i < m->ff_nmoving[n]; i++) {
		int f = m->ff_moving[n][i];
		if (fabs(st[f]) + *k * fabs(delta[f]) > 9007199254740992.0) {
			char name[160];
			*force = 0;
			return fpm_fail(FP_MODEL_ENOEND,
			                "the model did not reach END: node %s's loop would run %.4g more times, counting %s beyond "
			                "2^53, where numbers no longer count one by one",
			                m->nodes[n].name, *k, feature_name(m, f, name, sizeof name));
		}
	}
	if (!formula_along(&m->arcs[self].time, st, delta, *k, poly, plen)) {
		*k = 0, *force = 0;
		return FP_MODEL_OK;
	}
	return FP_MODEL_OK;
}

/* One interpreted run (Model.run), and where a region starts and ends. */
typedef struct {
	double time, *vars, *visits, *arcN, *arcTime;
	long long steps;
	/* region: from node rf (arrival) to node rt (next arrival); -1: not asked */
	int rf, rt, in_region, region_done;
	double r_start, r_time, *r_arcN;
} fpm_run;

static void region_arrive(fpm_run *res, int to, double t_after_first, double t_now, int ai, double dt, double k) {
	/* t_after_first: the time at the first arrival of this step; t_now: after k more
	 * self iterations of dt each. */
	if (res->rf < 0 || res->region_done)
		return;
	if (!res->in_region) {
		if (to == res->rf) {
			res->in_region = 1;
			res->r_start = t_after_first;
			if (k > 0 && res->rt == to) { /* the next arrival is the first skipped one */
				res->r_time = dt;
				res->r_arcN[ai] += 1;
				res->region_done = 1;
			} else if (k > 0)
				res->r_arcN[ai] += k;
		}
		return;
	}
	res->r_arcN[ai] += 1;
	if (to == res->rt) {
		res->r_time = t_after_first - res->r_start;
		res->region_done = 1;
		return;
	}
	res->r_arcN[ai] += k;
	(void)t_now;
}

static int run_once(const fp_model *m, const double *in, fpm_pcg *rng, fpm_run *res) {
	int F = m->F, ni = m->ni, nv = m->nv;
	double *st = calloc((size_t)F + (size_t)m->nn + (size_t)m->nv, sizeof *st);
	if (!st)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	double *trip = st + F, *nvals = trip + m->nn;
	memcpy(st, in, sizeof *st * (size_t)ni);
	int node = 0, force = 0, rc = FP_MODEL_OK;
	st[ni + nv + 0] = 1;
	res->visits[0] = 1;
	if (res->rf == 0) { /* START is "arrived at" before the first transition */
		res->in_region = 1;
		res->r_start = 0;
	}
	while (node != 1) {
		if (res->steps >= FPM_MAX_STEPS) {
			rc = fpm_fail(FP_MODEL_ENOEND,
			              "the model did not reach END after %lld steps (at node %s): a loop whose exit the rules "
			              "never choose",
			              res->steps, m->nodes[node].name);
			break;
		}
		res->steps++;
		if (m->nout[node] == 0) {
			rc = fpm_fail(FP_MODEL_ENOEND, "the model did not reach END: node %s has no way out", m->nodes[node].name);
			break;
		}
		int ai;
		if (force)
			ai = pick_exit(m, node, rng), force = 0;
		else
			ai = decide(m, node, st, trip, rng);
		const fpm_arc *a = &m->arcs[ai];
		double t = eval(&a->time, st);
		if (a->body >= 0)
			t += fpm_max(0, eval(&m->arcs[a->body].time, st));
		double dt = fpm_max(0, t) * m->scale;
		if (m->fit)
			dt *= arc_fit(m, ai, 0, 0);
		for (int k = 0; k < a->ndata; k++)
			nvals[k] = eval(&a->data[k], st);
		res->time += dt;
		res->arcN[ai]++;
		res->arcTime[ai] += dt;
		for (int k = 0; k < a->ndata; k++)
			st[a->dvar[k]] = nvals[k];
		int to = a->to, ci = ni + nv + to;
		if (a->resets)
			st[ci] = 0;
		st[ci]++;
		res->visits[to]++;
		double t_first = res->time;
		if (m->trip_node[to] && to != node) {
			double T = eval(&m->rules[to].trip_count, st);
			if (isnan(T))
				T = 1;
			trip[to] = fpm_max(1, round(T));
		}
		double k = 0, dt0 = dt;
		if (to == node && m->ff_ok[node]) {
			int f, plen = 0;
			double poly[FPM_ALONG_DEGREE + 1];
			if ((rc = skip(m, node, st, trip, rng, &k, &f, poly, &plen)) != FP_MODEL_OK)
				break;
			force = f;
			if (k > 0) {
				double fac = m->scale;
				if (m->fit)
					fac *= arc_fit(m, ai, 0, 0);
				double sum = clamped_sum(poly, plen, 0, k) * m->scale;
				if (m->fit)
					sum *= arc_fit(m, ai, 0, 0);
				dt0 = fpm_max(0, horner(poly, plen, 0)) * fac;
				res->time += sum;
				res->arcN[ai] += k;
				res->arcTime[ai] += sum;
				for (int q = 0; q < m->ff_nmoving[node]; q++) {
					int f = m->ff_moving[node][q];
					st[f] += k * m->ff_delta[node][f];
				}
				res->visits[to] += k;
			}
		}
		region_arrive(res, to, t_first, res->time, ai, dt0, k);
		node = to;
	}
	for (int k = 0; k < nv; k++)
		res->vars[k] = st[ni + k];
	free(st);
	return rc;
}

static int cmp_run(const void *a, const void *b) {
	double x = (*(fpm_run *const *)a)->time, y = (*(fpm_run *const *)b)->time;
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *s, int n) {
	if (n % 2)
		return s[n / 2];
	return s[n / 2 - 1] + (s[n / 2] - s[n / 2 - 1]) / 2;
}

static double median(const double *x, int n) {
	double *s = malloc(sizeof *s * (size_t)n);
	if (!s)
		return NAN;
	memcpy(s, x, sizeof *s * (size_t)n);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	double v = median_sorted(s, n);
	free(s);
	return v;
}

/* The whole prediction: Model.predict and Model.choose. */
typedef struct {
	fp_model_run run;
	double *vars;
	double region, region_var; /* time and formula variance of the region (NaN: not passed) */
	int passed;                /* every kept run passed the region (its time may still be NaN: diverged) */
} fpm_pred;

static int find_node(const fp_model *m, const char *name) {
	for (int i = 0; i < m->nn; i++)
		if (!strcmp(m->nodes[i].name, name))
			return i;
	return -1;
}

static int points_list(const fp_model *m, char *buf, size_t cap) {
	size_t n = 0;
	buf[0] = 0;
	for (int i = 2; i < m->nn && n + 1 < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i > 2 ? ", " : "", m->nodes[i].name);
	return 0;
}

static int node_arg(const fp_model *m, const char *name, int *out, const char *role) {
	if (!name)
		return fpm_fail(FP_MODEL_EARG, "%s checkpoint is NULL", role);
	*out = find_node(m, name);
	if (*out < 0) {
		char list[512];
		points_list(m, list, sizeof list);
		return fpm_fail(FP_MODEL_ENAME, "%s: the model has no checkpoint \"%s\" (its checkpoints: %s; START, END)",
		                m->name, name, list);
	}
	return FP_MODEL_OK;
}

/* inputs_arg orders the given inputs by the model's ("n" or "$n"). */
static int inputs_arg(const fp_model *m, const fp_model_value *v, int n, double *in) {
	if (n < 0 || (n > 0 && !v))
		return fpm_fail(FP_MODEL_EARG, "inputs: a count of %d with %s", n, v ? "values" : "no values");
	for (int k = 0; k < m->ni; k++)
		in[k] = NAN;
	for (int i = 0; i < n; i++) {
		const char *name = v[i].name ? v[i].name : "";
		if (name[0] == '$')
			name++;
		int k = 0;
		while (k < m->ni && strcmp(m->inputs[k], name))
			k++;
		if (k == m->ni) {
			char list[512] = "";
			size_t len = 0;
			for (int j = 0; j < m->ni && len + 1 < sizeof list; j++)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", m->inputs[j]);
			return fpm_fail(FP_MODEL_ENAME, "%s: the model has no input \"%s\" (its inputs: %s)", m->name, name, list);
		}
		in[k] = v[i].value;
	}
	for (int k = 0; k < m->ni; k++)
		if (isnan(in[k]))
			return fpm_fail(FP_MODEL_EMISSING, "%s: input %s is not given (every input of the model is needed)",
			                m->name, m->inputs[k]);
	return FP_MODEL_OK;
}

static double baseline_eval(const fp_model *m, const double *in) {
	double s = m->bconst;
	int f = 0;
	for (int t = 0; t < m->nbterms; t++) {
		double p = m->bcoef[t];
		for (int k = 0; k < m->bnf[t]; k++, f++) {
			double x = in[m->bfin[f]], v = 1;
			if (m->bfi[f] != 0)
				v = pow(x, m->bfi[f]);
			if (m->bfj[f] > 0) {
				double l = log2(x);
				for (int j = 0; j < m->bfj[f]; j++)
					v *= l;
			}
			p *= v;
		}
		s += p;
	}
	return s;
}

/* extrap is extrapFactor. */
static double extrap(const fp_model *m, const double *in) {
	double f = 1;
	for (int k = 0; k < m->ni; k++) {
		if (!m->has_range[k])
			continue;
		double v = in[k], lo = m->rmin[k], hi = m->rmax[k];
		if (v > hi && lo > 0)
			f = fpm_max(f, v / hi);
		else if (v < lo && lo > 0 && v > 0)
			f = fpm_max(f, lo / v);
		else if ((v > hi || v < lo) && hi > lo)
			f = fpm_max(f, 1 + fpm_max(v - hi, lo - v) / (hi - lo));
		else if (v > hi || v < lo)
			f = fpm_max(f, 2);
	}
	return f;
}

/* cache_crossed is whether Model.cacheCrossing finds a crossing. */
static int cache_crossed(const fp_model *m, const double *in) {
	if (!m->has_mem)
		return 0;
	double ws = m->mem_a + m->mem_b * pow(in[m->mem_in], m->mem_k);
	if (isnan(ws) || isinf(ws) || ws <= 0)
		return 0;
	for (int i = 0; i < m->ncache; i++) {
		double size = m->caches[i];
		if (m->mem_max <= size) {
			double edge = m->mem_max <= size / 1.4 ? size / 1.4 : size;
			return ws > edge;
		}
	}
	for (int i = m->ncache - 1; i >= 0; i--)
		if (m->mem_min > m->caches[i])
			return ws <= m->caches[i];
	return 0;
}

static int predict(const fp_model *m, const double *in, int rf, int rt, fpm_pred *out) {
	int runs = m->probabilistic ? FPM_RUNS : 1, rc = FP_MODEL_OK;
	int nn = m->nn, na = m->na, nv = m->nv;
	size_t per = (size_t)nv + (size_t)nn + 3 * (size_t)na;
	fpm_run *rs = calloc((size_t)runs, sizeof *rs);
	fpm_run **kept = calloc((size_t)runs, sizeof *kept);
	double *mem = calloc((size_t)runs * per + 1, sizeof *mem);
	double *times = calloc((size_t)runs, sizeof *times);
	if (!rs || !kept || !mem || !times) {
		rc = fpm_fail(FP_MODEL_ENOMEM, "out of memory");
		goto done;
	}
	for (int r = 0; r < runs && rc == FP_MODEL_OK; r++) {
		fpm_run *x = &rs[r];
		double *p = mem + (size_t)r * per;
		x->vars = p, x->visits = p + nv, x->arcN = x->visits + nn, x->arcTime = x->arcN + na,
		x->r_arcN = x->arcTime + na;
		x->rf = rf, x->rt = rt;
		fpm_pcg rng = {FPM_SEED, (uint64_t)r};
		rc = run_once(m, in, &rng, x);
		kept[r] = x;
	}
	if (rc != FP_MODEL_OK)
		goto done;
	/* keepLargestCluster */
	int lo = 0, hi = runs;
	qsort(kept, (size_t)runs, sizeof *kept, cmp_run);
	if (runs >= 3) {
		for (int i = 0; i < runs; i++)
			times[i] = kept[i]->time;
		double med = median_sorted(times, runs);
		double *dev = calloc((size_t)runs, sizeof *dev);
		if (!dev) {
			rc = fpm_fail(FP_MODEL_ENOMEM, "out of memory");
			goto done;
		}
		for (int i = 0; i < runs; i++)
			dev[i] = fabs(times[i] - med);
		double h = 3 * 1.4826 * median(dev, runs);
		free(dev);
		if (h == 0)
			h = 1e-9 * fabs(med);
		int bl = 0, bh = 0, l = 0;
		for (int i = 1; i <= runs; i++)
			if (i == runs || times[i] - times[i - 1] > h) {
				if (i - l > bh - bl)
					bl = l, bh = i;
				l = i;
			}
		lo = bl, hi = bh;
	}
	int nk = hi - lo;
	fp_model_run *p = &out->run;
	memset(p, 0, sizeof *p);
	p->runs = runs, p->kept = nk;
	double T = 0, ev = 0;
	for (int k = 0; k < nv; k++)
		out->vars[k] = 0;
	for (int i = lo; i < hi; i++) {
		fpm_run *r = kept[i];
		times[i - lo] = r->time;
		T += r->time / nk;
		for (int k = 0; k < nv; k++)
			out->vars[k] += r->vars[k] / nk;
	}
	for (int n = 2; n < nn; n++) {
		double v = 0;
		for (int i = lo; i < hi; i++)
			v += kept[i]->visits[n] / nk;
		ev += v;
	}
	p->events = ev;
	for (int a = 0; a < na; a++)
		for (int i = lo; i < hi; i++)
			p->composition_ns += kept[i]->arcN[a] * m->arcs[a].mean_ns / nk;
	/* the graph model's own interval */
	double mean = 0, ss = 0;
	for (int i = 0; i < nk; i++)
		mean += times[i];
	mean /= nk;
	for (int i = 0; i < nk; i++)
		ss += (times[i] - mean) * (times[i] - mean);
	double sdr = sqrt(ss / nk), v = sdr * sdr;
	double rv = 0, rtime = 0;
	int passed = 1;
	for (int i = lo; i < hi; i++) {
		passed = passed && kept[i]->region_done;
		rtime += kept[i]->r_time / nk;
	}
	for (int a = 0; a < na; a++) {
		double n = 0, nr = 0;
		for (int i = lo; i < hi; i++) {
			n += kept[i]->arcN[a] / nk;
			nr += kept[i]->r_arcN[a] / nk;
		}
		double sigma, N;
		arc_fit(m, a, &sigma, &N);
		if (n != 0 && N != 0)
			v += n * sigma * sigma + (n * sigma) * (n * sigma) / N;
		if (nr != 0 && N != 0)
			rv += nr * sigma * sigma + (nr * sigma) * (nr * sigma) / N;
	}
	for (int n = 0; n < nn; n++) {
		const fpm_rule *tr = &m->rules[n];
		if (!tr->has_trip)
			continue;
		double episodes = 0, selfN = 0, selfT = 0;
		for (int i = lo; i < hi; i++) {
			for (int a = 0; a < na; a++)
				if (m->arcs[a].to == n && m->arcs[a].from != n)
					episodes += kept[i]->arcN[a] / nk;
			selfN += kept[i]->arcN[tr->trip_arc];
			selfT += kept[i]->arcTime[tr->trip_arc];
		}
		if (selfN > 0) {
			double dt = selfT / selfN, sd = tr->trip_count.cvrmse;
			v += episodes * sd * sd * dt * dt;
		}
	}
	if (m->has_eval) {
		double s = 1.2533 * m->mape * T;
		v += s * s;
	}
	double s = sqrt(v);
	p->time.value = T;
	p->time.lo = fpm_max(0, T - 2 * s);
	p->time.hi = T + 2 * s;
	p->time.level = 0.95;
	p->graph_ns = T;
	p->untraced_ns = T - ev * m->overhead;
	if (p->untraced_ns < 0.05 * T)
		p->untraced_ns = NAN;
	out->region = rf >= 0 && passed ? rtime : NAN;
	out->passed = rf >= 0 && passed;
	out->region_var = rv;
	/* choose */
	p->chosen = "graph";
	p->extrapolation = extrap(m, in);
	if (m->has_sel) {
		double y = NAN;
		int have = 1;
		if (!strcmp(m->chosen, "graph"))
			y = T;
		else if (!strcmp(m->chosen, "composition"))
			y = p->composition_ns;
		else if (!strcmp(m->chosen, "pmnf") && m->has_base)
			y = baseline_eval(m, in);
		else if (!strcmp(m->chosen, "graph+pmnf") && m->has_base)
			y = (T + baseline_eval(m, in)) / 2;
		else if (!strcmp(m->chosen, "power") && m->has_power)
			y = m->pw_a + m->pw_b * pow(in[m->pw_in], m->pw_k);
		else if (!strcmp(m->chosen, "segmented") && m->has_seg) {
			double u = pow(in[m->sg_in], m->sg_k);
			y = m->sg_a + m->sg_b * u + m->sg_c * fpm_max(0, u - pow(m->sg_x0, m->sg_k));
		} else
			have = 0;
		if (have && !isnan(y)) {
			p->chosen = m->chosen;
			p->time.value = y;
			double best = INFINITY, qn = 0;
			for (int i = 0; i < m->nnoise; i++) {
				double d = 0;
				for (int k = 0; k < m->ni && k < m->noise_n[i]; k++) {
					double a = in[k], b = m->noise_in[i][k];
					if (a > 0 && b > 0)
						a = log(a), b = log(b);
					d += (a - b) * (a - b);
				}
				if (d < best)
					best = d, qn = m->noise_q[i];
			}
			double h = hypot(m->q * (1 + m->widen * log2(fpm_max(p->extrapolation, 1))), qn);
			p->time.lo = y * exp(-h);
			p->time.hi = y * exp(h);
			if (!isnan(p->untraced_ns)) {
				p->untraced_ns = y - ev * m->overhead;
				if (p->untraced_ns < 0.05 * y)
					p->untraced_ns = NAN;
			}
		}
		p->time.level = m->level;
	}
	if (cache_crossed(m, in))
		p->time.level = 0;
done:
	free(rs);
	free(kept);
	free(mem);
	free(times);
	return rc;
}

/* ---- the API --------------------------------------------------------------------- */

#define CHECK_M(m, fn)                                                                                                 \
	if (!(m))                                                                                                          \
	return fpm_fail(FP_MODEL_EARG, fn ": the model is NULL (did fp_model_load fail?)")

const char *fp_model_program(const fp_model *m) { return m ? m->program : 0; }
int fp_model_num_inputs(const fp_model *m) { return m ? m->ni : 0; }
const char *fp_model_input(const fp_model *m, int i) { return m && i >= 0 && i < m->ni ? m->inputs[i] : 0; }
int fp_model_num_vars(const fp_model *m) { return m ? m->nv : 0; }
const char *fp_model_var(const fp_model *m, int i) { return m && i >= 0 && i < m->nv ? m->vars[i] : 0; }
int fp_model_num_points(const fp_model *m) { return m ? m->nn - 2 : 0; }
const char *fp_model_point(const fp_model *m, int i) { return m && i >= 0 && i < m->nn - 2 ? m->nodes[i + 2].name : 0; }
const char *fp_model_point_place(const fp_model *m, int i) {
	return m && i >= 0 && i < m->nn - 2 && m->nodes[i + 2].nplaces > 0 ? m->nodes[i + 2].places[0] : 0;
}

int fp_model_check_points(const fp_model *m, const char *const *names, int n) {
	CHECK_M(m, "fp_model_check_points");
	if (n < 0 || (n > 0 && !names))
		return fpm_fail(FP_MODEL_EARG, "fp_model_check_points: a count of %d with %s", n, names ? "names" : "no names");
	char missing[512] = "", extra[512] = "";
	size_t lm = 0, le = 0;
	for (int i = 2; i < m->nn; i++) {
		int found = 0;
		for (int k = 0; k < n && !found; k++)
			found = names[k] && !strcmp(names[k], m->nodes[i].name);
		if (!found && lm + 1 < sizeof missing)
			lm += (size_t)snprintf(missing + lm, sizeof missing - lm, "%s%s (%s)", lm ? ", " : "", m->nodes[i].name,
			                       m->nodes[i].nplaces ? m->nodes[i].places[0] : "no place");
	}
	for (int k = 0; k < n; k++)
		if ((!names[k] || find_node(m, names[k]) < 2) && le + 1 < sizeof extra)
			le += (size_t)snprintf(extra + le, sizeof extra - le, "%s%s", le ? ", " : "", names[k] ? names[k] : "(null)");
	if (lm || le)
		return fpm_fail(FP_MODEL_EMISMATCH,
		                "%s: the program's checkpoints are not those the model of %s was learned from%s%s%s%s: trace "
		                "the program as it is now and build and compile the model again",
		                m->name, m->program, lm ? "; not in the program: " : "", missing,
		                le ? "; not in the model: " : "", extra);
	return FP_MODEL_OK;
}

static int predict_inputs(const fp_model *m, const fp_model_value *inputs, int n, int rf, int rt, fpm_pred *p,
                          double *in) {
	int rc = inputs_arg(m, inputs, n, in);
	if (rc != FP_MODEL_OK)
		return rc;
	return predict(m, in, rf, rt, p);
}

int fp_model_predict_run(const fp_model *m, const fp_model_value *inputs, int n, fp_model_run *out, double *vars,
                         int nvars) {
	CHECK_M(m, "fp_model_predict_run");
	if (learned_ok(m) != FP_MODEL_OK)
		return FP_MODEL_EMISMATCH;
	if (!out)
		return fpm_fail(FP_MODEL_EARG, "fp_model_predict_run: out is NULL");
	if (vars && nvars < m->nv)
		return fpm_fail(FP_MODEL_EARG, "fp_model_predict_run: room for %d variables, the model has %d", nvars, m->nv);
	double *buf = calloc((size_t)m->ni + (size_t)m->nv + 1, sizeof *buf);
	if (!buf)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	fpm_pred p = {.vars = buf + m->ni};
	int rc = predict_inputs(m, inputs, n, -1, -1, &p, buf);
	if (rc == FP_MODEL_OK) {
		*out = p.run;
		if (vars)
			memcpy(vars, p.vars, sizeof *vars * (size_t)m->nv);
	}
	free(buf);
	return rc;
}

int fp_model_predict_vars(const fp_model *m, const fp_model_value *inputs, int n, double *vars, int nvars) {
	fp_model_run r;
	if (!vars)
		return fpm_fail(FP_MODEL_EARG, "fp_model_predict_vars: vars is NULL");
	return fp_model_predict_run(m, inputs, n, &r, vars, nvars);
}

static int region(const fp_model *m, const fp_model_value *inputs, int n, const char *from, const char *to,
                  fp_model_estimate *est, double *untraced_share) {
	int rf, rt, rc;
	if ((rc = node_arg(m, from, &rf, "the region's first")) || (rc = node_arg(m, to, &rt, "the region's last")))
		return rc;
	if (rt == 0 || rf == 1)
		return fpm_fail(FP_MODEL_EARG, "the region %s → %s: a region cannot end at START or start at END", from, to);
	double *buf = calloc((size_t)m->ni + (size_t)m->nv + 1, sizeof *buf);
	if (!buf)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	fpm_pred p = {.vars = buf + m->ni};
	rc = predict_inputs(m, inputs, n, rf, rt, &p, buf);
	if (rc == FP_MODEL_OK && !p.passed)
		rc = fpm_fail(FP_MODEL_ENOEND, "%s: the predicted run never passes %s and then %s", m->name, from, to);
	else if (rc == FP_MODEL_OK && (isnan(p.region) || isinf(p.region)))
		rc = fpm_fail(FP_MODEL_EDIVERGE,
		              "%s: the region %s → %s has no finite time on these inputs: a formula it reads diverges (fitted "
		              "inside the training range, it does not hold this far beyond it; `fragprof model predict` names "
		              "the value)",
		              m->name, from, to);
	if (rc == FP_MODEL_OK) {
		double s = sqrt(p.region_var);
		est->value = p.region;
		est->lo = fpm_max(0, p.region - 2 * s);
		est->hi = p.region + 2 * s;
		est->level = 0.95;
		if (untraced_share)
			*untraced_share = 1;
	}
	free(buf);
	return rc;
}

int fp_model_predict_region(const fp_model *m, const fp_model_value *inputs, int n, const char *from, const char *to,
                            fp_model_estimate *est) {
	CHECK_M(m, "fp_model_predict_region");
	if (learned_ok(m) != FP_MODEL_OK)
		return FP_MODEL_EMISMATCH;
	if (!est)
		return fpm_fail(FP_MODEL_EARG, "fp_model_predict_region: est is NULL");
	return region(m, inputs, n, from, to, est, 0);
}

/* state_arg fills a state from named values; given[i] says which were. */
static int state_arg(const fp_model *m, const fp_model_value *v, int n, double *st, char *given) {
	if (n < 0 || (n > 0 && !v))
		return fpm_fail(FP_MODEL_EARG, "state: a count of %d with %s", n, v ? "values" : "no values");
	for (int i = 0; i < n; i++) {
		const char *name = v[i].name ? v[i].name : "";
		int f = -1;
		if (name[0] == '$') {
			for (int k = 0; k < m->ni && f < 0; k++)
				if (!strcmp(m->inputs[k], name + 1))
					f = k;
		} else if (name[0] == '#') {
			int nd = find_node(m, name + 1);
			if (nd >= 0)
				f = m->ni + m->nv + nd;
		} else
			for (int k = 0; k < m->nv && f < 0; k++)
				if (!strcmp(m->vars[k], name))
					f = m->ni + k;
		if (f < 0)
			return fpm_fail(FP_MODEL_ENAME,
			                "%s: the model has no value \"%s\" (name an input \"$n\", a recorded variable \"err\" or a "
			                "checkpoint's counter \"#row\", as `fragprof model show` prints them)",
			                m->name, name);
		st[f] = v[i].value;
		given[f] = 1;
	}
	return FP_MODEL_OK;
}

static const char *feature_name(const fp_model *m, int f, char *buf, size_t cap) {
	if (f < m->ni)
		snprintf(buf, cap, "$%s", m->inputs[f]);
	else if (f < m->ni + m->nv)
		snprintf(buf, cap, "%s", m->vars[f - m->ni]);
	else
		snprintf(buf, cap, "#%s", m->nodes[f - m->ni - m->nv].name);
	return buf;
}

/* all_given says whether every value of idx[0..k) (−1: none) was given. O(k). */
static int all_given(const int *idx, int k, const char *given) {
	for (int i = 0; i < k; i++)
		if (idx[i] >= 0 && !given[idx[i]])
			return 0;
	return 1;
}

static int need(const fp_model *m, const int *idx, int k, const char *given, const char *what) {
	for (int i = 0; i < k; i++)
		if (idx[i] >= 0 && !given[idx[i]]) {
			char b[256];
			return fpm_fail(FP_MODEL_EMISSING, "%s: %s reads %s, which was not given", m->name, what,
			                feature_name(m, idx[i], b, sizeof b));
		}
	return FP_MODEL_OK;
}

int fp_model_predict_time(const fp_model *m, const char *from, const char *to, const fp_model_value *state, int n,
                          fp_model_estimate *est) {
	CHECK_M(m, "fp_model_predict_time");
	if (learned_ok(m) != FP_MODEL_OK)
		return FP_MODEL_EMISMATCH;
	if (!est)
		return fpm_fail(FP_MODEL_EARG, "fp_model_predict_time: est is NULL");
	int rf, rt, rc;
	if ((rc = node_arg(m, from, &rf, "the transition's first")) || (rc = node_arg(m, to, &rt, "the transition's last")))
		return rc;
	int ai = -1;
	for (int k = 0; k < m->nout[rf]; k++)
		if (m->arcs[m->out[rf][k]].to == rt)
			ai = m->out[rf][k];
	if (ai < 0)
		return fpm_fail(FP_MODEL_ENAME, "%s: no transition %s → %s was seen in the traces the model was learned from",
		                m->name, from, to);
	double small[64]; /* the state on the stack when it fits: no allocation in the common query */
	size_t bytes = (size_t)m->F * (sizeof(double) + 1);
	double *st = bytes <= sizeof small ? small : malloc(bytes);
	if (!st)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	memset(st, 0, bytes);
	char *given = (char *)(st + m->F);
	const fpm_arc *a = &m->arcs[ai];
	rc = state_arg(m, state, n, st, given);
	if (rc == FP_MODEL_OK && (!all_given(a->time.idx, a->time.nv, given) ||
	                          (a->body >= 0 && !all_given(m->arcs[a->body].time.idx, m->arcs[a->body].time.nv, given)))) {
		char what[600]; /* formatted only for the message: a query's cost is the formula's */
		snprintf(what, sizeof what, "the time of %s → %s", from, to);
		rc = need(m, a->time.idx, a->time.nv, given, what);
		if (rc == FP_MODEL_OK && a->body >= 0)
			rc = need(m, m->arcs[a->body].time.idx, m->arcs[a->body].time.nv, given, what);
	}
	if (rc == FP_MODEL_OK) {
		double t = eval(&a->time, st);
		if (a->body >= 0)
			t += fpm_max(0, eval(&m->arcs[a->body].time, st));
		double sigma, N, v = 0;
		double dt = fpm_max(0, t) * m->scale * arc_fit(m, ai, &sigma, &N);
		if (N > 0)
			v = sigma * sigma + sigma * sigma / N;
		est->value = dt;
		est->lo = fpm_max(0, dt - 2 * sqrt(v));
		est->hi = dt + 2 * sqrt(v);
		est->level = 0.95;
	}
	if (st != small)
		free(st);
	return rc;
}

int fp_model_predict_value(const fp_model *m, const char *from, const char *to, const char *var,
                           const fp_model_value *state, int n, double *value) {
	CHECK_M(m, "fp_model_predict_value");
	if (learned_ok(m) != FP_MODEL_OK)
		return FP_MODEL_EMISMATCH;
	if (!value || !var)
		return fpm_fail(FP_MODEL_EARG, "fp_model_predict_value: %s is NULL", value ? "var" : "value");
	int rf, rt, rc;
	if ((rc = node_arg(m, from, &rf, "the transition's first")) || (rc = node_arg(m, to, &rt, "the transition's last")))
		return rc;
	int ai = -1, vi = -1;
	for (int k = 0; k < m->nout[rf]; k++)
		if (m->arcs[m->out[rf][k]].to == rt)
			ai = m->out[rf][k];
	if (ai < 0)
		return fpm_fail(FP_MODEL_ENAME, "%s: no transition %s → %s was seen in the traces the model was learned from",
		                m->name, from, to);
	for (int k = 0; k < m->nv && vi < 0; k++)
		if (!strcmp(m->vars[k], var))
			vi = m->ni + k;
	if (vi < 0)
		return fpm_fail(FP_MODEL_ENAME, "%s: the model has no recorded variable \"%s\"", m->name, var);
	double small[64];
	size_t bytes = (size_t)m->F * (sizeof(double) + 1);
	double *st = bytes <= sizeof small ? small : malloc(bytes);
	if (!st)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	memset(st, 0, bytes);
	char *given = (char *)(st + m->F);
	const fpm_arc *a = &m->arcs[ai];
	const fpm_formula *f = 0;
	for (int k = 0; k < a->ndata; k++)
		if (a->dvar[k] == vi)
			f = &a->data[k];
	rc = state_arg(m, state, n, st, given);
	if (rc == FP_MODEL_OK) {
		char what[600];
		snprintf(what, sizeof what, "the value of %s at %s after %s → %s", var, to, from, to);
		if (f && !all_given(f->idx, f->nv, given))
			rc = need(m, f->idx, f->nv, given, what);
		else if (!f && !given[vi]) /* not recorded at to: it keeps its value */
			rc = need(m, &vi, 1, given, what);
	}
	if (rc == FP_MODEL_OK)
		*value = f ? eval(f, st) : st[vi];
	if (st != small)
		free(st);
	return rc;
}

static int conds_need(const fp_model *m, const fpm_cond *cs, int n, const char *given, const char *what) {
	for (int k = 0; k < n; k++) {
		int idx[2] = {cs[k].a, cs[k].b};
		int rc = need(m, idx, 2, given, what);
		if (rc)
			return rc;
	}
	return FP_MODEL_OK;
}

int fp_model_next_arcs(const fp_model *m, const char *at, const fp_model_value *state, int n, fp_model_arc *arcs,
                       int cap, int *count) {
	CHECK_M(m, "fp_model_next_arcs");
	if (learned_ok(m) != FP_MODEL_OK)
		return FP_MODEL_EMISMATCH;
	if (!count || cap < 0 || (cap > 0 && !arcs))
		return fpm_fail(FP_MODEL_EARG, "fp_model_next_arcs: count is NULL or arcs has no room");
	int nd, rc;
	if ((rc = node_arg(m, at, &nd, "the")))
		return rc;
	double *st = calloc((size_t)m->F, sizeof *st + 1);
	double *trip = calloc((size_t)m->nn, sizeof *trip);
	if (!st || !trip) {
		free(st);
		free(trip);
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	}
	char *given = (char *)(st + m->F);
	const fpm_rule *r = &m->rules[nd];
	char what[600];
	snprintf(what, sizeof what, "the rule of %s", at);
	rc = state_arg(m, state, n, st, given);
	/* Conditions are tried in order: only those reached need their values. */
	int arc = -1, k;
	const fpm_share *ss = r->res;
	int nss = r->nres;
	for (k = 0; rc == FP_MODEL_OK && k < r->ncond && arc < 0; k++)
		if (!(rc = conds_need(m, &r->conds[k], 1, given, what)) && cond_match(&r->conds[k], st))
			arc = r->conds[k].arc;
	if (rc == FP_MODEL_OK && arc < 0 && r->has_trip) {
		int cnt = m->ni + m->nv + nd, idx[1] = {cnt};
		if (!(rc = need(m, r->trip_count.idx, r->trip_count.nv, given, what)) && !(rc = need(m, idx, 1, given, what))) {
			double T = eval(&r->trip_count, st);
			trip[nd] = fpm_max(1, round(isnan(T) ? 1 : T));
			if (st[cnt] < trip[nd])
				arc = r->trip_arc;
			for (k = 0; rc == FP_MODEL_OK && k < r->ntcond && arc < 0; k++)
				if (!(rc = conds_need(m, &r->tconds[k], 1, given, what)) && cond_match(&r->tconds[k], st))
					arc = r->tconds[k].arc;
			ss = r->exit, nss = r->nexit;
		}
	}
	if (rc == FP_MODEL_OK) {
		if (arc >= 0) {
			*count = 1;
			if (cap >= 1)
				arcs[0].to = m->nodes[m->arcs[arc].to].name, arcs[0].p = 1;
		} else {
			*count = nss;
			for (k = 0; k < nss && k < cap; k++)
				arcs[k].to = m->nodes[m->arcs[ss[k].arc].to].name, arcs[k].p = ss[k].p;
		}
	}
	free(st);
	free(trip);
	return rc;
}

static void *fpm_nothing(void *arg) { return arg; }

static long long fpm_now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* measure_overhead is P(N) as `fragprof model advise` measures it: the median of
 * reps times starting and joining n threads that do nothing. */
static int measure_overhead(int n, double *out, double *mean) {
	enum { REPS = 31 };
	double d[REPS];
	pthread_t *th = malloc(sizeof *th * (size_t)n);
	if (!th)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	for (int r = 0; r < REPS; r++) {
		long long t0 = fpm_now();
		int k;
		for (k = 0; k < n; k++)
			if (pthread_create(&th[k], 0, fpm_nothing, 0) != 0)
				break;
		for (int j = 0; j < k; j++)
			pthread_join(th[j], 0);
		if (k < n) {
			free(th);
			return fpm_fail(FP_MODEL_ENOMEM, "measuring P(%d): pthread_create failed after %d threads", n, k);
		}
		d[r] = (double)(fpm_now() - t0);
	}
	free(th);
	double sum = 0;
	for (int r = 0; r < REPS; r++)
		sum += d[r];
	*mean = sum / REPS;
	qsort(d, REPS, sizeof d[0], cmp_double);
	*out = d[REPS / 2];
	return FP_MODEL_OK;
}

/* amdahl_decide sets d's decision for N workers (Amdahl's law: the region
 * takes t/N + P(N) on them): it pays iff P(N) < ((N − 1)/N)·t. */
static void amdahl_decide(fp_model_decision *d, int workers) {
	double frac = (double)(workers - 1) / workers, t = d->time.value, p = d->overhead_ns;
	d->bound_ns = frac * t;
	d->parallelise = p < frac * t;
	d->certain = (p < frac * d->time.lo) == (p < frac * d->time.hi);
	double den = t / workers + p;
	d->speedup = den > 0 ? t / den : 0;
}

int fp_model_amdahl(const fp_model *m, const fp_model_value *inputs, int n, const char *from, const char *to,
                    int workers, double p_n_ns, fp_model_decision *d) {
	CHECK_M(m, "fp_model_amdahl");
	if (learned_ok(m) != FP_MODEL_OK)
		return FP_MODEL_EMISMATCH;
	if (!d)
		return fpm_fail(FP_MODEL_EARG, "fp_model_amdahl: d is NULL");
	if (workers < 1 || workers > 4096)
		return fpm_fail(FP_MODEL_EARG, "fp_model_amdahl: %d workers (want 1 to 4096)", workers);
	if (!from != !to)
		return fpm_fail(FP_MODEL_EARG, "fp_model_amdahl: give both ends of the region, or neither for the whole run");
	if (isnan(p_n_ns))
		return fpm_fail(FP_MODEL_EARG, "fp_model_amdahl: P(N) is NaN");
	memset(d, 0, sizeof *d);
	int rc;
	if (from) {
		rc = region(m, inputs, n, from, to, &d->time, 0);
	} else {
		/* advise.Advise: the time without the checkpoints' own cost */
		fp_model_run r;
		rc = fp_model_predict_run(m, inputs, n, &r, 0, 0);
		if (rc == FP_MODEL_OK) {
			double cost = r.time.value - r.untraced_ns, t = r.untraced_ns;
			if (isnan(t))
				cost = 0, t = r.time.value;
			d->time.value = t;
			d->time.lo = fpm_max(0, r.time.lo - cost);
			d->time.hi = fpm_max(0, r.time.hi - cost);
			d->time.level = r.time.level;
		}
	}
	if (rc != FP_MODEL_OK)
		return rc;
	if (p_n_ns < 0) {
		double mean;
		if ((rc = measure_overhead(workers, &p_n_ns, &mean)) != FP_MODEL_OK)
			return rc;
		d->measured = 1;
	}
	d->workers = workers;
	d->overhead_ns = p_n_ns;
	amdahl_decide(d, workers);
	return FP_MODEL_OK;
}

/* The expected cost of starting and joining N threads as last measured
 * (fp_model_amdahl_now): its value (ns), its time (ns) and N. */
static _Atomic double fpm_pn_mean;
static _Atomic long long fpm_pn_at;
static _Atomic int fpm_pn_n;

int fp_model_amdahl_now(const fp_model *m, const fp_model_value *inputs, int n, const char *from, const char *to,
                        int workers, fp_model_decision *d) {
	int rc = fp_model_amdahl(m, inputs, n, from, to, workers, 0, d);
	if (rc != FP_MODEL_OK)
		return rc;
	double p = fpm_pn_mean;
	long long now = fpm_now();
	int have = fpm_pn_n == workers;
	if (!have || (now - fpm_pn_at > 1000000000LL && 31 * p <= 0.01 * d->time.value)) {
		double med;
		if ((rc = measure_overhead(workers, &med, &p)) != FP_MODEL_OK)
			return rc;
		fpm_pn_mean = p;
		fpm_pn_n = workers;
		fpm_pn_at = fpm_now();
		d->measured = 1;
	}
	d->overhead_ns = p;
	amdahl_decide(d, workers);
	return FP_MODEL_OK;
}

/* ---- choosing serial or N workers per call (fp_model_chooser) ----------------- */

/* fpm_select returns the k-th smallest of a[0..n) (0-based), reordering a:
 * Hoare's selection, O(n) expected. */
static double fpm_select(double *a, int n, int k) {
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = a[lo + (hi - lo) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				double x = a[i];
				a[i++] = a[j];
				a[j--] = x;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return a[k];
	}
	return a[k];
}

/* fpm_median returns the median of a[0..n), n ≥ 1, reordering a. */
static double fpm_median(double *a, int n) {
	double upper = fpm_select(a, n, n / 2);
	if (n % 2)
		return upper;
	double lower = a[0];
	for (int i = 1; i < n / 2; i++)
		lower = fpm_max(lower, a[i]);
	return (lower + upper) / 2;
}

/* A memoised prediction: the inputs (n − 1 of them; n = 0: empty) and t. */
#define FPM_MEMO 256
#define FPM_MEMO_IN 4
typedef struct {
	int n;
	char names[FPM_MEMO_IN][24];
	double vals[FPM_MEMO_IN];
	double t;
} fpm_memo;

/* The octaves of the model's time a chooser keeps apart: octave b holds the
 * calls with t in [2^b, 2^(b+1)) ns (t < 2 in octave 0, t ≥ 2^63 in the last). */
#define FPM_OCTAVES 64

/* An octave of a way: the ratios T/t of its last calls (a ring) and their median. */
typedef struct {
	double *r;
	int n, next;
	double median;
} fpm_octave;

/* A way: its octaves, the nearest octave that has calls for each octave
 * (−1: none yet), and the time of the calls recorded since it was last run. */
typedef struct {
	fpm_octave oct[FPM_OCTAVES];
	int near[FPM_OCTAVES];
	double since;
} fpm_way;

struct fp_model_chooser {
	const fp_model *m;
	char *from, *to;
	int workers, window;
	double explore, p0; /* ε, and P(N) as fp_model_amdahl_now last measured it */
	fpm_way way[2];     /* 0: serially, 1: on N workers */
	double *scratch;    /* window ratios */
	fpm_memo memo[FPM_MEMO];
};

/* memo_slot returns the memo entry of these inputs (the model's t is a pure
 * function of them while the model is not learning): its slot, and whether it
 * holds them; NULL when they cannot be memoised (more than FPM_MEMO_IN inputs,
 * a long name). */
static fpm_memo *memo_slot(fp_model_chooser *c, const fp_model_value *in, int n, int *hit) {
	uint64_t h = 1469598103934665603ULL;
	*hit = 0;
	if (n > FPM_MEMO_IN || (n > 0 && !in))
		return 0;
	for (int i = 0; i < n; i++) {
		if (!in[i].name || strlen(in[i].name) >= sizeof c->memo[0].names[0])
			return 0;
		h ^= fpm_u64(in[i].value); /* splitmix64's finaliser: every bit moves every bit */
		h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
		h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
		h ^= h >> 31;
	}
	fpm_memo *e = &c->memo[h % FPM_MEMO];
	if (e->n != n + 1)
		return e;
	for (int i = 0; i < n; i++)
		if (fpm_u64(e->vals[i]) != fpm_u64(in[i].value) || strcmp(e->names[i], in[i].name) != 0)
			return e;
	*hit = 1;
	return e;
}

static char *fpm_strdup_or_null(const char *s, int *fail) {
	if (!s)
		return 0;
	char *d = malloc(strlen(s) + 1);
	if (!d)
		*fail = 1;
	else
		strcpy(d, s);
	return d;
}

void fp_model_chooser_free(fp_model_chooser *c) {
	if (!c)
		return;
	for (int w = 0; w < 2; w++)
		for (int b = 0; b < FPM_OCTAVES; b++)
			free(c->way[w].oct[b].r);
	free(c->scratch);
	free(c->from);
	free(c->to);
	free(c);
}

int fp_model_chooser_new(const fp_model *m, const char *from, const char *to, int workers,
                         const fp_model_chooser_options *opt, fp_model_chooser **out) {
	CHECK_M(m, "fp_model_chooser_new");
	if (!out)
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_new: out is NULL");
	*out = 0;
	if (workers < 2 || workers > 4096)
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_new: %d workers (want 2 to 4096)", workers);
	if (!from != !to)
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_new: give both ends of the region, or neither for the whole run");
	int window = opt && opt->window ? opt->window : 8;
	double explore = opt ? opt->explore : 0.02;
	if (window < 1 || window > 256)
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_new: window %d (want 1 to 256)", window);
	if (!(explore >= 0 && explore < 1))
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_new: explore %g (want 0 ≤ ε < 1)", explore);
	fp_model_chooser *c = calloc(1, sizeof *c);
	if (!c)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	int fail = 0;
	c->m = m, c->workers = workers, c->window = window, c->explore = explore;
	c->from = fpm_strdup_or_null(from, &fail);
	c->to = fpm_strdup_or_null(to, &fail);
	for (int w = 0; w < 2; w++)
		for (int b = 0; b < FPM_OCTAVES; b++) {
			fail |= !(c->way[w].oct[b].r = malloc(sizeof(double) * (size_t)window));
			c->way[w].near[b] = -1;
		}
	c->scratch = malloc(sizeof(double) * (size_t)window);
	if (fail || !c->scratch) {
		fp_model_chooser_free(c);
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	}
	*out = c;
	return FP_MODEL_OK;
}

/* octave_of returns the octave of a time t > 0 (ns). */
static int octave_of(double t) {
	if (!(t >= 2))
		return 0;
	int e = ilogb(t);
	return e < FPM_OCTAVES ? e : FPM_OCTAVES - 1;
}

/* way_ratio returns the way's expected T/t in octave b (the median of that
 * octave's calls or, when it has none, of the nearest octave's), or NaN when
 * the way has no call. */
static double way_ratio(const fpm_way *w, int b) {
	int near = w->near[b];
	return near < 0 ? NAN : w->oct[near].median;
}

int fp_model_choose(fp_model_chooser *c, const fp_model_value *inputs, int n, fp_model_choice *ch) {
	if (!c || !ch)
		return fpm_fail(FP_MODEL_EARG, "fp_model_choose: %s is NULL", c ? "ch" : "the chooser");
	int hit = 0, learning = atomic_load_explicit(&((fp_model *)c->m)->fit, memory_order_acquire) != 0;
	fpm_memo *e = learning ? 0 : memo_slot(c, inputs, n, &hit);
	double t;
	if (hit && learned_ok(c->m) == FP_MODEL_OK) {
		t = e->t;
	} else {
		fp_model_decision d;
		int rc = fp_model_amdahl_now(c->m, inputs, n, c->from, c->to, c->workers, &d);
		if (rc != FP_MODEL_OK)
			return rc;
		t = fpm_max(d.time.value, 1);
		c->p0 = d.overhead_ns;
		if (e) {
			e->n = n + 1, e->t = t;
			for (int i = 0; i < n; i++) {
				strcpy(e->names[i], inputs[i].name);
				e->vals[i] = inputs[i].value;
			}
		}
	}
	int b = octave_of(t);
	double r_s = way_ratio(&c->way[0], b), r_p = way_ratio(&c->way[1], b);
	if (isnan(r_s))
		r_s = 1;
	if (isnan(r_p)) /* Amdahl's ideal: t/N at the serial speed, plus P(N) */
		r_p = r_s / c->workers + c->p0 / t;
	memset(ch, 0, sizeof *ch);
	ch->t_ns = t;
	ch->serial_ns = r_s * t;
	ch->parallel_ns = r_p * t;
	ch->overhead_ns = (r_p - r_s / c->workers) * t;
	ch->efficiency = r_s / (c->workers * r_p);
	int pref = ch->parallel_ns < ch->serial_ns, other = !pref;
	double other_ns = other ? ch->parallel_ns : ch->serial_ns;
	ch->preferred = pref ? c->workers : 1;
	ch->explore = c->explore > 0 && c->way[other].since * c->explore >= other_ns;
	ch->workers = (ch->explore ? other : pref) ? c->workers : 1;
	ch->start_ns = fpm_now();
	return FP_MODEL_OK;
}

int fp_model_chooser_record(fp_model_chooser *c, const fp_model_choice *ch, int workers, double elapsed_ns) {
	if (!c || !ch)
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_record: %s is NULL", c ? "ch" : "the chooser");
	if (workers != 1 && workers != c->workers)
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_record: %d workers (the chooser's ways: 1 or %d)", workers,
		                c->workers);
	if (elapsed_ns < 0)
		elapsed_ns = (double)(fpm_now() - ch->start_ns);
	if (isnan(elapsed_ns) || !(ch->t_ns > 0))
		return fpm_fail(FP_MODEL_EARG, "fp_model_chooser_record: no time (elapsed %g ns, t %g ns)", elapsed_ns, ch->t_ns);
	int w = workers != 1, b = octave_of(ch->t_ns);
	fpm_way *way = &c->way[w];
	fpm_octave *o = &way->oct[b];
	o->r[o->next] = elapsed_ns / ch->t_ns;
	o->next = (o->next + 1) % c->window;
	if (o->n < c->window)
		o->n++;
	memcpy(c->scratch, o->r, sizeof(double) * (size_t)o->n);
	o->median = fpm_median(c->scratch, o->n);
	if (o->n == 1) /* a new octave with calls: the nearest for those it is nearer to */
		for (int k = 0; k < FPM_OCTAVES; k++) {
			int old = way->near[k];
			if (old < 0 || abs(k - b) < abs(k - old) || (abs(k - b) == abs(k - old) && b > old))
				way->near[k] = b;
		}
	way->since = 0;
	c->way[!w].since += elapsed_ns;
	return FP_MODEL_OK;
}

/* ---- online learning ------------------------------------------------------------- */

#define FPM_EV_VARS 6

/* An event as the program's thread appends it: the checkpoint (by name; node
 * ≥ 0 when the caller gave it resolved), its time, the values recorded there;
 * gap says that events before it were dropped (the ring was full). */
typedef struct {
	const char *name;
	double t; /* ns, or the processor's ticks when ticks is set */
	int n, gap, ticks;
	const char *vnames[FPM_EV_VARS];
	double vals[FPM_EV_VARS];
} fpm_event;

/* The learner: a ring of events the program's thread appends to and the
 * background thread drains (one producer, one consumer), and the state the
 * background thread rebuilds from them. */
struct fpm_learner {
	fp_model *m;
	pthread_t thread, owner;
	int W, K;
	fpm_event *ring;
	uint64_t cap;
	/* Each side's index on a cache line of its own, with what only that side
	 * writes: the producer reads the consumer's tail only when its cached copy
	 * says the ring is full. */
	_Alignas(64) _Atomic uint64_t head;
	uint64_t tail_seen;
	int gap; /* producer side: the next event follows dropped ones */
	_Atomic uint64_t dropped;
	_Alignas(64) _Atomic uint64_t tail;
	_Atomic uint64_t used, cuts, unknown;
	_Atomic int stop;
	_Alignas(64) char consumer_side;
	/* consumer side */
	double *st, t_prev, *in;
	int prev_ticks;
	double tick0, mono0, ns_per_tick; /* the counter's calibration, from the learner's start */
	char *known;
	int prev, started;
	double *wf, *wy; /* per arc, W rows of (formula, observed) */
	int *wn, *side, *run;
	double *ref_c, *ref_s; /* per arc, the fit a run of outliers is judged against */
	const char *cache_name[64];
	int cache_node[64];
};

/* the runtime's checkpoint hook (trace.c), present in programs built by
 * fragprof; fpm_var is fragprof.h's struct __fragprof_var, declared again so
 * that the library needs no header but its own */
struct fpm_var {
	const char *name;
	int kind;
	union {
		long long i;
		unsigned long long u;
		double d;
	} v;
};
extern void (*__fragprof_point_hook)(const char *name, int n, const struct fpm_var *v) __attribute__((weak));
static struct fpm_learner *_Atomic fpm_hooked; /* the learner the runtime's checkpoints feed */

static double fpm_now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* fpm_ticks is the event's timestamp: the time-stamp counter where there is
 * one (a few ns to read, where a virtual machine's clock_gettime may take 150),
 * converted to ns by the learner against CLOCK_MONOTONIC; else the clock. */
static double fpm_ticks(int *is_ticks) {
#if defined(__x86_64__) || defined(__i386__)
	unsigned lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	*is_ticks = 1;
	return (double)((uint64_t)hi << 32 | lo);
#else
	*is_ticks = 0;
	return fpm_now_ns();
#endif
}

/* learn_push appends an event: the program thread's whole cost. */
static int learn_push(struct fpm_learner *L, const char *name, double t, int n, const char *const *vn,
                      const double *vals) {
	uint64_t h = atomic_load_explicit(&L->head, memory_order_relaxed);
	if (h - L->tail_seen >= L->cap && h - (L->tail_seen = atomic_load_explicit(&L->tail, memory_order_acquire)) >= L->cap) {
		atomic_fetch_add_explicit(&L->dropped, 1, memory_order_relaxed);
		L->gap = 1;
		return 0;
	}
	fpm_event *e = &L->ring[h & (L->cap - 1)];
	e->name = name;
	e->ticks = 0;
	e->t = t < 0 ? fpm_ticks(&e->ticks) : t;
	e->gap = L->gap;
	L->gap = 0;
	if (n > FPM_EV_VARS)
		n = FPM_EV_VARS;
	e->n = n;
	for (int k = 0; k < n; k++)
		e->vnames[k] = vn[k], e->vals[k] = vals[k];
	atomic_store_explicit(&L->head, h + 1, memory_order_release);
	return 1;
}

static void fpm_point_hook(const char *name, int n, const struct fpm_var *v) {
	struct fpm_learner *L = atomic_load_explicit(&fpm_hooked, memory_order_acquire);
	if (!L || !pthread_equal(pthread_self(), L->owner))
		return;
	const char *vn[FPM_EV_VARS];
	double vals[FPM_EV_VARS];
	if (n > FPM_EV_VARS)
		n = FPM_EV_VARS;
	for (int k = 0; k < n; k++) {
		vn[k] = v[k].name;
		vals[k] = v[k].kind == 1 ? (double)v[k].v.i : v[k].kind == 2 ? (double)v[k].v.u : v[k].v.d;
	}
	learn_push(L, name, -1, n, vn, vals);
}

static int learn_node(struct fpm_learner *L, const char *name) {
	unsigned h = (unsigned)(((uintptr_t)name >> 3) & 63);
	if (L->cache_name[h] == name)
		return L->cache_node[h];
	int nd = find_node(L->m, name);
	L->cache_name[h] = name, L->cache_node[h] = nd;
	return nd;
}

/* learn_state_unknown forgets the counters and variables (after a gap or a
 * transition the model does not know): rows are used again once every value
 * their formula reads has been seen anew. */
static void learn_state_unknown(struct fpm_learner *L) {
	fp_model *m = L->m;
	for (int f = m->ni; f < m->F; f++)
		L->known[f] = 0;
	L->prev = -1;
}

/* learn_refit refits arc a on its window, robustly (a time slice lost to
 * another program must not move the fit): c = median(y / f), the factor of the
 * formula's time f that the observed times y follow, and s = 1.4826 ·
 * median |y − c·f| (the MAD's estimate of a normal standard deviation);
 * published when n ≥ 3. */
static void learn_refit(struct fpm_learner *L, int a) {
	int n = L->wn[a], W = L->W;
	double *f = L->wf + (size_t)a * W, *y = L->wy + (size_t)a * W;
	if (n < 3)
		return;
	double buf[256], *r = n <= 256 ? buf : malloc(sizeof *r * (size_t)n);
	if (!r)
		return;
	for (int i = 0; i < n; i++)
		r[i] = f[i] > 0 ? y[i] / f[i] : 0;
	qsort(r, (size_t)n, sizeof *r, cmp_double);
	double c = median_sorted(r, n);
	for (int i = 0; i < n; i++)
		r[i] = fabs(y[i] - c * f[i]);
	qsort(r, (size_t)n, sizeof *r, cmp_double);
	double sd = 1.4826 * median_sorted(r, n);
	if (r != buf)
		free(r);
	struct fpm_arcfit *F = L->m->fit;
	atomic_store_explicit(&F[a].c, fpm_u64(c), memory_order_relaxed);
	atomic_store_explicit(&F[a].s, fpm_u64(sd), memory_order_relaxed);
	atomic_store_explicit(&F[a].n, (uint64_t)n, memory_order_release);
}

/* learn_row adds a transition of arc a: f the model's time for it, y the time
 * observed. A run of K rows beyond 3 standard deviations on one side of the
 * current fit is a change: the window is cut to that run. */
static void learn_row(struct fpm_learner *L, int a, double f, double y) {
	int W = L->W;
	/* A run is judged against the fit from before it: the fit that takes the
	 * run's rows in moves towards them and widens. */
	if (L->run[a] == 0)
		L->ref_c[a] = arc_fit(L->m, a, &L->ref_s[a], 0);
	double r = y - L->ref_c[a] * f, lim = 3 * L->ref_s[a] + 1e-9 * fabs(y);
	int side = r > lim ? 1 : r < -lim ? -1 : 0;
	if (side && side == L->side[a])
		L->run[a]++;
	else {
		L->run[a] = 0;
		if (side) { /* a new run, judged against the current fit */
			L->ref_c[a] = arc_fit(L->m, a, &L->ref_s[a], 0);
			r = y - L->ref_c[a] * f, lim = 3 * L->ref_s[a] + 1e-9 * fabs(y);
			side = r > lim ? 1 : r < -lim ? -1 : 0;
			L->run[a] = side ? 1 : 0;
		}
	}
	L->side[a] = side;
	double *wf = L->wf + (size_t)a * W, *wy = L->wy + (size_t)a * W;
	if (L->wn[a] < W)
		wf[L->wn[a]] = f, wy[L->wn[a]] = y, L->wn[a]++;
	else {
		memmove(wf, wf + 1, sizeof *wf * (size_t)(W - 1));
		memmove(wy, wy + 1, sizeof *wy * (size_t)(W - 1));
		wf[W - 1] = f, wy[W - 1] = y;
	}
	if (L->run[a] >= L->K) { /* keep the run only; the next is judged against its fit */
		int n = L->wn[a], k = L->run[a];
		if (n > k) {
			memmove(wf, wf + n - k, sizeof *wf * (size_t)k);
			memmove(wy, wy + n - k, sizeof *wy * (size_t)k);
			L->wn[a] = k;
			atomic_fetch_add_explicit(&L->cuts, 1, memory_order_relaxed);
		}
		L->run[a] = 0;
		L->side[a] = 0;
	}
	learn_refit(L, a);
	atomic_fetch_add_explicit(&L->used, 1, memory_order_relaxed);
}

/* learn_event replays one event on the state, as the interpreter would have
 * moved it, and adds the transition it ends to its arc's window. */
static void learn_event(struct fpm_learner *L, const fpm_event *e) {
	fp_model *m = L->m;
	int ni = m->ni, nv = m->nv;
	if (e->gap)
		learn_state_unknown(L);
	int node = learn_node(L, e->name);
	if (node < 2) {
		if (!atomic_load_explicit(&m->mismatch, memory_order_relaxed)) {
			snprintf(m->mismatch_name, sizeof m->mismatch_name, "%s", e->name);
			atomic_store_explicit(&m->mismatch, 1, memory_order_release);
		}
		atomic_fetch_add_explicit(&L->unknown, 1, memory_order_relaxed);
		learn_state_unknown(L);
		return;
	}
	int from = L->started ? L->prev : 0, ai = -1;
	if (from >= 0)
		for (int k = 0; k < m->nout[from]; k++)
			if (m->arcs[m->out[from][k]].to == node)
				ai = m->out[from][k];
	if (ai >= 0 && from != 0) {
		const fpm_arc *a = &m->arcs[ai];
		int ok = 1;
		for (int k = 0; k < a->time.nv; k++)
			ok = ok && L->known[a->time.idx[k]];
		if (a->body >= 0)
			for (int k = 0; k < m->arcs[a->body].time.nv; k++)
				ok = ok && L->known[m->arcs[a->body].time.idx[k]];
		if (ok) {
			double t = eval(&a->time, L->st);
			if (a->body >= 0)
				t += fpm_max(0, eval(&m->arcs[a->body].time, L->st));
			double f = fpm_max(0, t) * m->scale;
			double y = e->t - L->t_prev;
			if (e->ticks && L->prev_ticks)
				y *= L->ns_per_tick;
			if (f > 0 && (e->ticks == L->prev_ticks))
				learn_row(L, ai, f, y);
		}
	}
	if (ai >= 0) { /* the counters, as the interpreter moves them */
		int ci = ni + nv + node;
		if (m->arcs[ai].resets)
			L->st[ci] = 0, L->known[ci] = 1;
		L->st[ci]++;
	} else
		learn_state_unknown(L);
	for (int k = 0; k < e->n; k++)
		for (int v = 0; v < nv; v++)
			if (!strcmp(m->vars[v], e->vnames[k]))
				L->st[ni + v] = e->vals[k], L->known[ni + v] = 1;
	L->started = 1;
	L->prev = node;
	L->t_prev = e->t;
	L->prev_ticks = e->ticks;
}

/* learn_calibrate sets ns_per_tick from the counter's and the clock's advance
 * since the learner started; 0 until 2 ms have passed. */
static void learn_calibrate(struct fpm_learner *L) {
	int is;
	double mono = fpm_now_ns(), tick = fpm_ticks(&is);
	if (!is)
		L->ns_per_tick = 1;
	else if (mono - L->mono0 > 2e6 && tick > L->tick0)
		L->ns_per_tick = (mono - L->mono0) / (tick - L->tick0);
}

static void *learn_main(void *arg) {
	struct fpm_learner *L = arg;
	while (!atomic_load_explicit(&L->stop, memory_order_acquire)) {
		uint64_t t = atomic_load_explicit(&L->tail, memory_order_relaxed);
		uint64_t h = atomic_load_explicit(&L->head, memory_order_acquire);
		learn_calibrate(L);
		if (t == h || L->ns_per_tick == 0) {
			struct timespec d = {0, 200000}; /* 0.2 ms */
			nanosleep(&d, 0);
			continue;
		}
		for (; t != h; t++)
			learn_event(L, &L->ring[t & (L->cap - 1)]);
		atomic_store_explicit(&L->tail, t, memory_order_release);
	}
	return 0;
}

/* learner_release frees a learner's memory (its thread stopped or never started). */
static void learner_release(struct fpm_learner *L) {
	free(L->ring);
	free(L->st);
	free(L->known);
	free(L->wf);
	free(L->wy);
	free(L->wn);
	free(L->side);
	free(L->run);
	free(L->ref_c);
	free(L->ref_s);
	free(L);
}

static void learner_free(fp_model *m) {
	struct fpm_learner *L = m->learner;
	if (!L)
		return;
	struct fpm_learner *expect = L;
	if (atomic_compare_exchange_strong(&fpm_hooked, &expect, (struct fpm_learner *)0) && &__fragprof_point_hook)
		__atomic_store_n(&__fragprof_point_hook, (void (*)(const char *, int, const struct fpm_var *))0, __ATOMIC_RELEASE);
	atomic_store_explicit(&L->stop, 1, memory_order_release);
	pthread_join(L->thread, 0);
	learner_release(L);
	m->learner = 0;
}

int fp_model_learn_start(fp_model *m, const fp_model_value *inputs, int n, const fp_model_learn_options *opt) {
	CHECK_M(m, "fp_model_learn_start");
	if (m->learner)
		return fpm_fail(FP_MODEL_EARG, "%s: the model is learning already (fp_model_learn_stop first)", m->name);
	fp_model_learn_options o = {64, 8, 1 << 14};
	if (opt) {
		if (opt->window > 0)
			o.window = opt->window;
		if (opt->change_run > 0)
			o.change_run = opt->change_run;
		if (opt->ring > 0)
			o.ring = opt->ring;
	}
	if (o.window < 3 || o.window > 1 << 20 || o.change_run < 2 || o.change_run > o.window || o.ring > 1u << 26)
		return fpm_fail(FP_MODEL_EARG,
		                "fp_model_learn_start: window %d (3 to 2^20), change run %d (2 to the window), ring %u (up to "
		                "2^26)",
		                o.window, o.change_run, o.ring);
	uint64_t cap = 64;
	while (cap < o.ring)
		cap <<= 1;
	size_t size = (sizeof(struct fpm_learner) + 63) / 64 * 64;
	struct fpm_learner *L = aligned_alloc(64, size); /* its indices on cache lines of their own */
	if (!L)
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	memset(L, 0, size);
	L->m = m, L->W = o.window, L->K = o.change_run, L->cap = cap;
	/* The ring is touched now: a first write to each of its pages, a page fault,
	 * would otherwise cost the program's thread a microsecond an event. */
	L->ring = malloc(cap * sizeof *L->ring);
	if (L->ring)
		memset(L->ring, 0, cap * sizeof *L->ring);
	L->st = calloc((size_t)m->F, sizeof *L->st);
	L->known = calloc((size_t)m->F, 1);
	L->wf = calloc((size_t)m->na * (size_t)o.window, sizeof *L->wf);
	L->wy = calloc((size_t)m->na * (size_t)o.window, sizeof *L->wy);
	L->wn = calloc((size_t)m->na, sizeof *L->wn);
	L->side = calloc((size_t)m->na, sizeof *L->side);
	L->run = calloc((size_t)m->na, sizeof *L->run);
	L->ref_c = calloc((size_t)m->na, sizeof *L->ref_c);
	L->ref_s = calloc((size_t)m->na, sizeof *L->ref_s);
	if (!m->fit) {
		struct fpm_arcfit *f = calloc((size_t)m->na, sizeof *f);
		if (f)
			atomic_store_explicit(&m->fit, f, memory_order_release);
	}
	m->learner = L;
	if (!L->ring || !L->st || !L->known || !L->wf || !L->wy || !L->wn || !L->side || !L->run || !L->ref_c || !L->ref_s || !m->fit) {
		m->learner = 0;
		learner_release(L);
		return fpm_fail(FP_MODEL_ENOMEM, "out of memory");
	}
	int rc = inputs_arg(m, inputs, n, L->st);
	/* The run's state before its first checkpoint: its inputs, no variable
	 * recorded (0), every counter 0 but START's. */
	memset(L->known, 1, (size_t)m->F);
	L->st[m->ni + m->nv + 0] = 1;
	int is;
	L->mono0 = fpm_now_ns();
	L->tick0 = fpm_ticks(&is);
	if (rc == FP_MODEL_OK && pthread_create(&L->thread, 0, learn_main, L) != 0)
		rc = fpm_fail(FP_MODEL_ENOMEM, "fp_model_learn_start: cannot start the learning thread");
	if (rc != FP_MODEL_OK) {
		m->learner = 0;
		learner_release(L);
		return rc;
	}
	L->owner = pthread_self();
	if (&__fragprof_point_hook) {
		struct fpm_learner *none = 0;
		if (atomic_compare_exchange_strong(&fpm_hooked, &none, L))
			__atomic_store_n(&__fragprof_point_hook, fpm_point_hook, __ATOMIC_RELEASE);
	}
	return FP_MODEL_OK;
}

int fp_model_observe(fp_model *m, const char *point, double t_ns, const fp_model_value *values, int n) {
	CHECK_M(m, "fp_model_observe");
	struct fpm_learner *L = m->learner;
	if (!L)
		return fpm_fail(FP_MODEL_EARG, "%s: fp_model_observe before fp_model_learn_start", m->name);
	if (!point || n < 0 || (n > 0 && !values))
		return fpm_fail(FP_MODEL_EARG, "fp_model_observe: no checkpoint name, or a count of %d with no values", n);
	const char *vn[FPM_EV_VARS];
	double vals[FPM_EV_VARS];
	if (n > FPM_EV_VARS)
		n = FPM_EV_VARS;
	for (int k = 0; k < n; k++)
		vn[k] = values[k].name ? values[k].name : "", vals[k] = values[k].value;
	learn_push(L, point, t_ns, n, vn, vals);
	return FP_MODEL_OK;
}

int fp_model_learn_sync(fp_model *m) {
	CHECK_M(m, "fp_model_learn_sync");
	struct fpm_learner *L = m->learner;
	if (!L)
		return fpm_fail(FP_MODEL_EARG, "%s: the model is not learning", m->name);
	uint64_t h = atomic_load_explicit(&L->head, memory_order_acquire);
	while (atomic_load_explicit(&L->tail, memory_order_acquire) < h) {
		struct timespec d = {0, 100000};
		nanosleep(&d, 0);
	}
	return FP_MODEL_OK;
}

int fp_model_learn_stop(fp_model *m) {
	CHECK_M(m, "fp_model_learn_stop");
	if (!m->learner)
		return fpm_fail(FP_MODEL_EARG, "%s: the model is not learning", m->name);
	learner_free(m);
	return FP_MODEL_OK;
}

int fp_model_learn_stats(const fp_model *m, fp_model_learning *s) {
	CHECK_M(m, "fp_model_learn_stats");
	if (!s)
		return fpm_fail(FP_MODEL_EARG, "fp_model_learn_stats: s is NULL");
	memset(s, 0, sizeof *s);
	struct fpm_learner *L = m->learner;
	if (!L)
		return FP_MODEL_OK;
	s->appended = atomic_load(&L->head);
	s->processed = atomic_load(&L->tail);
	s->dropped = atomic_load(&L->dropped);
	s->rows = atomic_load(&L->used);
	s->changes = atomic_load(&L->cuts);
	s->unknown = atomic_load(&L->unknown);
	return FP_MODEL_OK;
}

int fp_model_load_env(fp_model **out) {
	if (!out)
		return fpm_fail(FP_MODEL_EARG, "fp_model_load_env: out is NULL");
	*out = 0;
	const char *p = getenv("FRAGPROF_MODEL");
	if (!p || !*p)
		return fpm_fail(FP_MODEL_EIO, "FRAGPROF_MODEL is not set: set it to a model compiled by `fragprof model "
		                              "compile MODEL -o FILE.fpm`");
	return fp_model_load(p, out);
}

/* ---- reading the model's JSON ------------------------------------------------------ */

/* A JSON value (RFC 8259), as far as a model file needs it. */
typedef struct fpm_json {
	int type; /* 0 null, 1 false, 2 true, 3 number, 4 string, 5 array, 6 object */
	double num;
	char *str;
	int n;
	struct fpm_json *kids;
	char **keys;
} fpm_json;

typedef struct {
	const char *s, *end;
	int bad, depth;
} fpm_jp;

static void json_free(fpm_json *v) {
	if (!v)
		return;
	free(v->str);
	for (int i = 0; i < v->n; i++) {
		json_free(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
}

static void jp_ws(fpm_jp *p) {
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static void utf8(char *out, int *k, unsigned c) {
	if (c < 0x80)
		out[(*k)++] = (char)c;
	else if (c < 0x800)
		out[(*k)++] = (char)(0xC0 | c >> 6), out[(*k)++] = (char)(0x80 | (c & 0x3F));
	else if (c < 0x10000)
		out[(*k)++] = (char)(0xE0 | c >> 12), out[(*k)++] = (char)(0x80 | (c >> 6 & 0x3F)),
		out[(*k)++] = (char)(0x80 | (c & 0x3F));
	else
		out[(*k)++] = (char)(0xF0 | c >> 18), out[(*k)++] = (char)(0x80 | (c >> 12 & 0x3F)),
		out[(*k)++] = (char)(0x80 | (c >> 6 & 0x3F)), out[(*k)++] = (char)(0x80 | (c & 0x3F));
}

static unsigned hex4(fpm_jp *p) {
	unsigned c = 0;
	for (int i = 0; i < 4; i++, p->s++) {
		char h = p->s < p->end ? *p->s : 0;
		c = c * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : (p->bad = 1, 0));
	}
	return c;
}

static char *jp_string(fpm_jp *p, int *len) {
	p->s++; /* the opening quote */
	const char *q = p->s;
	while (q < p->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	char *out = malloc((size_t)(q - p->s) * 2 + 4);
	int k = 0;
	if (!out) {
		p->bad = 1;
		return 0;
	}
	while (p->s < p->end && *p->s != '"' && !p->bad) {
		char c = *p->s++;
		if (c != '\\') {
			out[k++] = c;
			continue;
		}
		c = p->s < p->end ? *p->s++ : 0;
		switch (c) {
		case '"': case '\\': case '/': out[k++] = c; break;
		case 'b': out[k++] = '\b'; break;
		case 'f': out[k++] = '\f'; break;
		case 'n': out[k++] = '\n'; break;
		case 'r': out[k++] = '\r'; break;
		case 't': out[k++] = '\t'; break;
		case 'u': {
			unsigned u = hex4(p);
			if (u >= 0xD800 && u < 0xDC00 && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
				p->s += 2;
				unsigned lo = hex4(p);
				u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
			}
			utf8(out, &k, u);
			break;
		}
		default: p->bad = 1;
		}
	}
	if (p->s >= p->end)
		p->bad = 1;
	p->s++;
	out[k] = 0;
	*len = k;
	return out;
}

static void jp_value(fpm_jp *p, fpm_json *v) {
	memset(v, 0, sizeof *v);
	jp_ws(p);
	if (p->bad || p->s >= p->end || ++p->depth > 64) {
		p->bad = 1;
		return;
	}
	char c = *p->s;
	if (c == '{' || c == '[') {
		v->type = c == '{' ? 6 : 5;
		p->s++;
		int cap = 0;
		jp_ws(p);
		if (p->s < p->end && *p->s == (c == '{' ? '}' : ']')) {
			p->s++;
			p->depth--;
			return;
		}
		for (;;) {
			if (v->n == cap) {
				cap = cap ? cap * 2 : 4;
				fpm_json *k = realloc(v->kids, sizeof *k * (size_t)cap);
				char **ks = c == '{' ? realloc(v->keys, sizeof *ks * (size_t)cap) : 0;
				if (!k || (c == '{' && !ks)) {
					if (k)
						v->kids = k;
					if (ks)
						v->keys = ks;
					p->bad = 1;
					return;
				}
				v->kids = k;
				if (c == '{')
					v->keys = ks;
			}
			if (c == '{') {
				jp_ws(p);
				int len;
				if (p->s >= p->end || *p->s != '"') {
					p->bad = 1;
					return;
				}
				v->keys[v->n] = jp_string(p, &len);
				jp_ws(p);
				if (p->bad || p->s >= p->end || *p->s != ':') {
					memset(&v->kids[v->n++], 0, sizeof v->kids[0]); /* its key is freed with it */
					p->bad = 1;
					return;
				}
				p->s++;
			}
			jp_value(p, &v->kids[v->n++]);
			jp_ws(p);
			if (p->bad || p->s >= p->end) {
				p->bad = 1;
				return;
			}
			if (*p->s == ',') {
				p->s++;
				continue;
			}
			if (*p->s == (c == '{' ? '}' : ']')) {
				p->s++;
				break;
			}
			p->bad = 1;
			return;
		}
	} else if (c == '"') {
		v->type = 4;
		v->str = jp_string(p, &v->n);
		v->n = 0;
	} else if (c == 't' && p->end - p->s >= 4 && !memcmp(p->s, "true", 4))
		v->type = 2, p->s += 4;
	else if (c == 'f' && p->end - p->s >= 5 && !memcmp(p->s, "false", 5))
		v->type = 1, p->s += 5;
	else if (c == 'n' && p->end - p->s >= 4 && !memcmp(p->s, "null", 4))
		v->type = 0, p->s += 4;
	else {
		char buf[64];
		size_t n = 0;
		while (p->s < p->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", *p->s))
			buf[n++] = *p->s++;
		buf[n] = 0;
		char *e;
		v->type = 3;
		v->num = strtod(buf, &e);
		if (!n || *e)
			p->bad = 1;
	}
	p->depth--;
}

static const fpm_json *jget(const fpm_json *o, const char *key) {
	if (!o || o->type != 6)
		return 0;
	for (int i = 0; i < o->n; i++)
		if (o->keys[i] && !strcmp(o->keys[i], key))
			return &o->kids[i];
	return 0;
}

static double jnum(const fpm_json *o, const char *key) {
	const fpm_json *v = jget(o, key);
	return v && v->type == 3 ? v->num : 0;
}

static const char *jstr(const fpm_json *o, const char *key) {
	const fpm_json *v = jget(o, key);
	return v && v->type == 4 ? v->str : "";
}

static int jlen(const fpm_json *v) { return v && (v->type == 5 || v->type == 6) ? v->n : 0; }

/* The runtime form, written as capi.go's WriteRuntime writes it. */
typedef struct {
	char *b;
	size_t n, cap;
	int bad;
	const char **inputs, **vars, **nodes;
	int ni, nv, nn;
} fpm_tw;

static void tw_put(fpm_tw *w, const char *s, size_t n) {
	if (w->n + n + 2 > w->cap) {
		size_t cap = (w->cap + n + 2) * 2;
		char *b = realloc(w->b, cap);
		if (!b) {
			w->bad = 1;
			return;
		}
		w->b = b, w->cap = cap;
	}
	memcpy(w->b + w->n, s, n);
	w->n += n;
	w->b[w->n++] = ' ';
}

static void tw_num(fpm_tw *w, double x) {
	char buf[40];
	tw_put(w, buf, (size_t)snprintf(buf, sizeof buf, "%.17g", x));
}

static void tw_str(fpm_tw *w, const char *s) {
	char buf[24];
	size_t n = strlen(s);
	int k = snprintf(buf, sizeof buf, "%zu:", n);
	tw_put(w, buf, (size_t)k);
	w->n--; /* no space between the length and the bytes */
	tw_put(w, s, n);
}

/* tw_feature is graph.Space.Index: "$x" an input, a variable's name, "#node". */
static int tw_feature(fpm_tw *w, const char *name) {
	for (int i = 0; i < w->ni; i++)
		if (name[0] == '$' && !strcmp(name + 1, w->inputs[i]))
			return i;
	for (int i = 0; i < w->nv; i++)
		if (!strcmp(name, w->vars[i]))
			return w->ni + i;
	for (int i = 0; i < w->nn; i++)
		if (name[0] == '#' && !strcmp(name + 1, w->nodes[i]))
			return w->ni + w->nv + i;
	w->bad = 1;
	return 0;
}

static int tw_index(const char **list, int n, const char *s) {
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return i;
	return -1;
}

static void tw_formula(fpm_tw *w, const fpm_json *f) {
	static const char *kinds[] = {"const", "copy", "shift", "poly", "gmdh", "power"};
	int kind = -1;
	for (int k = 0; k < 6; k++)
		if (!strcmp(jstr(f, "kind"), kinds[k]))
			kind = k;
	if (kind < 0) {
		w->bad = 1;
		return;
	}
	const fpm_json *vars = jget(f, "vars"), *coef = jget(f, "coef");
	int nv = jlen(vars);
	tw_num(w, kind);
	tw_num(w, nv);
	for (int i = 0; i < nv; i++)
		tw_num(w, vars->kids[i].type == 4 ? tw_feature(w, vars->kids[i].str) : (w->bad = 1));
	switch (kind) {
	case K_CONST: case K_COPY: case K_SHIFT:
		tw_num(w, jnum(f, "value"));
		break;
	case K_POWER:
		tw_num(w, jnum(f, "value"));
		tw_num(w, jlen(coef) > 0 ? coef->kids[0].num : (w->bad = 1));
		tw_num(w, jnum(f, "exp"));
		break;
	case K_POLY: {
		const fpm_json *terms = jget(f, "terms");
		int nt = jlen(terms);
		if (jlen(coef) != nt)
			w->bad = 1;
		tw_num(w, nt);
		for (int k = 0; k < nt && !w->bad; k++) {
			tw_num(w, coef->kids[k].num);
			if (jlen(&terms->kids[k]) != nv)
				w->bad = 1;
			for (int v = 0; v < nv && !w->bad; v++)
				tw_num(w, terms->kids[k].kids[v].num);
		}
		break;
	}
	case K_GMDH: {
		const fpm_json *net = jget(f, "net"), *mu = jget(net, "Mu"), *sd = jget(net, "Sd"), *layers = jget(net, "Layers");
		if (jlen(mu) != nv || jlen(sd) != nv || jlen(layers) < 1) {
			w->bad = 1;
			return;
		}
		for (int i = 0; i < nv; i++) {
			tw_num(w, mu->kids[i].num);
			tw_num(w, sd->kids[i].num);
		}
		tw_num(w, jnum(net, "MuY"));
		tw_num(w, jnum(net, "SdY"));
		tw_num(w, layers->n);
		for (int l = 0; l < layers->n && !w->bad; l++) {
			const fpm_json *layer = &layers->kids[l];
			tw_num(w, jlen(layer));
			for (int k = 0; k < jlen(layer) && !w->bad; k++) {
				const fpm_json *in = jget(&layer->kids[k], "in"), *c = jget(&layer->kids[k], "coef");
				if (jlen(in) != 2 || jlen(c) != 6) {
					w->bad = 1;
					return;
				}
				tw_num(w, in->kids[0].num);
				tw_num(w, in->kids[1].num);
				for (int j = 0; j < 6; j++)
					tw_num(w, c->kids[j].num);
			}
		}
		tw_num(w, jnum(net, "Out"));
		break;
	}
	}
	const fpm_json *fit = jget(f, "fit");
	tw_num(w, jnum(fit, "n"));
	tw_num(w, jnum(fit, "cv_rmse"));
}

static void tw_conds(fpm_tw *w, const fpm_json *cs) {
	static const char *kinds[] = {"interval", "equal", "arith", "geom"};
	tw_num(w, jlen(cs));
	for (int k = 0; k < jlen(cs); k++) {
		const fpm_json *c = &cs->kids[k], *e = jget(c, "expr"), *ps = jget(c, "pieces");
		const fpm_json *ratio = jget(e, "ratio");
		tw_num(w, jnum(c, "arc"));
		tw_num(w, tw_feature(w, jstr(e, "a")));
		tw_num(w, *jstr(e, "b") ? tw_feature(w, jstr(e, "b")) : -1);
		tw_num(w, ratio && ratio->type == 2);
		tw_num(w, jlen(ps));
		for (int i = 0; i < jlen(ps); i++) {
			const fpm_json *p = &ps->kids[i], *lo = jget(p, "lo"), *hi = jget(p, "hi");
			int kind = -1;
			for (int j = 0; j < 4; j++)
				if (!strcmp(jstr(p, "kind"), kinds[j]))
					kind = j;
			if (kind < 0)
				w->bad = 1;
			tw_num(w, kind);
			tw_num(w, lo && lo->type == 3);
			tw_num(w, lo && lo->type == 3 ? lo->num : 0);
			tw_num(w, hi && hi->type == 3);
			tw_num(w, hi && hi->type == 3 ? hi->num : 0);
			tw_num(w, jnum(p, "value"));
			tw_num(w, jnum(p, "step"));
		}
	}
}

static void tw_shares(fpm_tw *w, const fpm_json *ss) {
	tw_num(w, jlen(ss));
	for (int k = 0; k < jlen(ss); k++) {
		tw_num(w, jnum(&ss->kids[k], "arc"));
		tw_num(w, jnum(&ss->kids[k], "p"));
	}
}

/* json_to_text turns a model file's JSON into its runtime form; 0 when it is
 * not a model file this library reads (*version set when it is a newer one). */
static char *json_to_text(const fpm_json *j, size_t *len, int *version) {
	fpm_tw w = {0};
	const fpm_json *inputs = jget(j, "inputs"), *vars = jget(j, "vars"), *nodes = jget(j, "nodes");
	*version = (int)jnum(j, "version");
	if (strcmp(jstr(j, "format"), "fragprof-model") || *version < 1 || *version > 2 || jlen(nodes) < 2)
		return 0;
	w.ni = jlen(inputs), w.nv = jlen(vars), w.nn = jlen(nodes);
	w.inputs = calloc((size_t)w.ni + 1, sizeof *w.inputs);
	w.vars = calloc((size_t)w.nv + 1, sizeof *w.vars);
	w.nodes = calloc((size_t)w.nn + 1, sizeof *w.nodes);
	if (!w.inputs || !w.vars || !w.nodes)
		w.bad = 1;
	for (int i = 0; i < w.ni && !w.bad; i++)
		w.inputs[i] = inputs->kids[i].type == 4 ? inputs->kids[i].str : "";
	for (int i = 0; i < w.nv && !w.bad; i++)
		w.vars[i] = vars->kids[i].type == 4 ? vars->kids[i].str : "";
	for (int i = 0; i < w.nn && !w.bad; i++)
		w.nodes[i] = jstr(&nodes->kids[i], "name");
	tw_put(&w, "fragprof-model-c 1", 18);
	tw_str(&w, jstr(j, "program"));
	tw_num(&w, w.ni);
	for (int i = 0; i < w.ni; i++)
		tw_str(&w, w.inputs[i]);
	tw_num(&w, w.nv);
	for (int i = 0; i < w.nv; i++)
		tw_str(&w, w.vars[i]);
	tw_num(&w, w.nn);
	for (int i = 0; i < w.nn && !w.bad; i++) {
		const fpm_json *pl = jget(&nodes->kids[i], "places");
		tw_str(&w, w.nodes[i]);
		tw_num(&w, jlen(pl));
		for (int k = 0; k < jlen(pl); k++)
			tw_str(&w, pl->kids[k].type == 4 ? pl->kids[k].str : "");
	}
	double scale = jnum(j, "time_scale");
	const fpm_json *ev = jget(j, "evaluation");
	tw_num(&w, scale > 0 ? scale : 1);
	tw_num(&w, jnum(jget(j, "training"), "overhead_ns"));
	tw_num(&w, ev && ev->type == 6);
	tw_num(&w, ev && ev->type == 6 ? jnum(ev, "mape") : 0);
	const fpm_json *arcs = jget(j, "arcs"), *rules = jget(j, "rules");
	tw_num(&w, jlen(arcs));
	for (int i = 0; i < jlen(arcs) && !w.bad; i++) {
		const fpm_json *a = &arcs->kids[i], *body = jget(a, "body"), *data = jget(a, "data"), *r = jget(a, "resets");
		tw_num(&w, jnum(a, "from"));
		tw_num(&w, jnum(a, "to"));
		tw_num(&w, r && r->type == 2);
		tw_num(&w, body && body->type == 3 ? body->num : -1);
		tw_num(&w, jnum(a, "mean_ns"));
		tw_formula(&w, jget(a, "time"));
		tw_num(&w, jlen(data));
		for (int k = 0; k < jlen(data); k++) {
			int v = tw_index(w.vars, w.nv, jstr(&data->kids[k], "var"));
			if (v < 0)
				w.bad = 1;
			tw_num(&w, w.ni + v);
			tw_formula(&w, jget(&data->kids[k], "formula"));
		}
	}
	if (jlen(rules) != w.nn)
		w.bad = 1;
	for (int i = 0; i < jlen(rules) && !w.bad; i++) {
		const fpm_json *r = &rules->kids[i], *trip = jget(r, "trip");
		if (jnum(r, "node") != i)
			w.bad = 1;
		tw_conds(&w, jget(r, "conds"));
		tw_num(&w, trip && trip->type == 6);
		if (trip && trip->type == 6) {
			tw_num(&w, jnum(trip, "arc"));
			tw_formula(&w, jget(trip, "count"));
			tw_conds(&w, jget(trip, "exit_conds"));
			tw_shares(&w, jget(trip, "exit"));
		}
		tw_shares(&w, jget(r, "residual"));
	}
	const fpm_json *b = jget(j, "baseline");
	tw_num(&w, b && b->type == 6);
	if (b && b->type == 6) {
		const fpm_json *terms = jget(b, "terms");
		tw_num(&w, jnum(b, "const"));
		tw_num(&w, jlen(terms));
		for (int t = 0; t < jlen(terms); t++) {
			const fpm_json *fs = jget(&terms->kids[t], "factors");
			tw_num(&w, jnum(&terms->kids[t], "coef"));
			tw_num(&w, jlen(fs));
			for (int k = 0; k < jlen(fs); k++) {
				tw_num(&w, jnum(&fs->kids[k], "input"));
				tw_num(&w, jnum(&fs->kids[k], "i"));
				tw_num(&w, jnum(&fs->kids[k], "j"));
			}
		}
	}
	const fpm_json *p = jget(j, "power_law");
	tw_num(&w, p && p->type == 6);
	if (p && p->type == 6) {
		tw_num(&w, tw_index(w.inputs, w.ni, jstr(p, "input")));
		tw_num(&w, jnum(p, "a"));
		tw_num(&w, jnum(p, "b"));
		tw_num(&w, jnum(p, "k"));
	}
	const fpm_json *sg = jget(j, "segmented");
	tw_num(&w, sg && sg->type == 6);
	if (sg && sg->type == 6) {
		tw_num(&w, tw_index(w.inputs, w.ni, jstr(sg, "input")));
		tw_num(&w, jnum(sg, "a"));
		tw_num(&w, jnum(sg, "b"));
		tw_num(&w, jnum(sg, "c"));
		tw_num(&w, jnum(sg, "k"));
		tw_num(&w, jnum(sg, "x0"));
	}
	const fpm_json *sel = jget(j, "selection");
	tw_num(&w, sel && sel->type == 6);
	if (sel && sel->type == 6) {
		const fpm_json *iv = jget(sel, "interval"), *noise = jget(iv, "noise");
		tw_str(&w, jstr(sel, "chosen"));
		tw_num(&w, jnum(iv, "level"));
		tw_num(&w, jnum(iv, "q"));
		tw_num(&w, jnum(iv, "widen"));
		tw_num(&w, jlen(noise));
		for (int i = 0; i < jlen(noise); i++) {
			const fpm_json *in = jget(&noise->kids[i], "inputs");
			tw_num(&w, jlen(in));
			for (int k = 0; k < jlen(in); k++)
				tw_num(&w, in->kids[k].num);
			tw_num(&w, jnum(&noise->kids[i], "q"));
		}
	}
	const fpm_json *ranges = jget(jget(j, "training"), "input_ranges");
	for (int i = 0; i < w.ni; i++) {
		const fpm_json *r = 0;
		for (int k = 0; k < jlen(ranges); k++)
			if (!strcmp(jstr(&ranges->kids[k], "name"), w.inputs[i]))
				r = &ranges->kids[k];
		tw_num(&w, r != 0);
		tw_num(&w, r ? jnum(r, "min") : 0);
		tw_num(&w, r ? jnum(r, "max") : 0);
	}
	const fpm_json *mem = jget(j, "memory");
	tw_num(&w, mem && mem->type == 6);
	if (mem && mem->type == 6) {
		const fpm_json *fit = jget(mem, "fit"), *levels = jget(jget(mem, "caches"), "levels");
		int known = 0;
		tw_num(&w, tw_index(w.inputs, w.ni, jstr(fit, "input")));
		tw_num(&w, jnum(fit, "a"));
		tw_num(&w, jnum(fit, "b"));
		tw_num(&w, jnum(fit, "k"));
		tw_num(&w, jnum(mem, "min_bytes"));
		tw_num(&w, jnum(mem, "max_bytes"));
		for (int i = 0; i < jlen(levels); i++)
			known += jnum(&levels->kids[i], "bytes") > 0;
		tw_num(&w, known);
		for (int i = 0; i < jlen(levels); i++)
			if (jnum(&levels->kids[i], "bytes") > 0)
				tw_num(&w, jnum(&levels->kids[i], "bytes"));
	}
	tw_put(&w, "end", 3);
	free(w.inputs);
	free(w.vars);
	free(w.nodes);
	if (w.bad) {
		free(w.b);
		return 0;
	}
	*len = w.n;
	return w.b;
}

/* load_json opens a model file's JSON (what `fragprof model build` writes). */
static int load_json(const char *text, size_t len, const char *name, fp_model **out) {
	fpm_jp p = {text, text + len, 0, 0};
	fpm_json j;
	jp_value(&p, &j);
	jp_ws(&p);
	if (p.bad || p.s != p.end) {
		json_free(&j);
		return fpm_fail(FP_MODEL_EFORMAT, "%s: not a valid model file (bad JSON near byte %ld): `fragprof model build` writes them",
		                name, (long)(p.s - text));
	}
	size_t n;
	int version;
	char *t = json_to_text(&j, &n, &version);
	json_free(&j);
	if (!t) {
		if (version > 2)
			return fpm_fail(FP_MODEL_EVERSION, "%s: model version %d, this library reads 1 to 2: rebuild the program with the fragprof that built the model", name, version);
		return fpm_fail(FP_MODEL_EFORMAT, "%s: not a fragprof model this library reads (a field is missing or names something the model does not define)", name);
	}
	int rc = fp_model_load_text(t, n, name, out);
	free(t);
	return rc;
}
