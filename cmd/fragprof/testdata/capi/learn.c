/* learn.c: online learning on a feed of known times. A model of the
 * Brusselator (transition row → row) learns a run whose rows take 1.3 times
 * the model's time, with a 2% noise (seeded), until event CHANGE, where the
 * work per row doubles. After each event (and fp_model_learn_sync, so that the
 * answer does not depend on the learner's speed) the predicted row time's
 * interval is compared with the true time of a row. Prints the events the
 * prediction took to hold the truth and keep holding it, after the start and
 * after the change. Another thread queries the model all along (the test
 * runs a build under the thread sanitizer too).
 *
 *   learn MODEL.fpm WINDOW CHANGE_RUN
 */
#include "fragprof_model.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define EVENTS 600
#define CHANGE 300

static unsigned long long rng = 12345;
static double gauss(void) { /* Box-Muller on a 64-bit LCG */
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	double u1 = ((rng >> 11) + 1.0) / 9007199254740993.0;
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	double u2 = (rng >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

static fp_model *shared;
static _Atomic int done;

/* querier asks what a program's other threads would while the model learns. */
static void *querier(void *arg) {
	(void)arg;
	fp_model_value in = {"K", 50};
	fp_model_value st[] = {{"$K", 1000}, {"K", 1000}, {"i", 5}, {"#row", 6}};
	while (!done) {
		fp_model_run r;
		fp_model_estimate e;
		fp_model_predict_run(shared, &in, 1, &r, 0, 0);
		fp_model_predict_time(shared, "row", "row", st, 4, &e);
	}
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 4)
		return 2;
	fp_model *m;
	if (fp_model_load(argv[1], &m)) {
		printf("error %s\n", fp_model_errmsg());
		return 1;
	}
	fp_model_value in = {"K", 1000};
	fp_model_value st[] = {{"$K", 1000}, {"K", 1000}, {"i", 5}, {"#row", 6}};
	fp_model_estimate e0;
	if (fp_model_predict_time(m, "row", "row", st, 4, &e0)) {
		printf("error %s\n", fp_model_errmsg());
		return 1;
	}
	fp_model_learn_options o = {atoi(argv[2]), atoi(argv[3]), 0};
	if (fp_model_learn_start(m, &in, 1, &o)) {
		printf("error %s\n", fp_model_errmsg());
		return 1;
	}
	shared = m;
	pthread_t q;
	pthread_create(&q, 0, querier, 0);
	double t = 1e9;
	fp_model_value kv = {"K", 1000};
	fp_model_observe(m, "start", t, &kv, 1);
	/* the first events after the start and after the change at which the
	 * interval holds the truth from then on (-1: never) */
	int held_from = -1, held_from_change = -1, wrong_before_change = 0;
	for (int ev = 0; ev < EVENTS; ev++) {
		double truth = e0.value * (ev < CHANGE ? 1.3 : 2.6);
		t += truth * (1 + 0.02 * gauss());
		fp_model_value iv = {"i", ev};
		fp_model_observe(m, "row", t, &iv, 1);
		fp_model_learn_sync(m);
		fp_model_estimate e;
		st[2].value = ev, st[3].value = ev + 1;
		if (fp_model_predict_time(m, "row", "row", st, 4, &e)) {
			printf("error %s\n", fp_model_errmsg());
			return 1;
		}
		int in_iv = e.lo <= truth && truth <= e.hi;
		if (ev < CHANGE) {
			if (in_iv && held_from < 0)
				held_from = ev + 1;
			if (!in_iv && held_from >= 0) {
				held_from = -1;
				wrong_before_change++;
			}
		} else {
			if (in_iv && held_from_change < 0)
				held_from_change = ev + 1 - CHANGE;
			if (!in_iv)
				held_from_change = -1;
		}
		if (ev == CHANGE - 1 || ev == EVENTS - 1)
			printf("at_%d %.6g %.6g %.6g truth %.6g\n", ev + 1, e.value, e.lo, e.hi, truth);
	}
	done = 1;
	pthread_join(q, 0);
	fp_model_learning s;
	fp_model_learn_stats(m, &s);
	printf("model_row_ns %.6g\n", e0.value);
	printf("held_from %d\nheld_from_change %d\nlost_before_change %d\n", held_from, held_from_change, wrong_before_change);
	printf("stats %llu %llu %llu %llu %llu\n", s.appended, s.processed, s.dropped, s.rows, s.changes);
	fp_model_free(m);
	return 0;
}
