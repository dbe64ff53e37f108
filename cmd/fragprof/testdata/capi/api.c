/* api.c: the C API's errors, its other queries and its thread safety, on a model
 * of examples/predict/brusselator.c (inputs K; checkpoints start, row, end;
 * variables K, i). Prints one "name code message" or "name value..." line per
 * check, for the test to judge.
 *
 *   api MODEL.fpm MODEL.json SCRATCHDIR
 */
#include "fragprof_model.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(const char *name, int rc) { printf("%s %d %s\n", name, rc, rc ? fp_model_errmsg() : ""); }

static void write_file(const char *path, const char *data, size_t n) {
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n)
		exit(3);
	fclose(f);
}

static char *read_file(const char *path, size_t *n) {
	FILE *f = fopen(path, "rb");
	if (!f)
		exit(3);
	static char buf[1 << 20];
	*n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return buf;
}

#define THREADS 8
#define QUERIES 60
static fp_model *shared;
static double want[QUERIES][3];

static void *worker(void *arg) {
	long id = (long)arg, bad = 0;
	for (int q = 0; q < QUERIES; q++) {
		int k = (q + (int)id * 7) % QUERIES;
		fp_model_value in = {"K", 1 + k};
		fp_model_run r;
		if (fp_model_predict_run(shared, &in, 1, &r, 0, 0) != FP_MODEL_OK || r.time.value != want[k][0] ||
		    r.time.lo != want[k][1] || r.time.hi != want[k][2])
			bad++;
		fp_model_estimate e;
		fp_model_value st[] = {{"$K", 1 + k}, {"#row", 2}, {"i", 1}, {"K", 1 + k}};
		if (fp_model_predict_time(shared, "row", "row", st, 4, &e) != FP_MODEL_OK)
			bad++;
	}
	return (void *)bad;
}

int main(int argc, char **argv) {
	if (argc != 4)
		return 2;
	char path[4096];
	fp_model *m = 0;
	int rc;

	/* Load errors. */
	snprintf(path, sizeof path, "%s/none.fpm", argv[3]);
	report("missing", fp_model_load(path, &m));
	printf("missing_handle %s\n", m ? "set" : "null");
	report("json", fp_model_load(argv[2], &m));
	fp_model_free(m);
	size_t n;
	char *json = read_file(argv[2], &n);
	snprintf(path, sizeof path, "%s/truncated.model", argv[3]);
	write_file(path, json, n / 2);
	report("json_truncated", fp_model_load(path, &m));
	char *jv = strstr(json, "\"version\": 2");
	if (!jv)
		return 4;
	jv[strlen("\"version\": ")] = '9';
	report("json_newer", fp_model_load_text(json, n, "newer.model", &m));
	char *text = read_file(argv[1], &n);
	snprintf(path, sizeof path, "%s/truncated.fpm", argv[3]);
	write_file(path, text, n / 2);
	report("truncated", fp_model_load(path, &m));
	char *newer = malloc(n + 8);
	memcpy(newer, text, n);
	char *v = strstr(newer, "fragprof-model-c 1");
	v[strlen("fragprof-model-c ")] = '9';
	report("newer", fp_model_load_text(newer, n, "newer.fpm", &m));
	report("null_path", fp_model_load(0, &m));
	report("null_model", fp_model_predict_run(0, 0, 0, 0, 0, 0));

	rc = fp_model_load(argv[1], &m);
	report("load", rc);
	if (rc)
		return 1;
	printf("program %s\n", fp_model_program(m));
	for (int i = 0; i < fp_model_num_points(m); i++)
		printf("point %s %s\n", fp_model_point(m, i), fp_model_point_place(m, i));

	/* Checkpoint identity. */
	const char *same[] = {"end", "row", "start"};
	report("points_same", fp_model_check_points(m, same, 3));
	const char *other[] = {"start", "rows", "end"};
	report("points_other", fp_model_check_points(m, other, 3));

	/* Inputs. */
	fp_model_run r;
	fp_model_value bad_in = {"L", 3};
	report("unknown_input", fp_model_predict_run(m, &bad_in, 1, &r, 0, 0));
	report("no_input", fp_model_predict_run(m, 0, 0, &r, 0, 0));
	double vars[2];
	fp_model_value k100 = {"$K", 100};
	report("small_vars", fp_model_predict_run(m, &k100, 1, &r, vars, 1));
	rc = fp_model_predict_vars(m, &k100, 1, vars, 2);
	printf("vars %d %.17g %.17g\n", rc, vars[0], vars[1]);

	/* Regions and transitions. */
	fp_model_estimate e, e2;
	report("region_unknown", fp_model_predict_region(m, &k100, 1, "start", "nowhere", &e));
	rc = fp_model_predict_region(m, &k100, 1, "row", "row", &e);
	printf("region_row_row %d %.17g %.17g %.17g\n", rc, e.value, e.lo, e.hi);
	rc = fp_model_predict_region(m, &k100, 1, "row", "end", &e);
	printf("region_row_end %d %.17g %.17g %.17g\n", rc, e.value, e.lo, e.hi);
	rc = fp_model_predict_region(m, &k100, 1, "START", "END", &e2);
	printf("region_all %d %.17g\n", rc, e2.value);
	fp_model_value st[] = {{"$K", 100}, {"#row", 2}, {"i", 1}, {"K", 100}};
	rc = fp_model_predict_time(m, "row", "row", st, 4, &e);
	printf("time_row_row %d %.17g %.17g %.17g\n", rc, e.value, e.lo, e.hi);
	report("time_missing", fp_model_predict_time(m, "row", "row", 0, 0, &e));
	report("time_no_arc", fp_model_predict_time(m, "end", "row", st, 4, &e));
	fp_model_value bad_st = {"#nowhere", 1};
	report("time_bad_value", fp_model_predict_time(m, "row", "row", &bad_st, 1, &e));

	/* Next arcs. */
	fp_model_arc arcs[4];
	int count;
	fp_model_value in_loop[] = {{"#row", 3}, {"$K", 10}};
	rc = fp_model_next_arcs(m, "row", in_loop, 2, arcs, 4, &count);
	printf("next_in_loop %d %d %s %.17g\n", rc, count, count ? arcs[0].to : "-", count ? arcs[0].p : 0);
	fp_model_value at_end[] = {{"#row", 10}, {"$K", 10}};
	rc = fp_model_next_arcs(m, "row", at_end, 2, arcs, 4, &count);
	printf("next_at_end %d %d %s %.17g\n", rc, count, count ? arcs[0].to : "-", count ? arcs[0].p : 0);
	report("next_missing", fp_model_next_arcs(m, "row", 0, 0, arcs, 4, &count));

	/* Amdahl. */
	fp_model_decision d;
	rc = fp_model_amdahl(m, &k100, 1, 0, 0, 2, 0, &d);
	printf("amdahl_free %d %d %d %.17g %.17g\n", rc, d.parallelise, d.certain, d.bound_ns, d.speedup);
	rc = fp_model_amdahl(m, &k100, 1, 0, 0, 2, 1e18, &d);
	printf("amdahl_dear %d %d %d\n", rc, d.parallelise, d.certain);
	rc = fp_model_amdahl(m, &k100, 1, "row", "end", 4, -1, &d);
	printf("amdahl_measured %d %d %.17g %d\n", rc, d.measured, d.overhead_ns, d.workers);
	report("amdahl_zero", fp_model_amdahl(m, &k100, 1, 0, 0, 0, 0, &d));
	rc = fp_model_amdahl_now(m, &k100, 1, "row", "end", 2, &d);
	printf("amdahl_now %d %d %.17g %d %.17g %.17g\n", rc, d.measured, d.overhead_ns, d.parallelise, d.bound_ns, d.time.value);
	rc = fp_model_amdahl_now(m, &k100, 1, "row", "end", 2, &d);
	printf("amdahl_now_again %d %d %.17g\n", rc, d.measured, d.overhead_ns);

	/* Threads: every answer equal to the single-threaded one. */
	shared = m;
	for (int k = 0; k < QUERIES; k++) {
		fp_model_value in = {"K", 1 + k};
		if (fp_model_predict_run(m, &in, 1, &r, 0, 0))
			return 1;
		want[k][0] = r.time.value, want[k][1] = r.time.lo, want[k][2] = r.time.hi;
	}
	pthread_t th[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&th[i], 0, worker, (void *)i);
	long bad = 0;
	for (int i = 0; i < THREADS; i++) {
		void *b;
		pthread_join(th[i], &b);
		bad += (long)b;
	}
	printf("threads %d %ld\n", THREADS * QUERIES, bad);

	/* Online learning of a program whose checkpoints are not the model's. */
	rc = fp_model_learn_start(m, &k100, 1, 0);
	fp_model_observe(m, "start", 1000, &k100, 1);
	fp_model_observe(m, "rows", 2000, 0, 0);
	fp_model_learn_sync(m);
	report("learn_mismatch", rc ? rc : fp_model_predict_time(m, "row", "row", st, 4, &e));
	report("learn_again", fp_model_learn_start(m, &k100, 1, 0));
	fp_model_free(m);
	fp_model_free(0);
	return 0;
}
