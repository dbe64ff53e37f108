/* fragprof_model.h: a fragprof prediction model inside the program it models.
 *
 * A program asks its own model (docs/predict.md, "In the program"): how long a
 * run, a region from checkpoint A to checkpoint B, or one transition takes for
 * given values, with an interval; the run's final variables; a recorded
 * variable's value after a transition at a given state; the probabilities
 * of a checkpoint's next arcs; and whether running a region on N workers pays
 * (Amdahl's condition). fp_model_load opens the model file `fragprof model
 * build` writes, or its compiled form (`fragprof model compile MODEL -o
 * FILE.fpm`, lighter to read); `fragprof model compile MODEL -o FILE.c` writes C
 * that compiles the model into the program, opened with the function it
 * defines (fp_model_open_NAME). All give the answers of `fragprof model
 * predict`.
 *
 * Conventions. Every call returns FP_MODEL_OK (0) or a negative FP_MODEL_E*
 * code; fp_model_errmsg() then says what went wrong and what to do, naming the
 * file, checkpoint or value. Any number of threads may query one handle at
 * once, with no lock (each query works on its own stack and heap memory; what
 * online learning changes — each arc's refitted factor and error — is
 * published atomically, and a query reads it without waiting). There is no global state to set up or tear down;
 * fp_model_free releases a handle. Times are in nanoseconds of the traced
 * program. Values are named as `fragprof model show` prints them: "$n" an input
 * (or "n" where only inputs are meaningful), "err" a recorded variable, "#row"
 * a checkpoint's activation counter.
 *
 * Link with libfragprof_model.a (`fragprof model lib`) and -lm; programs built
 * by `fragprof cc` get it without asking. The library uses libc, libm and
 * pthreads only.
 */
#ifndef FRAGPROF_MODEL_H
#define FRAGPROF_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
enum {
	FP_MODEL_OK = 0,
	FP_MODEL_EIO = -1,       /* the model file cannot be read */
	FP_MODEL_EFORMAT = -2,   /* not a compiled model, or a damaged one */
	FP_MODEL_EVERSION = -3,  /* written by a newer fragprof */
	FP_MODEL_EMISMATCH = -4, /* the program's checkpoints are not the model's */
	FP_MODEL_ENAME = -5,     /* a checkpoint, input or value the model does not know */
	FP_MODEL_EMISSING = -6,  /* a value the answer depends on was not given */
	FP_MODEL_ENOEND = -7,    /* the interpreted run does not reach its end */
	FP_MODEL_EARG = -8,      /* a null pointer, a negative count, N < 1 ... */
	FP_MODEL_ENOMEM = -9,    /* out of memory */
	FP_MODEL_EDIVERGE = -10  /* a formula the answer reads leaves the finite numbers on these inputs */
};

/* An opened model (opaque). */
typedef struct fp_model fp_model;

/* A named value: an input, a variable or a counter ("$n", "err", "#row"). */
typedef struct fp_model_value {
	const char *name;
	double value;
} fp_model_value;

/* An estimate with its interval [lo, hi], claimed at confidence level (0.9 for
 * the cross-conformal interval of a run, about 0.95 for the graph model's own;
 * 0 when the run's working set crosses a cache level no training run crossed). */
typedef struct fp_model_estimate {
	double value, lo, hi, level;
} fp_model_estimate;

/* A run's prediction (fp_model_predict_run). */
typedef struct fp_model_run {
	fp_model_estimate time; /* the chosen predictor's time, first checkpoint included */
	const char *chosen;     /* that predictor: "graph", "power", "pmnf", ... */
	double graph_ns;        /* the transition-graph model's time; NaN when a formula it reads diverges */
	double composition_ns;  /* count × mean arc time */
	double untraced_ns;     /* without the checkpoints' own cost; NaN when unknown */
	double events;          /* checkpoints passed */
	double extrapolation;   /* how far the inputs lie beyond the training range (1: inside) */
	int runs, kept;         /* interpreted runs, and those in the largest cluster */
} fp_model_run;

/* One possible next arc of a checkpoint, with its probability. */
typedef struct fp_model_arc {
	const char *to; /* the checkpoint it leads to ("END": the run ends) */
	double p;
} fp_model_arc;

/* Amdahl's condition for running a region of time t on N workers that cost P(N)
 * to start and join: it pays iff P(N) < ((N − 1)/N)·t. */
typedef struct fp_model_decision {
	fp_model_estimate time; /* t, the region's predicted sequential time */
	double overhead_ns;     /* P(N), measured or given */
	double bound_ns;        /* ((N − 1)/N)·t */
	double speedup;         /* t / (t/N + P(N)) */
	int workers;            /* N */
	int parallelise;        /* 1: it pays at t */
	int certain;            /* 1: the answer is the same over all of [lo, hi] */
	int measured;           /* 1: P(N) was measured here */
} fp_model_decision;

/* fp_model_errmsg returns the message of the calling thread's last failed call
 * ("" before any). It stays valid until that thread's next failing call. O(1). */
const char *fp_model_errmsg(void);

/* fp_model_load opens a model file (`fragprof model build`'s JSON) or its
 * compiled form (`fragprof model compile MODEL -o FILE.fpm`). Reading, parsing
 * and checking it costs O(file size): well under a millisecond for the
 * examples' models (the JSON, which also holds what only `model show` prints,
 * is 10–20 times the compiled form). A missing, damaged or newer file is an
 * error, never a handle that answers wrongly. */
int fp_model_load(const char *path, fp_model **out);

/* fp_model_load_text opens a model from its text in memory (what a model file
 * or a .fpm file holds; a compiled model's open function calls it); name is
 * used in messages. O(len). */
int fp_model_load_text(const char *text, unsigned long len, const char *name, fp_model **out);

/* fp_model_free releases a handle; NULL is allowed. O(model size). */
void fp_model_free(fp_model *m);

/* fp_model_check_points compares the program's checkpoint names with those the
 * model was learned from: FP_MODEL_EMISMATCH, with the names missing on either
 * side and their places in the traced source, when they differ. O(n·checkpoints). */
int fp_model_check_points(const fp_model *m, const char *const *names, int n);

/* Introspection, O(1): the program the model was learned from, its inputs,
 * variables and checkpoints (i from 0; NULL past the end), and a checkpoint's
 * place in the traced source ("file.c:12", NULL when unknown). */
const char *fp_model_program(const fp_model *m);
int fp_model_num_inputs(const fp_model *m);
const char *fp_model_input(const fp_model *m, int i);
int fp_model_num_vars(const fp_model *m);
const char *fp_model_var(const fp_model *m, int i);
int fp_model_num_points(const fp_model *m);
const char *fp_model_point(const fp_model *m, int i);
const char *fp_model_point_place(const fp_model *m, int i);

/* fp_model_predict_run predicts a run from its inputs (every input of the model;
 * "n" or "$n"), as `fragprof model predict --set` does: its time with the
 * interval, and, when vars is not NULL, the final value of each variable in
 * fp_model_var order (nvars must be at least fp_model_num_vars). It interprets
 * the model: O(outer iterations) — loops whose exit depends on their counter
 * are skipped through — times 20 runs when a rule is probabilistic; microseconds
 * to a few milliseconds on the examples. A data formula evaluated far beyond the
 * training range can overflow: the variables it reaches are then NaN, as is
 * graph_ns when a time formula reads them (`model predict` names the value). */
int fp_model_predict_run(const fp_model *m, const fp_model_value *inputs, int n, fp_model_run *out,
                         double *vars, int nvars);

/* fp_model_predict_vars is fp_model_predict_run's final variables alone. */
int fp_model_predict_vars(const fp_model *m, const fp_model_value *inputs, int n, double *vars, int nvars);

/* fp_model_predict_region predicts the time from the run's first arrival at
 * checkpoint from to its next arrival at checkpoint to (from = "START" or to =
 * "END" for the run's ends), interpreting the run from its inputs: the graph
 * model's time, with its own interval (±2 standard deviations of the region's
 * transitions' formula errors). A region the run never passes is
 * FP_MODEL_ENOEND; one whose time is not a finite number (a time formula reads
 * a variable whose data formula overflowed, far beyond the training range) is
 * FP_MODEL_EDIVERGE. Cost: as fp_model_predict_run. */
int fp_model_predict_region(const fp_model *m, const fp_model_value *inputs, int n, const char *from,
                            const char *to, fp_model_estimate *est);

/* fp_model_predict_time predicts one transition from checkpoint from to
 * checkpoint to at the given state (the values its time formula reads: a value
 * it reads and is not given is FP_MODEL_EMISSING, naming it), with ±2 standard
 * deviations of the formula's cross-validated error. O(formula size): well
 * under a microsecond. */
int fp_model_predict_time(const fp_model *m, const char *from, const char *to, const fp_model_value *state,
                          int n, fp_model_estimate *est);

/* fp_model_predict_value predicts the value of the recorded variable var just
 * after the transition from → to, at the given state: the model's data formula
 * for var on that transition (a variable the transition does not record keeps
 * the value given for it), as the interpreter applies it. A value the formula
 * reads and is not given is FP_MODEL_EMISSING, naming it. O(formula size). */
int fp_model_predict_value(const fp_model *m, const char *from, const char *to, const char *var,
                           const fp_model_value *state, int n, double *value);

/* fp_model_next_arcs gives the arcs that leave checkpoint at, in the given
 * state, with their probabilities: the first condition of its rule that holds
 * (probability 1), its trip rule (the trip count computed from the state given),
 * or the residual's shares. arcs has room for cap entries; *count is set to the
 * number of arcs. O(rule size). */
int fp_model_next_arcs(const fp_model *m, const char *at, const fp_model_value *state, int n,
                       fp_model_arc *arcs, int cap, int *count);

/* fp_model_amdahl decides whether running the region from → to (NULL, NULL:
 * the whole run, without the checkpoints' own cost) on workers threads pays,
 * for the given inputs. p_n_ns ≥ 0 is P(N) as given; p_n_ns < 0 measures it:
 * the median of 31 times starting and joining workers threads that do nothing
 * (about 31 × 20–100 µs). certain says whether the decision holds over the whole
 * interval of the time. Cost: a prediction, plus the measurement. */
int fp_model_amdahl(const fp_model *m, const fp_model_value *inputs, int n, const char *from, const char *to,
                    int workers, double p_n_ns, fp_model_decision *d);

/* fp_model_amdahl_now is fp_model_amdahl with P(N) the expected cost of
 * starting and joining N threads under the machine's load now: the mean, not
 * the median, of 31 starts and joins — on a loaded machine a new thread waits
 * for a core now and then for a scheduler period, milliseconds against tens
 * of microseconds, and that tail is what the region pays on average. The
 * measurement is the process's own: made at the first call (for N), and again
 * when it is over a second old and costs (31·P(N)) under 1% of the region's
 * predicted time; other calls take the last one. Cost: a prediction, plus the
 * measurement when made. */
int fp_model_amdahl_now(const fp_model *m, const fp_model_value *inputs, int n, const char *from, const char *to,
                        int workers, fp_model_decision *d);

/* Choosing, per call, serial or N workers from what the calls measure. The
 * model predicts a region's sequential time t; Amdahl's condition with an ideal
 * P(N) cannot see what the machine gives the program now (a second core held by
 * other programs, a new thread waiting for a core, a call longer than a
 * scheduler slice sharing its core). A chooser times the program's own calls
 * (the caller records each one it runs) and keeps, for each way — serially and
 * on N workers — and each octave of t ([2^b, 2^(b+1)) ns), the ratios T/t of
 * the way's last `window` calls there (T the measured time). For a call of
 * predicted time t in octave b it expects, for each way,
 *
 *   T_way(t) = r_way·t,   r_way the median of the way's ratios in octave b, or in
 *                         the nearest octave that has calls of the way (the
 *                         larger of two as near);
 *
 * with no call of a way yet, r_serial = 1 and r_parallel = r_serial/N + P(N)/t
 * (fp_model_amdahl_now's P(N): Amdahl's ideal). It prefers N workers iff
 * T_parallel < T_serial: Amdahl's condition P < ((N − 1)/N)·T_serial with the
 * realised cost P = T_parallel − T_serial/N (choice.overhead_ns) and the
 * realised parallel efficiency e = T_serial/(N·T_parallel) (choice.efficiency)
 * at this size, in place of an ideal P(N) and e = 1. Octaves keep apart what
 * differs with the size: a short call is mostly the cost of starting the
 * threads and runs within one scheduler slice, a long one shares its cores
 * with the machine's load. Exploration, bounded: the way not preferred is run
 * instead (choice.explore) when the calls recorded since it was last run took
 * at least T_other(t)/ε (ε = explore), so that re-measuring a way not tried
 * lately costs at most about ε of the time spent (a trial loses at most
 * T_other(t)); the small calls, most often eligible, re-measure most. A chooser
 * is for one thread. Cost of fp_model_choose: an fp_model_amdahl_now query
 * the first time it meets these inputs (its first call measures P(N): 31
 * thread starts), then a lookup of the inputs (a memo of 256 inputs, used
 * while the model is not learning) and O(1); of fp_model_chooser_record,
 * the median of an octave's window: O(window). About 0.1–0.2 µs the pair
 * (measured on the Brusselator's model). Memory: 2 × 64 octaves × window
 * doubles. */
typedef struct fp_model_chooser fp_model_chooser;

typedef struct fp_model_chooser_options {
	int window;     /* calls per way and octave the realised times are taken from (0: 8; 1 to 256) */
	double explore; /* ε, the share of the time re-measuring may cost (0.02; 0: never) */
} fp_model_chooser_options;

/* A call's choice (fp_model_choose). */
typedef struct fp_model_choice {
	int workers;        /* how to run this call: 1 or N */
	int preferred;      /* what the rule prefers (workers differs when exploring) */
	int explore;        /* 1: workers re-measures the way not preferred */
	double t_ns;        /* the model's sequential time of the region */
	double serial_ns;   /* T_s = T_serial(t) */
	double parallel_ns; /* T_p = T_parallel(t) */
	double overhead_ns; /* P = T_p − T_s/N, the realised cost of the N workers */
	double efficiency;  /* e = T_s/(N·T_p) */
	long long start_ns; /* when the choice was made (CLOCK_MONOTONIC), for fp_model_chooser_record */
} fp_model_choice;

/* fp_model_chooser_new makes a chooser for the region from → to (as in
 * fp_model_amdahl; NULL, NULL: the whole run) on workers threads; opt may be NULL. */
int fp_model_chooser_new(const fp_model *m, const char *from, const char *to, int workers,
                         const fp_model_chooser_options *opt, fp_model_chooser **out);

/* fp_model_choose says how to run a call with these inputs (ch->workers). */
int fp_model_choose(fp_model_chooser *c, const fp_model_value *inputs, int n, fp_model_choice *ch);

/* fp_model_chooser_record records a call the choice ch was made for, run on
 * workers threads (1 or N; ch->workers unless the program ran it otherwise),
 * that took elapsed_ns (< 0: from ch->start_ns to now). */
int fp_model_chooser_record(fp_model_chooser *c, const fp_model_choice *ch, int workers, double elapsed_ns);

/* fp_model_chooser_free releases a chooser; NULL is allowed. */
void fp_model_chooser_free(fp_model_chooser *c);

/* fp_model_load_env is fp_model_load of the file named by the environment
 * variable FRAGPROF_MODEL (FP_MODEL_EIO when it is not set). Cost: as
 * fp_model_load. */
int fp_model_load_env(fp_model **out);

/* Online learning. fp_model_learn_start starts a background thread that refits
 * the model's transition times to what this run measures, so that predictions
 * follow this machine and its load: each arc's time formula keeps its shape
 * and takes the factor c = median(y / f) over the last `window` transitions of
 * the arc (f the formula's time, y the measured), with 1.4826 · median
 * |y − c·f| as its standard error (robust: a time slice lost to another
 * program does not move them). A change — `change_run` transitions in a row
 * beyond 3 standard deviations on one side of the current fit — cuts the
 * window to them, so that after a change the fit follows within change_run + 3
 * transitions of the arc (docs/predict.md). fp_model_predict_time, _region,
 * _amdahl on a region, and the graph model's time of a run use the refitted
 * arcs; queries never wait for the learner (they read what it last
 * published). The inputs are the run's own. In a program built by fragprof
 * (`fragprof cc`), the checkpoints of the thread that called
 * fp_model_learn_start feed the learner by themselves (FP_POINT,
 * FP_POINT_VARS; one learning model per process); any program can feed it with
 * fp_model_observe. A checkpoint the model does not know makes every later
 * query fail with FP_MODEL_EMISMATCH, naming it. The learner is stopped by fp_model_learn_stop or
 * fp_model_free. Start it before the run's first checkpoint (its counters
 * start at 0). Cost: a thread, O(arcs × window) memory and the ring (128
 * bytes an event), written once at the start so that no page fault falls on
 * the program later: about 2 MB and a millisecond by default; then, in the
 * background, O(window · log window) per transition. */
typedef struct fp_model_learn_options {
	int window;        /* transitions per arc refitted (64) */
	int change_run;    /* the run that marks a change (8) */
	unsigned ring;     /* events buffered for the learner (16384); more are dropped and counted */
} fp_model_learn_options;

int fp_model_learn_start(fp_model *m, const fp_model_value *inputs, int n, const fp_model_learn_options *opt);

/* fp_model_observe appends a checkpoint's event for the learner: its name, its
 * time in ns (t_ns < 0: now, CLOCK_MONOTONIC) and the values recorded there.
 * Call it from one thread, the one whose run the model describes. Its cost is
 * a timestamp and a few stores (no lock, no system call); when the learner
 * lags by the whole ring the event is dropped and counted. */
int fp_model_observe(fp_model *m, const char *point, double t_ns, const fp_model_value *values, int n);

/* fp_model_learn_sync waits until the learner has taken in every event
 * appended before the call (for tests and for a program that wants the
 * freshest fit; queries do not need it). Cost: the learner's lag, polled every
 * 0.1 ms. */
int fp_model_learn_sync(fp_model *m);

/* fp_model_learn_stop stops the learner and frees its memory; the refitted
 * arcs stay in use. Call it (or fp_model_free) from the thread that feeds the
 * learner, once no fp_model_observe is under way. Cost: joining the thread (up to 0.2 ms, its sleep). */
int fp_model_learn_stop(fp_model *m);

/* What the learner has done. */
typedef struct fp_model_learning {
	unsigned long long appended, processed, dropped; /* events */
	unsigned long long rows;                         /* transitions refitted on */
	unsigned long long changes;                      /* windows cut at a change */
	unsigned long long unknown;                      /* events at checkpoints the model does not know */
} fp_model_learning;

/* fp_model_learn_stats fills s (all 0 when the model is not learning). O(1). */
int fp_model_learn_stats(const fp_model *m, fp_model_learning *s);

#ifdef __cplusplus
}
#endif
#endif
