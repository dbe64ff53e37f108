/* fuzz.c: the loader on damaged models. Reads a compiled model and loads
 * MUTATIONS mutated copies of it (a byte replaced, a cut, a token deleted; from
 * a seeded generator); a copy that loads is queried. Built with the address
 * and undefined-behaviour sanitizers by the test: any fault ends it. Prints
 * how many copies loaded and how many were refused with each code.
 *
 *   fuzz MODEL.fpm MUTATIONS
 */
#include "fragprof_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 7;
static unsigned long long next(void) {
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return rng >> 33;
}

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	static char text[1 << 20], buf[1 << 20];
	size_t n = fread(text, 1, sizeof text, f);
	fclose(f);
	int mutations = atoi(argv[2]), loaded = 0, codes[16] = {0};
	const char alphabet[] = "0123456789-.e: \nxInfNa";
	for (int i = 0; i < mutations; i++) {
		size_t len = n;
		memcpy(buf, text, n);
		switch (next() % 3) {
		case 0: /* replace a byte */
			buf[next() % len] = alphabet[next() % (sizeof alphabet - 1)];
			break;
		case 1: /* cut */
			len = next() % len;
			break;
		case 2: { /* delete a token */
			size_t a = next() % len, b = a;
			while (b < len && buf[b] != ' ' && buf[b] != '\n')
				b++;
			memmove(buf + a, buf + b, len - b);
			len -= b - a;
			break;
		}
		}
		fp_model *m;
		int rc = fp_model_load_text(buf, len, "mutant", &m);
		if (rc != FP_MODEL_OK) {
			if (m != NULL || !fp_model_errmsg()[0])
				return 3;
			codes[-rc]++;
			continue;
		}
		loaded++;
		fp_model_value in = {"K", 3};
		fp_model_run r;
		double vars[16];
		fp_model_predict_run(m, &in, 1, &r, vars, 16);
		fp_model_arc arcs[8];
		int count;
		fp_model_value st[] = {{"#row", 2}, {"$K", 3}, {"i", 1}, {"K", 3}};
		fp_model_next_arcs(m, "row", st, 4, arcs, 8, &count);
		fp_model_estimate e;
		fp_model_predict_time(m, "row", "row", st, 4, &e);
		double v;
		fp_model_predict_value(m, "row", "row", "i", st, 4, &v);
		fp_model_free(m);
	}
	printf("loaded %d eformat %d eversion %d other %d\n", loaded, codes[2], codes[3],
	       mutations - loaded - codes[2] - codes[3]);
	return 0;
}
