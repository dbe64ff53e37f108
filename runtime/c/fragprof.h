/* fragprof.h: the interface between a C program and the fragprof runtime.
 *
 * Programs built by fragprof (fragprof count, fragprof cc, ...) may include this
 * header; it is on the include path of every fragprof build. Without fragprof the
 * macros compile to nothing.
 */
#ifndef FRAGPROF_H
#define FRAGPROF_H

#ifdef __FRAGPROF__
/* fragprof_dump writes the counts now (once per process), as at exit. */
void __fragprof_dump(int sig);
#define FRAGPROF_DUMP() __fragprof_dump(0)
#else
#define FRAGPROF_DUMP() ((void)0)
#endif

/* Fragment timing (fragprof time, docs/timing.md). FP_BEGIN("name") and
 * FP_END("name") bracket the region "region:name"; the name must be a string literal.
 * Only the outermost activation of a region (per thread) is timed, so a region may
 * nest in itself (recursion). Without fragprof both compile to nothing. */
#ifdef __FRAGPROF__
void __fragprof_frag_begin(int *slot, const char *name);
void __fragprof_frag_end(int *slot, const char *name);
/* Each call site registers its slot in the section fragprof_sites, so the runtime
 * resolves every fragment before main (and before a fork server's first fork). */
struct __fragprof_site {
	int *slot;
	const char *name;
};
#define FP_SITE_CALL_(fn, name)                                                            \
	do {                                                                                   \
		static int __fragprof_slot;                                                        \
		static struct __fragprof_site __fragprof_site                                      \
		    __attribute__((section("fragprof_sites"), used)) = {&__fragprof_slot, "region:" name}; \
		fn(&__fragprof_slot, "region:" name);                                              \
	} while (0)
#define FP_BEGIN(name) FP_SITE_CALL_(__fragprof_frag_begin, name)
#define FP_END(name) FP_SITE_CALL_(__fragprof_frag_end, name)
#else
#define FP_BEGIN(name) ((void)0)
#define FP_END(name) ((void)0)
#endif

#endif

/* Checkpoints for the prediction metalayer (fragprof trace; docs/predict.md).
 *
 *   FP_POINT("name");                           pass the checkpoint "name"
 *   FP_POINT_VARS("name", FP_I(i), FP_D(err));  ... recording variables by name
 *
 * A checkpoint's name is its node in the transition graph: several places may share
 * one. Variables: FP_I(x) any signed integer type, FP_U(x) unsigned (size_t, ...),
 * FP_D(x) double or float; each is recorded under the text of x. Tracing happens
 * only in programs built by fragprof and run by `fragprof trace` (FRAGPROF_TRACE=1);
 * otherwise a checkpoint is a load and a compare, and without __FRAGPROF__ the
 * macros compile to nothing. The runtime is in runtime/c/trace.c. */
#ifndef FRAGPROF_TRACE_H
#define FRAGPROF_TRACE_H
/* One recorded variable: kind 1 signed, 2 unsigned, 3 double. */
struct __fragprof_var {
	const char *name;
	int kind;
	union {
		long long i;
		unsigned long long u;
		double d;
	} v;
};
#ifdef __FRAGPROF__
void __fragprof_point(unsigned int *site, const char *name, const char *file, int line);
void __fragprof_point_vars(unsigned int *site, const char *name, const char *file, int line, int n,
                           const struct __fragprof_var *vars);
#define FP_I(x) {#x, 1, {.i = (long long)(x)}}
#define FP_U(x) {#x, 2, {.u = (unsigned long long)(x)}}
#define FP_D(x) {#x, 3, {.d = (double)(x)}}
#define FP_POINT(name)                                                                             \
	do {                                                                                           \
		static unsigned int __fp_site;                                                             \
		__fragprof_point(&__fp_site, (name), __FILE__, __LINE__);                                  \
	} while (0)
#define FP_POINT_VARS(name, ...)                                                                   \
	do {                                                                                           \
		static unsigned int __fp_site;                                                             \
		const struct __fragprof_var __fp_vars[] = {__VA_ARGS__};                                   \
		__fragprof_point_vars(&__fp_site, (name), __FILE__, __LINE__,                              \
		                      (int)(sizeof __fp_vars / sizeof __fp_vars[0]), __fp_vars);           \
	} while (0)
#else
#define FP_POINT(name) ((void)0)
#define FP_POINT_VARS(name, ...) ((void)0)
#endif
#endif
