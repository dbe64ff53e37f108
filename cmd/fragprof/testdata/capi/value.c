/* value.c: prints fp_model_predict_value's answers for the model file argv[1]:
 * each further argument "FROM:TO:VAR:name=value,name=value..." is one query,
 * printed as "value rc number" (the number with every digit). */
#include "fragprof_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
	fp_model *m;
	if (argc < 2 || fp_model_load(argv[1], &m) != FP_MODEL_OK) {
		fprintf(stderr, "%s\n", fp_model_errmsg());
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char *q = strdup(argv[i]), *from = strtok(q, ":"), *to = strtok(0, ":"), *var = strtok(0, ":"), *rest = strtok(0, "");
		fp_model_value st[32];
		int n = 0;
		for (char *kv = rest ? strtok(rest, ",") : 0; kv && n < 32; kv = strtok(0, ",")) {
			char *eq = strchr(kv, '=');
			if (!eq)
				return 2;
			*eq = 0;
			st[n++] = (fp_model_value){kv, atof(eq + 1)};
		}
		double v = 0;
		int rc = fp_model_predict_value(m, from, to, var, st, n, &v);
		printf("value %d %.17g %s\n", rc, v, rc ? fp_model_errmsg() : "");
		free(q);
	}
	fp_model_free(m);
	return 0;
}
