/* query_model.c: a program that asks the model of brusselator.c about itself
 * before it runs (docs/predict.md, "In the program"). Built with the model
 * compiled in:
 *
 *   fragprof model compile bru.model -o bru_model.c --name bru
 *   fragprof model lib -d fpmodel/
 *   cc -O2 -I fpmodel query_model.c bru_model.c fpmodel/libfragprof_model.a -lm -pthread -o query
 *   ./query 800
 */
#include "fragprof_model.h"

#include <stdio.h>
#include <stdlib.h>

int fp_model_open_bru(fp_model **out); /* defined by bru_model.c */

int main(int argc, char **argv) {
	double K = argc > 1 ? atof(argv[1]) : 800;
	fp_model *m;
	if (fp_model_open_bru(&m) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	/* The model must be of this program's checkpoints. */
	const char *points[] = {"start", "row", "end"};
	if (fp_model_check_points(m, points, 3) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		fp_model_free(m);
		return 1;
	}
	fp_model_value in = {"K", K};
	fp_model_run run;
	double vars[8];
	if (fp_model_predict_run(m, &in, 1, &run, vars, 8) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		fp_model_free(m);
		return 1;
	}
	printf("run: %.4g ns [%.4g, %.4g] (%s, %.0f%% interval), %.0f checkpoints\n", run.time.value, run.time.lo,
	       run.time.hi, run.chosen, 100 * run.time.level, run.events);
	for (int i = 0; i < fp_model_num_vars(m); i++)
		printf("  final %s = %g\n", fp_model_var(m, i), vars[i]);
	fp_model_estimate row;
	if (fp_model_predict_region(m, &in, 1, "row", "row", &row) == FP_MODEL_OK)
		printf("one row: %.4g ns [%.4g, %.4g]\n", row.value, row.lo, row.hi);
	fp_model_value at[] = {{"#row", K}, {"$K", K}};
	fp_model_arc next[4];
	int n;
	if (fp_model_next_arcs(m, "row", at, 2, next, 4, &n) == FP_MODEL_OK)
		printf("after row %g: %s (p = %g)\n", K, next[0].to, next[0].p);
	fp_model_decision d;
	if (fp_model_amdahl(m, &in, 1, "row", "end", 2, -1, &d) == FP_MODEL_OK) /* P(2) measured */
		printf("the rows on 2 threads: %s%s (P(2) = %.0f ns, speedup %.2f)\n", d.parallelise ? "parallelise" : "stay sequential",
		       d.certain ? "" : " (borderline)", d.overhead_ns, d.speedup);
	fp_model_free(m);
	return 0;
}
