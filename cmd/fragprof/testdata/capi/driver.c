/* driver.c: prints what the C API predicts for the inputs on its command line,
 * one "key value" per line, for the tests to compare with `model predict --json`.
 *
 *   driver FILE.fpm NAME=VALUE...    (built with -DCOMPILED: driver - NAME=VALUE...)
 */
#include "fragprof_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COMPILED
#ifdef __cplusplus
extern "C"
#endif
    int
    fp_model_open_model(fp_model **out);
#endif

static double fin(double x) { return isnan(x) || isinf(x) ? 0 : x; }

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	fp_model *m;
	int rc;
#ifdef COMPILED
	rc = fp_model_open_model(&m);
#else
	rc = fp_model_load(argv[1], &m);
#endif
	if (rc != FP_MODEL_OK) {
		printf("error %d %s\n", rc, fp_model_errmsg());
		return 1;
	}
	fp_model_value in[16];
	int n = 0;
	for (int i = 2; i < argc && n < 16; i++, n++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			return 2;
		*eq = 0;
		in[n].name = argv[i];
		in[n].value = strtod(eq + 1, 0);
	}
	fp_model_run r;
	double vars[64];
	rc = fp_model_predict_run(m, in, n, &r, vars, 64);
	if (rc != FP_MODEL_OK) {
		printf("error %d %s\n", rc, fp_model_errmsg());
		fp_model_free(m);
		return 1;
	}
	printf("predicted_ns %.17g\ninterval_lo %.17g\ninterval_hi %.17g\ninterval_level %.17g\n", r.time.value,
	       r.time.lo, r.time.hi, r.time.level);
	/* NaN (a diverged formula) is 0 in model predict's JSON. */
	printf("graph_ns %.17g\ncomposition_ns %.17g\nevents %.17g\nextrapolation_factor %.17g\n", fin(r.graph_ns),
	       fin(r.composition_ns), r.events, r.extrapolation);
	printf("untraced_ns %.17g\nchosen %s\nruns %d\nkept %d\n", isnan(r.untraced_ns) ? 0 : r.untraced_ns, r.chosen,
	       r.runs, r.kept);
	for (int k = 0; k < fp_model_num_vars(m); k++)
		printf("var.%s %.17g\n", fp_model_var(m, k), fin(vars[k]));
	fp_model_estimate e;
	rc = fp_model_predict_region(m, in, n, "START", "END", &e);
	if (rc == FP_MODEL_OK)
		printf("region_start_end %.17g\n", e.value);
	else
		printf("region_error %d %s\n", rc, fp_model_errmsg());
	fp_model_free(m);
	return 0;
}
