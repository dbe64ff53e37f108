/* timing.c: fragment timers (fragprof time).
 *
 * A fragment is a named piece of code timed from its begin to its end:
 *   region:NAME  FP_BEGIN("NAME") ... FP_END("NAME") in the program (fragprof.h);
 *   func:NAME    a function, whose entry and every return fragprof's IR edit
 *                (internal/instrument/timers.go) brackets with the same calls.
 * Only the outermost activation of a fragment (per thread) is timed: a recursive
 * function, or a region entered again before it ended, is one sample from the first
 * begin to the matching last end.
 *
 * Timers (FRAGPROF_TIMER, read once):
 *   tsc            lfence; rdtsc; lfence: the first lfence waits until every earlier
 *                  instruction has completed locally, the second keeps later ones from
 *                  starting before the counter is read (Intel SDM vol. 2, RDTSC; AMD
 *                  makes lfence dispatch-serialising, which Linux enables);
 *   rdtscp         rdtscp; lfence: rdtscp itself waits for earlier instructions;
 *   monotonic, monotonic_raw, process (CLOCK_PROCESS_CPUTIME_ID),
 *   thread (CLOCK_THREAD_CPUTIME_ID)   clock_gettime.
 * The default is tsc when the CPU has one, else monotonic. TSC ticks become
 * nanoseconds through a frequency calibrated against CLOCK_MONOTONIC_RAW over the
 * process's lifetime (from the first timer use to the dump; in a fork-server trial the
 * server's start, so the baseline grows with every trial), or FRAGPROF_TSC_HZ when set.
 * Whether the TSC is invariant (cpuid 0x80000007, EDX bit 8: constant rate in every
 * P-, C- and T-state) is reported, not required.
 *
 * The timer's own overhead — what an empty fragment measures: the rest of the begin
 * call after its read plus the start of the end call before its read — is measured
 * at the dump (the median of 2001 empty fragments through the same two functions) and
 * written beside the raw samples; fragprof subtracts it and says so. Samples are
 * raw ticks, unsubtracted.
 *
 * Every call site registers its slot in the section fragprof_sites; a constructor
 * resolves them all and touches the timer's memory before main, and again in every
 * forked child (pthread_atfork), so that no page fault of the timer's own lands in a
 * fragment. A program without fragments is left alone.
 *
 * FRAGPROF_CPU=N pins the process (and so every trial forked from it) to CPU N.
 * FRAGPROF_TIME_MAX caps the samples kept per fragment and process (default 2^20);
 * the activations beyond it are counted as dropped.
 *
 * At the dump all fragments go out in one record of type 1 on the extra channel
 * (rt_io.c); the payload is documented in docs/timing.md. The hook is
 * async-signal-safe (no allocation, only write; a lock held by the interrupted code
 * is waited for a bounded time, then the record is given up).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FP_HAVE_TSC 1
#else
#define FP_HAVE_TSC 0
#endif

#include "fp_internal.h"

#define FP_TIMING_RECORD 1u
#define FP_MAXFRAG 256
#define FP_OVERHEAD_REPS 2001

enum { FP_T_TSC, FP_T_RDTSCP, FP_T_MONO, FP_T_MONO_RAW, FP_T_PROCESS, FP_T_THREAD, FP_NTIMERS };
static const char *const tm_timer_names[FP_NTIMERS] = {"tsc", "rdtscp", "monotonic", "monotonic_raw", "process", "thread"};
static const clockid_t tm_timer_clocks[FP_NTIMERS] = {0, 0, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
                                                   CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID};

/* Record flags (docs/timing.md). */
#define FP_TF_INVARIANT 1u /* cpuid says the TSC is invariant */
#define FP_TF_HZ_ENV 2u    /* the TSC frequency came from FRAGPROF_TSC_HZ */
#define FP_TF_SIGNAL 4u    /* written on a fatal signal */
#define FP_TF_PINNED 8u    /* FRAGPROF_CPU pinned the process */

struct fp_frag {
	const char *name; /* static storage: a literal or an IR constant */
	uint32_t namelen;
	uint32_t unmatched; /* ends without a begin */
	uint32_t dropped;   /* samples beyond the cap, or lost to a failed allocation */
	uint32_t n, cap;
	uint64_t *samples;
};

/* Index FP_MAXFRAG of the per-thread arrays is the timer's own empty fragment, used
 * only to measure the overhead (tm_overhead). */
#define FP_OVH FP_MAXFRAG

static struct fp_frag tm_frags[FP_MAXFRAG] FP_BULK;
static uint32_t tm_nfrags;
static int tm_frag_lock;
static int tm_timer = -1;
static int tm_invariant_tsc;
static int tm_pinned;
static uint32_t tm_sample_cap = 1u << 20;
static double tm_hz_env; /* FRAGPROF_TSC_HZ, or 0 */
static uint64_t tm_cal_tsc0;
static struct timespec tm_cal_raw0;
static uint64_t tm_ovh_buf[FP_OVERHEAD_REPS] FP_BULK;
static uint32_t tm_ovh_n;

static __thread uint32_t tm_tl_depth[FP_MAXFRAG + 1] __attribute__((tls_model("initial-exec")));
static __thread uint64_t tm_tl_start[FP_MAXFRAG + 1] __attribute__((tls_model("initial-exec")));

static void tm_lock(void) {
	while (__atomic_exchange_n(&tm_frag_lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&tm_frag_lock, __ATOMIC_RELAXED))
			;
}

/* tm_trylock tries a bounded number of times: a fatal signal may arrive while the
 * interrupted code holds the lock, and the handler must not wait for it forever. */
static int tm_trylock(void) {
	for (int k = 0; k < 1000000; k++)
		if (!__atomic_exchange_n(&tm_frag_lock, 1, __ATOMIC_ACQUIRE))
			return 1;
	return 0;
}

static void tm_unlock(void) { __atomic_store_n(&tm_frag_lock, 0, __ATOMIC_RELEASE); }

static inline uint64_t tm_read_tsc(void) {
#if FP_HAVE_TSC
	__builtin_ia32_lfence();
	uint64_t t = __builtin_ia32_rdtsc();
	__builtin_ia32_lfence();
	return t;
#else
	return 0;
#endif
}

static inline uint64_t tm_read_rdtscp(void) {
#if FP_HAVE_TSC
	unsigned aux;
	uint64_t t = __builtin_ia32_rdtscp(&aux);
	__builtin_ia32_lfence();
	return t;
#else
	return 0;
#endif
}

static inline uint64_t tm_read_clock(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tm_now reads the selected timer. */
static inline uint64_t tm_now(void) {
	switch (tm_timer) {
	case FP_T_TSC:
		return tm_read_tsc();
	case FP_T_RDTSCP:
		return tm_read_rdtscp();
	default:
		return tm_read_clock(tm_timer_clocks[tm_timer]);
	}
}

static int tm_have_tsc(void) {
#if FP_HAVE_TSC
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4)))
		return 0;
	if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
		tm_invariant_tsc = 1;
	return 1;
#else
	return 0;
#endif
}

static int tm_have_rdtscp(void) {
#if FP_HAVE_TSC
	unsigned a, b, c, d;
	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
#else
	return 0;
#endif
}

static void tm_flush_timing(int sig);

/* tm_cal_pair reads CLOCK_MONOTONIC_RAW and the TSC at (nearly) the same instant:
 * the clock between two TSC reads, the TSC taken as their midpoint, and of five such
 * triples the one with the narrowest bracket. A single (clock, TSC) pair can be
 * split by a page fault or an interrupt — in a freshly exec'd process the first
 * reads fault in the vDSO and the code, tens of microseconds under nested paging —
 * and over a baseline of a millisecond or two that skew alone misstates the
 * frequency by a percent. */
static void tm_cal_pair(struct timespec *raw, uint64_t *tsc) {
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		struct timespec ts;
		uint64_t a = tm_read_tsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		uint64_t b = tm_read_tsc();
		if (b - a < best) {
			best = b - a;
			*raw = ts;
			*tsc = a + (b - a) / 2;
		}
	}
}

/* tm_timing_init selects the timer and starts the calibration baseline (once). */
static void tm_timing_init(void) {
	if (__atomic_load_n(&tm_timer, __ATOMIC_ACQUIRE) >= 0)
		return;
	int tsc = tm_have_tsc();
	const char *t = fp_getenv("FRAGPROF_TIMER");
	int sel = tsc ? FP_T_TSC : FP_T_MONO;
	if (t && *t) {
		for (int i = 0; i < FP_NTIMERS; i++)
			if (strcmp(t, tm_timer_names[i]) == 0)
				sel = i;
	}
	if ((sel == FP_T_TSC && !tsc) || (sel == FP_T_RDTSCP && !(tsc && tm_have_rdtscp())))
		sel = FP_T_MONO; /* the record names the timer actually used */
	const char *hz = fp_getenv("FRAGPROF_TSC_HZ");
	if (hz && *hz)
		tm_hz_env = strtod(hz, 0);
	const char *cap = fp_getenv("FRAGPROF_TIME_MAX");
	if (cap && *cap)
		tm_sample_cap = (uint32_t)strtoul(cap, 0, 10);
	const char *cpu = fp_getenv("FRAGPROF_CPU");
	if (cpu && *cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		tm_pinned = sched_setaffinity(0, sizeof set, &set) == 0;
	}
	tm_cal_pair(&tm_cal_raw0, &tm_cal_tsc0);
	__fragprof_on_dump(tm_flush_timing);
	__atomic_store_n(&tm_timer, sel, __ATOMIC_RELEASE);
}

/* Every fragment's call sites are registered in the section fragprof_sites (by
 * FP_BEGIN/FP_END, and by the func: edit), so the constructor can resolve them all
 * before main: a fork server then forks trials that never write a slot. */
struct fp_site {
	int *slot;
	const char *name;
};
extern struct fp_site __start_fragprof_sites[] __attribute__((weak));
extern struct fp_site __stop_fragprof_sites[] __attribute__((weak));

static int tm_resolve(int *slot, const char *name);
static void tm_prefault(void);

/* tm_sample_init gives fragment i a first sample buffer (before any timing). */
static void tm_sample_init(int i) {
	struct fp_frag *f = &tm_frags[i];
	if (f->cap == 0 && tm_sample_cap > 0) {
		uint32_t c = tm_sample_cap < 256 ? tm_sample_cap : 256;
		f->samples = malloc((size_t)c * sizeof *f->samples);
		if (f->samples)
			f->cap = c;
	}
}

/* The constructor starts the calibration baseline early (a fork server starts it
 * before its first trial, so every trial inherits a baseline that keeps growing),
 * resolves the registered call sites and touches the timer's memory. After a fork
 * the child touches it again: the copy-on-write faults of the first writes then
 * happen before the program's main, not inside the fragments that enclose the
 * first timer calls. */
__attribute__((constructor(102))) static void tm_timing_ctor(void) {
	int sites = __start_fragprof_sites && __stop_fragprof_sites && __start_fragprof_sites < __stop_fragprof_sites;
	const char *t = fp_getenv("FRAGPROF_TIMER");
	if (!sites && !(t && *t))
		return; /* no fragments: a program that only counts is left alone */
	tm_timing_init();
	if (sites)
		for (struct fp_site *s = __start_fragprof_sites; s < __stop_fragprof_sites; s++) {
			int i = tm_resolve(s->slot, s->name);
			if (i >= 0)
				tm_sample_init(i);
		}
	tm_prefault();
	pthread_atfork(0, 0, tm_prefault);
}

/* tm_prefault writes to every page the timer writes while timing, and reads the
 * clocks once: the first clock_gettime of a new process faults in the vDSO's data
 * page (microseconds), which would otherwise land in the first fragment that reads
 * a clock. */
static void tm_prefault(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	volatile char *p;
	/* The pages of the fragments in use (the sites', resolved by the constructor),
	 * not the whole table: a page costs a fault (3 us), and a fragment resolved
	 * later touches its entry before its start time is read. */
	for (size_t k = 0; k < tm_nfrags * sizeof *tm_frags; k += 4096) {
		p = (volatile char *)tm_frags + k;
		*p = *p;
	}
	for (size_t k = 0; k < sizeof tm_tl_depth; k += 4096) {
		p = (volatile char *)tm_tl_depth + k;
		*p = *p;
	}
	for (size_t k = 0; k < sizeof tm_tl_start; k += 4096) {
		p = (volatile char *)tm_tl_start + k;
		*p = *p;
	}
	p = (volatile char *)&tm_frag_lock;
	*p = *p;
	for (uint32_t i = 0; i < tm_nfrags; i++) {
		struct fp_frag *f = &tm_frags[i];
		for (size_t k = 0; k < (size_t)f->cap * 8; k += 4096) {
			p = (volatile char *)f->samples + k;
			*p = *p;
		}
	}
}

/* tm_resolve finds or adds the fragment called name; the slot caches index + 1. */
static int tm_resolve(int *slot, const char *name) {
	tm_timing_init();
	tm_lock();
	uint32_t i;
	for (i = 0; i < tm_nfrags; i++)
		if (strcmp(tm_frags[i].name, name) == 0)
			break;
	if (i == tm_nfrags) {
		if (tm_nfrags == FP_MAXFRAG) {
			tm_unlock();
			return -1;
		}
		tm_frags[i].name = name;
		tm_frags[i].namelen = (uint32_t)strlen(name);
		tm_nfrags++;
	}
	tm_unlock();
	__atomic_store_n(slot, (int)i + 1, __ATOMIC_RELAXED);
	return (int)i;
}

static void tm_add_sample(int i, uint64_t d) {
	if (i == FP_OVH) {
		tm_ovh_buf[tm_ovh_n++ % FP_OVERHEAD_REPS] = d;
		return;
	}
	struct fp_frag *f = &tm_frags[i];
	tm_lock();
	if (f->n == f->cap) {
		uint32_t c = f->cap ? f->cap * 2 : 256;
		if (c > tm_sample_cap)
			c = tm_sample_cap;
		uint64_t *p = c > f->cap ? realloc(f->samples, (size_t)c * sizeof *p) : 0;
		if (!p) {
			f->dropped++;
			tm_unlock();
			return;
		}
		f->samples = p;
		f->cap = c;
	}
	f->samples[f->n++] = d;
	tm_unlock();
}

/* __fragprof_frag_begin starts the fragment name (its outermost activation in this
 * thread). The timer is read last. */
__attribute__((noinline)) void __fragprof_frag_begin(int *slot, const char *name) {
	int i = __atomic_load_n(slot, __ATOMIC_RELAXED) - 1;
	if (i < 0 && (i = tm_resolve(slot, name)) < 0)
		return;
	if (tm_tl_depth[i]++ == 0)
		tm_tl_start[i] = tm_now();
}

/* __fragprof_frag_end ends it. The timer is read first. */
__attribute__((noinline)) void __fragprof_frag_end(int *slot, const char *name) {
	uint64_t t = tm_now();
	int i = __atomic_load_n(slot, __ATOMIC_RELAXED) - 1;
	if (i < 0 && (i = tm_resolve(slot, name)) < 0)
		return;
	if (tm_tl_depth[i] == 0) {
		if (i != FP_OVH)
			__atomic_fetch_add(&tm_frags[i].unmatched, 1, __ATOMIC_RELAXED);
		return;
	}
	if (--tm_tl_depth[i] == 0)
		tm_add_sample(i, t - tm_tl_start[i]);
}

/* ---- for the probe (internal/timing/csrc/probe.c) and the dump ---- */

int __fragprof_timer_count(void) { return FP_NTIMERS; }
const char *__fragprof_timer_name(int t) { return t >= 0 && t < FP_NTIMERS ? tm_timer_names[t] : 0; }
int __fragprof_timer_selected(void) {
	tm_timing_init();
	return tm_timer;
}

/* __fragprof_timer_use selects timer t for this process (the probe), or returns -1
 * when this machine lacks it. */
int __fragprof_timer_use(int t) {
	tm_timing_init();
	if (t < 0 || t >= FP_NTIMERS)
		return -1;
	if ((t == FP_T_TSC || t == FP_T_RDTSCP) && !tm_have_tsc())
		return -1;
	if (t == FP_T_RDTSCP && !tm_have_rdtscp())
		return -1;
	tm_timer = t;
	return 0;
}

/* __fragprof_timer_now reads the selected timer, in ticks. */
__attribute__((noinline)) uint64_t __fragprof_timer_now(void) { return tm_now(); }

/* __fragprof_timer_res returns clock_getres of timer t in ns (0 for the TSC). */
double __fragprof_timer_res(int t) {
	if (t == FP_T_TSC || t == FP_T_RDTSCP || t < 0 || t >= FP_NTIMERS)
		return 0;
	struct timespec ts;
	if (clock_getres(tm_timer_clocks[t], &ts) != 0)
		return -1;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int __fragprof_tsc_invariant(void) {
	tm_timing_init();
	return tm_invariant_tsc;
}

/* __fragprof_tsc_calibrate returns TSC ticks per second over the interval since the
 * baseline, and the baseline's length in ns. */
double __fragprof_tsc_calibrate(double *span_ns) {
	struct timespec now;
	uint64_t t;
	tm_cal_pair(&now, &t);
	double raw0 = (double)tm_cal_raw0.tv_sec * 1e9 + (double)tm_cal_raw0.tv_nsec;
	double span = (double)now.tv_sec * 1e9 + (double)now.tv_nsec - raw0;
	if (span_ns)
		*span_ns = span;
	return span > 0 ? (double)(t - tm_cal_tsc0) / span * 1e9 : 0;
}

/* tm_ns_per_tick calibrates the selected timer; at least 1 ms of baseline. */
static double tm_ns_per_tick(double *span, int *from_env) {
	*span = 0;
	*from_env = 0;
	if (tm_timer != FP_T_TSC && tm_timer != FP_T_RDTSCP)
		return 1;
	if (tm_hz_env > 0) {
		*from_env = 1;
		return 1e9 / tm_hz_env;
	}
	double hz = __fragprof_tsc_calibrate(span);
	while (*span < 1e6)
		hz = __fragprof_tsc_calibrate(span);
	return hz > 0 ? 1e9 / hz : 0;
}

/* tm_select_kth returns the k-th smallest of a[0..n) (quickselect; reorders a). */
static uint64_t tm_select_kth(uint64_t *a, uint32_t n, uint32_t k) {
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint64_t p = a[(lo + hi) / 2];
		uint32_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				uint64_t x = a[i];
				a[i] = a[j];
				a[j] = x;
				i++;
				if (j == 0)
					break;
				j--;
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

/* __fragprof_timer_overhead measures FP_OVERHEAD_REPS empty fragments through the
 * real begin and end functions (the slot of the timer's own fragment is preset, so
 * nothing is looked up) and returns the median and the minimum, in ticks. It takes
 * no lock and allocates nothing. */
void __fragprof_timer_overhead(double *median, double *minimum) {
	static int slot = FP_OVH + 1;
	static const char name[] = "fragprof:overhead";
	tm_timing_init();
	tm_ovh_n = 0;
	tm_tl_depth[FP_OVH] = 0;
	for (int r = 0; r < FP_OVERHEAD_REPS; r++) {
		__fragprof_frag_begin(&slot, name);
		__fragprof_frag_end(&slot, name);
	}
	uint32_t n = tm_ovh_n < FP_OVERHEAD_REPS ? tm_ovh_n : FP_OVERHEAD_REPS;
	if (n == 0) {
		*median = *minimum = 0;
		return;
	}
	uint64_t mn = tm_ovh_buf[0];
	for (uint32_t k = 1; k < n; k++)
		if (tm_ovh_buf[k] < mn)
			mn = tm_ovh_buf[k];
	*minimum = (double)mn;
	*median = (double)tm_select_kth(tm_ovh_buf, n, n / 2);
}

static void tm_put32(unsigned char *b, uint32_t v) {
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static void tm_putf64(unsigned char *b, double v) { memcpy(b, &v, 8); }

/* tm_flush_timing writes one type-1 record with every fragment's samples, then forgets
 * them (an in-process trial reuses the process). */
static void tm_flush_timing(int sig) {
	if (tm_timer < 0 || tm_nfrags == 0)
		return;
	int used = 0;
	for (uint32_t i = 0; i < tm_nfrags; i++)
		used |= tm_frags[i].n || tm_frags[i].dropped || tm_frags[i].unmatched || tm_tl_depth[i];
	if (!used)
		return;
	int fd = __fragprof_extra_fd();
	if (fd < 0)
		return;
	double span, med, mn;
	int env;
	double npt = tm_ns_per_tick(&span, &env);
	__fragprof_timer_overhead(&med, &mn);
	if (sig ? !tm_trylock() : (tm_lock(), 0))
		return; /* a fatal signal interrupted a sample being stored */
	uint64_t len = 56;
	for (uint32_t i = 0; i < tm_nfrags; i++)
		len += 24 + (tm_frags[i].namelen + 7) / 8 * 8 + (uint64_t)tm_frags[i].n * 8;
	if (len > 0xFFFFFFFFu) {
		tm_unlock();
		return;
	}
	unsigned char h[64];
	tm_put32(h, FP_TIMING_RECORD);
	tm_put32(h + 4, (uint32_t)len);
	memcpy(h + 8, "FPTM", 4);
	tm_put32(h + 12, 1); /* version */
	tm_put32(h + 16, (uint32_t)tm_timer);
	uint32_t flags = (tm_invariant_tsc ? FP_TF_INVARIANT : 0) | (env ? FP_TF_HZ_ENV : 0) | (sig ? FP_TF_SIGNAL : 0) |
	                 (tm_pinned ? FP_TF_PINNED : 0);
	tm_put32(h + 20, flags);
	tm_putf64(h + 24, npt);
	tm_putf64(h + 32, span);
	tm_putf64(h + 40, med);
	tm_putf64(h + 48, mn);
	tm_put32(h + 56, FP_OVERHEAD_REPS);
	tm_put32(h + 60, tm_nfrags);
	int bad = __fragprof_write_all(fd, h, sizeof h) < 0;
	static const char zeros[8];
	for (uint32_t i = 0; i < tm_nfrags && !bad; i++) {
		struct fp_frag *f = &tm_frags[i];
		unsigned char fh[24];
		tm_put32(fh, f->namelen);
		tm_put32(fh + 4, f->n);
		tm_put32(fh + 8, f->dropped);
		tm_put32(fh + 12, tm_tl_depth[i] ? 1 : 0); /* open in the dumping thread */
		tm_put32(fh + 16, f->unmatched);
		tm_put32(fh + 20, 0);
		uint32_t pad = (8 - f->namelen % 8) % 8;
		bad = __fragprof_write_all(fd, fh, sizeof fh) < 0 || __fragprof_write_all(fd, f->name, f->namelen) < 0 ||
		      (pad && __fragprof_write_all(fd, zeros, pad) < 0) ||
		      (f->n && __fragprof_write_all(fd, f->samples, (size_t)f->n * 8) < 0);
		f->n = f->dropped = f->unmatched = 0;
		tm_tl_depth[i] = 0;
	}
	tm_unlock();
}
