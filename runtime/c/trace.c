/* trace.c: checkpoint traces for the prediction metalayer (fragprof trace).
 *
 * A checkpoint (FP_POINT, FP_POINT_VARS in fragprof.h, or one inserted in the IR by
 * --auto-checkpoints) appends an event — its site id, a timestamp and the values of
 * its variables — to a buffer owned by the calling thread. A background drainer
 * thread empties the buffers into a private memfd as framed records; at the dump
 * (exit, a fatal signal, the end of a fork-server trial) the rest is drained and the
 * whole trace is copied to the extra channel (rt_io.c) as records of type 2. The
 * layout is in docs/trace-format.md.
 *
 * The fast path takes no lock and makes no system call: one relaxed load of the
 * site id, one thread-local load, a generation check, rdtsc (or clock_gettime with
 * FRAGPROF_TRACE_CLOCK=monotonic, or the thread's CPU time with =thread, which a
 * loaded machine's preemptions do not disturb but which costs a system call), a few
 * stores and one release store. A thread's
 * buffer is a singly linked list of chunks: the thread writes to its last chunk and
 * publishes how many words it holds; the drainer reads up to the published count and
 * frees (recycles) a chunk once the thread has moved on to the next. A chunk is taken
 * from a mutex-protected free list or mapped once per ~5000 events: off the fast path.
 *
 * Tracing is off unless FRAGPROF_TRACE=1 is in the environment and the extra channel
 * exists; then every checkpoint is a load and a compare. FRAGPROF_TRACE_MAX bounds
 * the events of one process (default 16M): later events are counted as lost and the
 * trace is marked truncated. FRAGPROF_TRACE_STOP=NS makes the run a probe: the first
 * checkpoint at least NS nanoseconds of the trace's clock after the first one ends
 * the process (exit(0), which writes the trace), and END says it was stopped
 * (model predict --probe: the rate of a large input's first part);
 * FRAGPROF_TRACE_STOP_EVENTS=N ends it at the N-th checkpoint of any thread.
 *
 * A process forked by a traced program records nothing (the trace is the traced
 * process's own); the fork server's trials are forked before any checkpoint, and
 * each starts its trace at its first.
 *
 * In a unity build with the other runtime files: every file-scope name starts with tr_
 * or __fragprof_.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fp_internal.h"
#include "fragprof.h"

#define TR_RECORD_TYPE 2u
/* Payload kinds of type-2 records (docs/trace-format.md). */
#define TR_HEADER 1u
#define TR_SITE 2u
#define TR_EVENTS 3u
#define TR_END 4u

#define TR_VERSION 1u
#define TR_CLOCK_TSC 1u
#define TR_CLOCK_MONO 2u
#define TR_CLOCK_THREAD 3u /* CLOCK_THREAD_CPUTIME_ID: immune to preemption, ~1 µs a reading */

#define TR_MAXVARS 64
/* 16000 words: 128,000 bytes. A chunk is a mapping of its own (32 pages), not heap
 * memory: the program's heap stays as in a run without tracing, and the runtime's
 * share of the resident set is the chunks' pages, which the working set leaves out
 * (END record). */
#define TR_CHUNK_WORDS 16000u
#define TR_GEN_CLOSED 0xFFFFFFFFu

struct tr_chunk {
	uint64_t used;         /* words published (producer: release; drainer: acquire) */
	struct tr_chunk *next; /* set by the producer when it moves on (release) */
	uint64_t w[TR_CHUNK_WORDS];
};

struct tr_buf {
	struct tr_chunk *cur; /* producer's chunk */
	uint64_t pos;         /* producer's position in cur (its private copy of used) */
	struct tr_chunk *rd;  /* drainer's chunk */
	uint64_t rdpos;       /* drainer's position in rd */
	uint32_t thread;      /* 0 for the first thread that passed a checkpoint, ... */
	uint32_t gen;         /* the tracing generation the buffer belongs to */
	uint64_t lost;        /* events dropped: no memory, or over FRAGPROF_TRACE_MAX */
	uint64_t events;      /* events recorded (written by the producer only) */
	struct tr_buf *next;  /* all buffers of this generation (push-only list) */
};

struct tr_site {
	const char *name, *file;
	int line;
	int nvars;
	uint8_t kinds[TR_MAXVARS];
	const char *vars[TR_MAXVARS];
};

static int tr_wanted = -1; /* FRAGPROF_TRACE=1 seen (-1: not looked yet) */
static uint32_t tr_clock = TR_CLOCK_TSC;
static uint64_t tr_max_words = (uint64_t)16 << 20 << 2; /* 16M events of ~4 words */
static double tr_ns_per_tick = 1;                         /* calibrated at start */
static double tr_overhead_ns;                             /* cost of one checkpoint */
static int tr_calibrated;
/* tr_clock_fallback is set when the TSC's calibration was unstable and the
 * monotonic clock is used instead (HEADER flag 1). */
static uint32_t tr_clock_fallback;

/* The generation: 0 before the first checkpoint of a process, TR_GEN_CLOSED once the
 * trace was written (or tracing is off), else the current one. A thread whose buffer
 * is of another generation (a child after fork, or a closed trace) takes the slow
 * path. */
static uint32_t tr_gen;
static uint32_t tr_next_gen = 1;
static pid_t tr_pid;
static __thread struct tr_buf *tr_tls __attribute__((tls_model("initial-exec")));

static pthread_mutex_t tr_mu = PTHREAD_MUTEX_INITIALIZER; /* sites, init, free list */
static struct tr_site *tr_sites;                          /* tr_sites[id-1] */
static uint32_t tr_nsites, tr_capsites;
static struct tr_buf *tr_bufs; /* push-only list, head */
static uint32_t tr_nthreads;
static struct tr_chunk *tr_free; /* recycled chunks, linked by next */
static int tr_nfree;
/* Chunks mapped and not unmapped, and their most at once: the runtime's share of the
 * process's peak resident set, left out of the working set (END record). */
static uint64_t tr_chunks_live, tr_chunks_peak;
/* The anonymous resident set before the program's main, in bytes (0: not read):
 * the base of the working set (__fragprof_trace_base). */
static uint64_t tr_rss0;
/* /proc/self/statm, open while a trace with a base runs, and the largest anonymous
 * resident set the drainer saw in it (bytes). */
static int tr_statm_fd = -1;
static uint64_t tr_anon_seen;
static uint64_t tr_words; /* words handed out in chunks so far (for the limit) */
static int tr_truncated;
/* The probe's budget (FRAGPROF_TRACE_STOP, ns; 0: none), its deadline in ticks of
 * the trace's clock (0 until the first event sets it: that event takes tr_spent's
 * path), and whether it ended the run. */
static uint64_t tr_stop_ns;
static uint64_t tr_deadline = UINT64_MAX;
static uint64_t tr_stop_events = UINT64_MAX; /* FRAGPROF_TRACE_STOP_EVENTS */
static int tr_stopped;

static int tr_fd = -1; /* private memfd the drainer writes framed records to */
static pthread_t tr_drainer;
static int tr_drainer_on;
static int tr_stop;     /* asks the drainer to stop (seq_cst, against tr_draining) */
static int tr_draining; /* the drainer is inside a drain pass */
static uint64_t tr_tick0, tr_ns0;

static uint64_t tr_mono(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t tr_now(void) {
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(tr_clock == TR_CLOCK_TSC, 1))
		return __builtin_ia32_rdtsc();
#endif
	if (tr_clock == TR_CLOCK_THREAD) {
		struct timespec ts;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return tr_mono();
}

/* ---- records ---------------------------------------------------------------- */

static int tr_write_framed(int fd, uint32_t kind, const void *p, size_t len, const void *q, size_t qlen) {
	uint32_t h[3] = {TR_RECORD_TYPE, (uint32_t)(4 + len + qlen), kind};
	struct iovec v[3] = {{h, sizeof h}, {(void *)p, len}, {(void *)q, qlen}};
	size_t total = sizeof h + len + qlen;
	int iov = 3;
	struct iovec *vp = v;
	while (total > 0) {
		ssize_t w = writev(fd, vp, iov);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		total -= (size_t)w;
		while (iov > 0 && (size_t)w >= vp->iov_len) {
			w -= (ssize_t)vp->iov_len;
			vp++;
			iov--;
		}
		if (iov > 0) {
			vp->iov_base = (char *)vp->iov_base + w;
			vp->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static void tr_put32(unsigned char *b, uint32_t v) { memcpy(b, &v, 4); }
static void tr_put64(unsigned char *b, uint64_t v) { memcpy(b, &v, 8); }

static void tr_write_header(void) {
	unsigned char b[48];
	memset(b, 0, sizeof b);
	tr_put32(b, TR_VERSION);
	tr_put32(b + 4, tr_clock);
	tr_put32(b + 8, (uint32_t)getpid());
	tr_put32(b + 12, tr_clock_fallback); /* flags: 1 = TSC unstable, monotonic used */
	tr_put64(b + 16, tr_tick0);
	tr_put64(b + 24, tr_ns0);
	memcpy(b + 32, &tr_ns_per_tick, 8);
	memcpy(b + 40, &tr_overhead_ns, 8);
	tr_write_framed(tr_fd, TR_HEADER, b, sizeof b, 0, 0);
}

/* tr_write_sites writes one SITE record per registered site. */
static void tr_write_sites(void) {
	for (uint32_t i = 0; i < tr_nsites; i++) {
		struct tr_site *s = &tr_sites[i];
		unsigned char b[12 + TR_MAXVARS];
		tr_put32(b, i + 1);
		tr_put32(b + 4, (uint32_t)s->line);
		tr_put32(b + 8, (uint32_t)s->nvars);
		memcpy(b + 12, s->kinds, (size_t)s->nvars);
		/* Strings: name, file, then the variables' names, each NUL-terminated. */
		char str[4096];
		size_t n = 0;
		const char *parts[2 + TR_MAXVARS];
		parts[0] = s->name ? s->name : "?";
		parts[1] = s->file ? s->file : "";
		for (int k = 0; k < s->nvars; k++)
			parts[2 + k] = s->vars[k] ? s->vars[k] : "?";
		for (int k = 0; k < 2 + s->nvars; k++) {
			size_t l = strlen(parts[k]);
			if (n + l + 1 > sizeof str)
				l = sizeof str > n + 1 ? sizeof str - n - 1 : 0;
			memcpy(str + n, parts[k], l);
			n += l;
			if (n < sizeof str)
				str[n++] = 0;
		}
		tr_write_framed(tr_fd, TR_SITE, b, 12 + (size_t)s->nvars, str, n);
	}
}

/* ---- chunks ------------------------------------------------------------------ */

/* tr_chunk_new maps a chunk; tr_chunk_free unmaps it. Both keep the count of the
 * chunks mapped and its peak. */
static struct tr_chunk *tr_chunk_new(void) {
	void *p = mmap(0, sizeof(struct tr_chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	uint64_t n = __atomic_add_fetch(&tr_chunks_live, 1, __ATOMIC_RELAXED);
	uint64_t peak = __atomic_load_n(&tr_chunks_peak, __ATOMIC_RELAXED);
	while (n > peak && !__atomic_compare_exchange_n(&tr_chunks_peak, &peak, n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return p;
}

static void tr_chunk_free(struct tr_chunk *c) {
	munmap(c, sizeof *c);
	__atomic_sub_fetch(&tr_chunks_live, 1, __ATOMIC_RELAXED);
}

static struct tr_chunk *tr_chunk_get(void) {
	struct tr_chunk *c = 0;
	pthread_mutex_lock(&tr_mu);
	if (tr_words + TR_CHUNK_WORDS > tr_max_words) {
		tr_truncated = 1;
		pthread_mutex_unlock(&tr_mu);
		return 0;
	}
	tr_words += TR_CHUNK_WORDS;
	if (tr_free) {
		c = tr_free;
		tr_free = c->next;
		tr_nfree--;
	}
	pthread_mutex_unlock(&tr_mu);
	if (!c && !(c = tr_chunk_new()))
		return 0;
	c->used = 0;
	c->next = 0;
	return c;
}

static void tr_chunk_put(struct tr_chunk *c) {
	pthread_mutex_lock(&tr_mu);
	if (tr_nfree < 32) {
		c->next = tr_free;
		tr_free = c;
		tr_nfree++;
		c = 0;
	}
	pthread_mutex_unlock(&tr_mu);
	if (c)
		tr_chunk_free(c);
}

/* ---- draining ------------------------------------------------------------------ */

/* tr_drain_buf writes what b's thread has published; it is called by the drainer, or
 * by the dumping thread once the drainer is stopped. */
static void tr_drain_buf(struct tr_buf *b) {
	uint32_t head[1] = {b->thread};
	for (;;) {
		struct tr_chunk *c = b->rd;
		uint64_t used = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE);
		struct tr_chunk *next = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
		if (next) /* the producer is done with c: its final count is visible now */
			used = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE);
		if (used > b->rdpos) {
			tr_write_framed(tr_fd, TR_EVENTS, head, 4, c->w + b->rdpos, (size_t)(used - b->rdpos) * 8);
			b->rdpos = used;
		}
		if (!next)
			return;
		b->rd = next;
		b->rdpos = 0;
		tr_chunk_put(c);
	}
}

static void tr_drain_all(void) {
	for (struct tr_buf *b = __atomic_load_n(&tr_bufs, __ATOMIC_ACQUIRE); b; b = b->next)
		tr_drain_buf(b);
}

/* tr_sample_anon reads the anonymous resident set from /proc/self/statm (resident −
 * shared, in pages; 3 µs with the file kept open) and keeps the largest. On this
 * kernel (6.18) /proc sums the per-CPU RSS counters: the reading is exact. It is
 * taken at the first checkpoint (before the time origin) and by the drainer on
 * every pass, because the peak the kernel keeps (VmHWM) is exact only while the
 * memory is mapped: when a program frees its arrays before it ends, the peak
 * recorded at the unmapping comes from per-CPU counters that lag by up to a few
 * hundred KB (0.5 MB seen here). */
static void tr_sample_anon(void) {
	char b[128];
	ssize_t n = pread(tr_statm_fd, b, sizeof b - 1, 0);
	if (n <= 0)
		return;
	b[n] = 0;
	uint64_t f[3] = {0, 0, 0};
	char *p = b;
	for (int i = 0; i < 3; i++) {
		while (*p == ' ')
			p++;
		while (*p >= '0' && *p <= '9')
			f[i] = f[i] * 10 + (uint64_t)(*p++ - '0');
	}
	uint64_t anon = f[1] > f[2] ? (f[1] - f[2]) * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
	if (anon > __atomic_load_n(&tr_anon_seen, __ATOMIC_RELAXED))
		__atomic_store_n(&tr_anon_seen, anon, __ATOMIC_RELAXED);
}

static void *tr_drain_loop(void *arg) {
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, 0); /* signals go to the program's threads */
	struct timespec nap = {0, 1000000}; /* 1 ms */
	while (!__atomic_load_n(&tr_stop, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&tr_draining, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&tr_stop, __ATOMIC_SEQ_CST)) {
			tr_drain_all();
			if (tr_statm_fd >= 0)
				tr_sample_anon();
		}
		__atomic_store_n(&tr_draining, 0, __ATOMIC_SEQ_CST);
		nanosleep(&nap, 0);
	}
	return 0;
}

/* ---- start and finish ---------------------------------------------------------- */

static void tr_measure_overhead(int n);

#if defined(__x86_64__) || defined(__i386__)
/* tr_pair reads CLOCK_MONOTONIC between two TSC reads, 5 times, and keeps the
 * reading whose TSC bracket is the narrowest: a preemption between the two clocks'
 * reads (on a loaded machine, milliseconds) would otherwise enter the calibration. */
static void tr_pair(uint64_t *ns, uint64_t *tick) {
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = __builtin_ia32_rdtsc(), n = tr_mono(), b = __builtin_ia32_rdtsc();
		if (b - a < best) {
			best = b - a;
			*ns = n;
			*tick = a + (b - a) / 2;
		}
	}
}
#endif

/* tr_calibrate measures the ticks per nanosecond against CLOCK_MONOTONIC over three
 * windows of about 1 ms, and the cost of one checkpoint's fast path. When the three
 * rates differ by more than 0.2% — a TSC that does not tick at a constant rate, or
 * readings disturbed beyond what tr_pair filters — the TSC cannot be trusted to
 * convert a run's ticks to time: the trace falls back to CLOCK_MONOTONIC and says
 * so in its HEADER. */
static void tr_calibrate(void) {
	tr_calibrated = 1;
	tr_ns_per_tick = 1;
#if defined(__x86_64__) || defined(__i386__)
	if (tr_clock == TR_CLOCK_TSC) {
		uint64_t ns[4], tick[4];
		double lo = 0, hi = 0;
		tr_pair(&ns[0], &tick[0]);
		for (int w = 1; w <= 3; w++) {
			do
				tr_pair(&ns[w], &tick[w]);
			while (ns[w] - ns[w - 1] < 1000000);
			double r = tick[w] > tick[w - 1] ? (double)(ns[w] - ns[w - 1]) / (double)(tick[w] - tick[w - 1]) : 0;
			if (w == 1 || r < lo)
				lo = r;
			if (w == 1 || r > hi)
				hi = r;
		}
		const char *force = fp_getenv("FRAGPROF_TRACE_TSC_UNSTABLE"); /* tests: act as if unstable */
		if (lo > 0 && hi <= lo * 1.002 && tick[3] > tick[0] && !(force && *force == '1'))
			tr_ns_per_tick = (double)(ns[3] - ns[0]) / (double)(tick[3] - tick[0]);
		else {
			tr_clock = TR_CLOCK_MONO;
			tr_clock_fallback = 1;
		}
	}
#endif
	tr_measure_overhead(6000);
}

static void tr_read_env(void) {
	const char *e = fp_getenv("FRAGPROF_TRACE");
	tr_wanted = e && strcmp(e, "1") == 0;
	const char *c = fp_getenv("FRAGPROF_TRACE_CLOCK");
	tr_clock = TR_CLOCK_TSC;
#if !(defined(__x86_64__) || defined(__i386__))
	tr_clock = TR_CLOCK_MONO;
#endif
	if (c && strcmp(c, "monotonic") == 0)
		tr_clock = TR_CLOCK_MONO;
	if (c && strcmp(c, "thread") == 0)
		tr_clock = TR_CLOCK_THREAD;
	const char *m = fp_getenv("FRAGPROF_TRACE_MAX");
	if (m && *m) {
		unsigned long long v = strtoull(m, 0, 10);
		if (v > 0)
			tr_max_words = (uint64_t)v * 4;
	}
	const char *st = fp_getenv("FRAGPROF_TRACE_STOP");
	tr_stop_ns = st && *st ? strtoull(st, 0, 10) : 0;
	const char *se = fp_getenv("FRAGPROF_TRACE_STOP_EVENTS");
	tr_stop_events = se && *se && strtoull(se, 0, 10) > 0 ? strtoull(se, 0, 10) : UINT64_MAX;
}

/* Calibrate once, in the process that starts (under the fork server: before the
 * trials are forked), so that a trial pays nothing for it. */
__attribute__((constructor(102))) static void tr_ctor(void) {
	tr_read_env();
	if (tr_wanted)
		tr_calibrate();
}

/* ---- the working set ------------------------------------------------------------ */

/* tr_status reads /proc/self/status and sets v[i] to the field keys[i] ("VmHWM:",
 * "RssAnon:", ...) in bytes (the file gives kB); it returns 0 when any is missing.
 * Open, read and a hand-made parse only: it runs at the dump, which may be in a
 * signal handler. */
static int tr_status(const char *const *keys, uint64_t *v, int n) {
	static char b[4096] FP_BULK;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = 0;
	while ((size_t)got < sizeof b - 1) {
		ssize_t r = read(fd, b + got, sizeof b - 1 - (size_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	b[got] = 0;
	int found = 0;
	for (int i = 0; i < n; i++) {
		size_t k = strlen(keys[i]);
		for (char *p = b; p; p = strchr(p, '\n'), p = p ? p + 1 : 0) {
			if (strncmp(p, keys[i], k) != 0)
				continue;
			p += k;
			while (*p == ' ' || *p == '\t')
				p++;
			uint64_t x = 0;
			while (*p >= '0' && *p <= '9')
				x = x * 10 + (uint64_t)(*p++ - '0');
			v[i] = x * 1024;
			found++;
			break;
		}
	}
	return found == n;
}

/* __fragprof_trace_base is called just before the program's main (rt_fork.c), in
 * the process that runs it. When tracing is on it resets the peak resident set to
 * the present one (writing 5 to /proc/self/clear_refs, Linux ≥ 4.0: an in-process
 * trial's peak would otherwise be an earlier trial's; a forked one starts with its
 * peak at its resident set) and records the anonymous resident set (RssAnon): the
 * fork server's heap and stack, the same for every input, the base the working set
 * is measured from. The END record adds the peak (VmHWM), the file-backed and
 * shared part at the dump (RssFile + RssShmem: the libraries' pages, 1.6 MB here,
 * which a forked child maps anew), the largest anonymous resident set read at the
 * first checkpoint and by the drainer, and the runtime's own share; the reader
 * takes the anonymous memory the program touched from them (trace.WorkingSet,
 * docs/trace-format.md). */
void __fragprof_trace_base(void) {
	if (tr_wanted < 0)
		tr_read_env();
	if (!tr_wanted)
		return;
	/* This trial's checkpoint cost and speed probe (3 ms), before the resident set
	 * is taken as the base: the scratch pages it writes are the server's, copied
	 * on write. */
	tr_measure_overhead(6000);
	static const char *const keys[] = {"RssAnon:"};
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "5", 1) < 0) {
			/* an old kernel: the peak stays what fork made it */
		}
		close(fd);
	}
	if (!tr_status(keys, &tr_rss0, 1))
		tr_rss0 = 0;
}

static void tr_on_dump(int sig);

static void tr_after_fork(void) {
	/* A child of a traced process records nothing: it shares the parent's extra
	 * channel (a memfd, or the file) and its private trace file, and writing to
	 * them would mix two processes' records. It has only the forking thread and
	 * none of the parent's drainer; its copies of the buffers are left alone. */
	tr_tls = 0;
	tr_fd = -1;
	tr_drainer_on = 0;
	pthread_mutex_init(&tr_mu, 0);
	__atomic_store_n(&tr_gen, TR_GEN_CLOSED, __ATOMIC_RELEASE);
}

/* tr_prefault_chunk puts one chunk, every page of it written once, on the free list
 * (under tr_mu), for the first thread's first events. A fresh chunk's pages are
 * otherwise faulted in by the events themselves, one fault (1–2 µs here) every ~170
 * events, each landing in the transition that follows it: in a run of a few µs that
 * is most of its time. Done before the trace's time origin, it is in no transition.
 * Later chunks come mostly from the free list, already written. */
static void tr_prefault_chunk(void) {
	struct tr_chunk *c = tr_chunk_new();
	if (!c)
		return;
	memset(c, 0, sizeof *c);
	c->next = tr_free;
	tr_free = c;
	tr_nfree++;
}

/* tr_start begins the trace of this process (under tr_mu). It returns 0 when
 * tracing is off. */
static int tr_start(void) {
	if (tr_wanted < 0)
		tr_read_env();
	if (!tr_wanted || __fragprof_extra_fd() < 0) {
		__atomic_store_n(&tr_gen, TR_GEN_CLOSED, __ATOMIC_RELEASE);
		return 0;
	}
	if (!tr_calibrated)
		tr_calibrate();
	static int atfork;
	if (!atfork) {
		atfork = 1;
		pthread_atfork(0, 0, tr_after_fork);
	}
	tr_fd = memfd_create("fragprof-trace", MFD_CLOEXEC);
	if (tr_fd < 0) {
		__atomic_store_n(&tr_gen, TR_GEN_CLOSED, __ATOMIC_RELEASE);
		return 0;
	}
	tr_pid = getpid();
	tr_anon_seen = 0;
	if (tr_rss0 && tr_statm_fd < 0)
		tr_statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	tr_prefault_chunk();
	if (tr_statm_fd >= 0)
		tr_sample_anon(); /* what the program has at its first checkpoint */
	tr_ns0 = tr_mono();
	tr_tick0 = tr_now();
	tr_deadline = tr_stop_ns ? 0 : UINT64_MAX;
	tr_stopped = 0;
	tr_write_header();
	__fragprof_on_dump(tr_on_dump);
	tr_stop = 0;
	tr_drainer_on = pthread_create(&tr_drainer, 0, tr_drain_loop, 0) == 0;
	__atomic_store_n(&tr_gen, tr_next_gen++, __ATOMIC_RELEASE);
	return 1;
}

/* tr_thread_init gives the calling thread its buffer, starting the trace if it is
 * the first checkpoint of the process. It returns 0 when tracing is off. */
static struct tr_buf *tr_thread_init(void) {
	uint32_t g = __atomic_load_n(&tr_gen, __ATOMIC_ACQUIRE);
	if (g == TR_GEN_CLOSED)
		return 0;
	pthread_mutex_lock(&tr_mu);
	g = __atomic_load_n(&tr_gen, __ATOMIC_ACQUIRE);
	if (g == 0) {
		if (!tr_start()) {
			pthread_mutex_unlock(&tr_mu);
			return 0;
		}
		g = tr_gen;
	}
	if (g == TR_GEN_CLOSED) {
		pthread_mutex_unlock(&tr_mu);
		return 0;
	}
	struct tr_buf *b = calloc(1, sizeof *b);
	pthread_mutex_unlock(&tr_mu);
	if (!b)
		return 0;
	struct tr_chunk *c = tr_chunk_get();
	if (!c) {
		free(b);
		return 0;
	}
	b->cur = b->rd = c;
	b->gen = g;
	pthread_mutex_lock(&tr_mu);
	b->thread = tr_nthreads++;
	b->next = tr_bufs;
	__atomic_store_n(&tr_bufs, b, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&tr_mu);
	tr_tls = b;
	return b;
}

/* tr_on_dump finishes the trace: it stops the producers and the drainer, drains the
 * rest, writes the sites and the END record, and copies everything to the extra
 * channel. On a fatal signal (sig != 0) it does not join the drainer; it waits a
 * bounded time for it to leave its current pass. */
static void tr_on_dump(int sig) {
	if (tr_fd < 0 || tr_pid != getpid())
		return;
	__atomic_store_n(&tr_gen, TR_GEN_CLOSED, __ATOMIC_RELEASE);
	__atomic_store_n(&tr_stop, 1, __ATOMIC_SEQ_CST);
	int safe = 1; /* no drain pass can be running */
	if (tr_drainer_on) {
		if (pthread_equal(pthread_self(), tr_drainer)) {
			safe = 0; /* a fault in the drainer itself */
		} else if (sig == 0) {
			pthread_join(tr_drainer, 0);
		} else {
			for (long i = 0; i < 20000000L && __atomic_load_n(&tr_draining, __ATOMIC_SEQ_CST); i++)
				sched_yield();
			safe = !__atomic_load_n(&tr_draining, __ATOMIC_SEQ_CST);
		}
		tr_drainer_on = 0;
	}
	uint64_t lost = 0, events = 0;
	uint32_t nthreads = 0;
	if (safe)
		tr_drain_all();
	for (struct tr_buf *b = tr_bufs; b; b = b->next) {
		lost += b->lost;
		events += b->events;
		nthreads++;
	}
	/* The peak resident set and the file-backed and shared part of the present
	 * one, read before anything below touches new memory. */
	static const char *const keys[] = {"VmHWM:", "RssFile:", "RssShmem:"};
	uint64_t mem[3] = {0, 0, 0};
	if (!tr_rss0 || !tr_status(keys, mem, 3))
		mem[0] = 0;
	tr_write_sites();
	unsigned char e[88];
	memset(e, 0, sizeof e);
	tr_put32(e, (uint32_t)sig);
	tr_put32(e + 4, nthreads);
	tr_put64(e + 8, tr_now());
	tr_put64(e + 16, tr_mono());
	tr_put64(e + 24, events);
	tr_put64(e + 32, lost);
	tr_put32(e + 40, (uint32_t)tr_truncated);
	tr_put32(e + 44, (uint32_t)__atomic_load_n(&tr_stopped, __ATOMIC_RELAXED));
	if (mem[0]) { /* the working set: docs/trace-format.md, END */
		tr_put64(e + 48, mem[0]);
		tr_put64(e + 56, tr_rss0);
		tr_put64(e + 64, mem[1] + mem[2]);
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t mapped = (sizeof(struct tr_chunk) + page - 1) / page * page;
		tr_put64(e + 72, __atomic_load_n(&tr_chunks_peak, __ATOMIC_RELAXED) * mapped);
		tr_put64(e + 80, __atomic_load_n(&tr_anon_seen, __ATOMIC_RELAXED));
	}
	tr_write_framed(tr_fd, TR_END, e, sizeof e, 0, 0);
	/* Copy the private file to the extra channel: the records are already framed. */
	int out = __fragprof_extra_fd();
	if (out >= 0) {
		static char buf[1 << 16] FP_BULK;
		off_t end = lseek(tr_fd, 0, SEEK_END);
		lseek(tr_fd, 0, SEEK_SET);
		for (off_t left = end; left > 0;) {
			ssize_t r = read(tr_fd, buf, left < (off_t)sizeof buf ? (size_t)left : sizeof buf);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || __fragprof_write_all(out, buf, (size_t)r) < 0)
				break;
			left -= r;
		}
	}
	close(tr_fd);
	tr_fd = -1;
	if (tr_statm_fd >= 0)
		close(tr_statm_fd);
	tr_statm_fd = -1;
}

/* ---- the checkpoints ----------------------------------------------------------- */

/* tr_site_id registers a site on its first pass and returns its id (1-based). */
static uint32_t tr_site_id(uint32_t *site, const char *name, const char *file, int line, int n,
                           const uint8_t *kinds, const char *const *vars) {
	uint32_t id = __atomic_load_n(site, __ATOMIC_ACQUIRE);
	if (id)
		return id;
	pthread_mutex_lock(&tr_mu);
	id = *site;
	if (!id) {
		if (tr_nsites == tr_capsites) {
			uint32_t cap = tr_capsites ? 2 * tr_capsites : 64;
			struct tr_site *s = realloc(tr_sites, cap * sizeof *s);
			if (!s) {
				pthread_mutex_unlock(&tr_mu);
				return 0;
			}
			tr_sites = s;
			tr_capsites = cap;
		}
		struct tr_site *s = &tr_sites[tr_nsites];
		memset(s, 0, sizeof *s);
		s->name = name;
		s->file = file;
		s->line = line;
		s->nvars = n > TR_MAXVARS ? TR_MAXVARS : n;
		for (int k = 0; k < s->nvars; k++) {
			s->kinds[k] = kinds[k];
			s->vars[k] = vars[k];
		}
		id = ++tr_nsites;
		__atomic_store_n(site, id, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&tr_mu);
	return id;
}

/* tr_slot returns room for need words in the calling thread's buffer, or 0. */
static inline uint64_t *tr_slot(struct tr_buf **bp, uint64_t need) {
	struct tr_buf *b = tr_tls;
	if (__builtin_expect(!b || b->gen != __atomic_load_n(&tr_gen, __ATOMIC_RELAXED), 0)) {
		if (!(b = tr_thread_init()))
			return 0;
	}
	if (__builtin_expect(b->pos + need > TR_CHUNK_WORDS, 0)) {
		struct tr_chunk *c = tr_chunk_get();
		if (!c) {
			b->lost++;
			return 0;
		}
		__atomic_store_n(&b->cur->next, c, __ATOMIC_RELEASE);
		b->cur = c;
		b->pos = 0;
	}
	*bp = b;
	return b->cur->w + b->pos;
}

/* tr_stop_probe ends a probe whose budget is spent: the first thread to get here
 * exits the process, which writes the trace (with END's stopped flag); others go on
 * until it does. */
__attribute__((noinline, cold)) static void tr_stop_probe(void) {
	if (__atomic_exchange_n(&tr_stopped, 1, __ATOMIC_SEQ_CST))
		return;
	exit(0);
}

/* tr_spent is reached by an event at or past the probe's deadline (tick: its
 * time). The first event sets the deadline, the budget after it; an event past it
 * ends the probe. */
__attribute__((noinline, cold)) static void tr_spent(uint64_t tick) {
	uint64_t d = 0;
	if (__atomic_compare_exchange_n(&tr_deadline, &d, tick + (uint64_t)((double)tr_stop_ns / tr_ns_per_tick), 0,
	                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return; /* the first event: the deadline is set */
	if (tick >= d) /* d: the deadline another thread set */
		tr_stop_probe();
}

/* tr_publish makes the event of n words at the thread's position visible; at the
 * probe's deadline (tick: the event's time) or its last event it ends the run. */
static inline void tr_publish(struct tr_buf *b, uint64_t n, uint64_t tick) {
	b->pos += n;
	__atomic_store_n(&b->cur->used, b->pos, __ATOMIC_RELEASE);
	b->events++;
	if (__builtin_expect(tick >= __atomic_load_n(&tr_deadline, __ATOMIC_RELAXED), 0))
		tr_spent(tick);
	if (__builtin_expect(b->events >= tr_stop_events, 0))
		tr_stop_probe();
}

/* __fragprof_point_hook, when set, sees every checkpoint of FP_POINT and
 * FP_POINT_VARS, traced or not: the online learning of the model library
 * (fragprof_model.h, fp_model_learn_start) sets it. */
void (*__fragprof_point_hook)(const char *name, int n, const struct __fragprof_var *v);

__attribute__((noinline)) void __fragprof_point(uint32_t *site, const char *name, const char *file, int line) {
	void (*hook)(const char *, int, const struct __fragprof_var *) = __atomic_load_n(&__fragprof_point_hook, __ATOMIC_ACQUIRE);
	if (__builtin_expect(hook != 0, 0))
		hook(name, 0, 0);
	if (__builtin_expect(__atomic_load_n(&tr_gen, __ATOMIC_RELAXED) == TR_GEN_CLOSED, 0))
		return;
	uint32_t id = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (__builtin_expect(!id, 0) && !(id = tr_site_id(site, name, file, line, 0, 0, 0)))
		return;
	struct tr_buf *b;
	uint64_t *w = tr_slot(&b, 2);
	if (!w)
		return;
	w[0] = tr_now();
	w[1] = id;
	tr_publish(b, 2, w[0]);
}

__attribute__((noinline)) void __fragprof_point_vars(uint32_t *site, const char *name, const char *file, int line, int n,
                           const struct __fragprof_var *v) {
	void (*hook)(const char *, int, const struct __fragprof_var *) = __atomic_load_n(&__fragprof_point_hook, __ATOMIC_ACQUIRE);
	if (__builtin_expect(hook != 0, 0))
		hook(name, n, v);
	if (__builtin_expect(__atomic_load_n(&tr_gen, __ATOMIC_RELAXED) == TR_GEN_CLOSED, 0))
		return;
	if (n > TR_MAXVARS)
		n = TR_MAXVARS;
	uint32_t id = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (__builtin_expect(!id, 0)) {
		uint8_t kinds[TR_MAXVARS];
		const char *names[TR_MAXVARS];
		for (int k = 0; k < n; k++) {
			kinds[k] = (uint8_t)v[k].kind;
			names[k] = v[k].name;
		}
		if (!(id = tr_site_id(site, name, file, line, n, kinds, names)))
			return;
	}
	struct tr_buf *b;
	uint64_t *w = tr_slot(&b, 2 + (uint64_t)n);
	if (!w)
		return;
	w[0] = tr_now();
	w[1] = (uint64_t)id | (uint64_t)n << 32;
	for (int k = 0; k < n; k++)
		memcpy(&w[2 + k], &v[k].v, 8);
	tr_publish(b, 2 + (uint64_t)n, w[0]);
}

/* __fragprof_point_auto is what --auto-checkpoints inserts. desc holds, each
 * NUL-terminated: the name, the file, the line in decimal, one kind letter per
 * variable ("i" signed, "u" unsigned, "d" double), then the variables' names. The n
 * values follow as 64-bit words (doubles by their bits). */
__attribute__((noinline)) void __fragprof_point_auto(uint32_t *site, const char *desc, uint32_t n, ...) {
	if (__builtin_expect(__atomic_load_n(&tr_gen, __ATOMIC_RELAXED) == TR_GEN_CLOSED, 0))
		return;
	if (n > TR_MAXVARS)
		n = TR_MAXVARS;
	uint32_t id = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (__builtin_expect(!id, 0)) {
		const char *name = desc;
		const char *file = name + strlen(name) + 1;
		const char *ls = file + strlen(file) + 1;
		const char *ks = ls + strlen(ls) + 1;
		const char *vn = ks + strlen(ks) + 1;
		uint8_t kinds[TR_MAXVARS];
		const char *names[TR_MAXVARS];
		for (uint32_t k = 0; k < n; k++) {
			kinds[k] = ks[k] == 'd' ? 3 : ks[k] == 'u' ? 2 : 1;
			names[k] = vn;
			vn += strlen(vn) + 1;
		}
		if (!(id = tr_site_id(site, name, file, atoi(ls), (int)n, kinds, names)))
			return;
	}
	struct tr_buf *b;
	uint64_t *w = tr_slot(&b, 2 + (uint64_t)n);
	if (!w)
		return;
	w[0] = tr_now();
	w[1] = (uint64_t)id | (uint64_t)n << 32;
	va_list ap;
	va_start(ap, n);
	for (uint32_t k = 0; k < n; k++)
		w[2 + k] = va_arg(ap, uint64_t);
	va_end(ap);
	tr_publish(b, 2 + (uint64_t)n, w[0]);
}

/* tr_measure_overhead times n passes of the fast path of __fragprof_point, call
 * included, on a scratch buffer that nobody drains, in the thread's CPU time (a
 * preemption does not enter it): the cost a checkpoint adds to the thread that
 * passes it (the drainer's work happens on another core). It is measured once in
 * the process that starts and again in each trial (__fragprof_trace_base), where it
 * is also the trial's measure of the machine's speed: on the project VM it read
 * 532–571 ns in runs of normal speed and 667–712 ns in runs of gemm 1.6× slower
 * throughout, in spells of seconds when another tenant slowed the vCPU
 * (docs/predict.md, "Runs of a slow machine"). */
static void tr_measure_overhead(int n) {
	static struct tr_chunk scratch FP_BULK;
	static struct tr_buf sb;
	uint32_t saved_gen = tr_gen;
	struct tr_buf *saved_tls = tr_tls;
	uint64_t saved_deadline = tr_deadline, saved_stop = tr_stop_events;
	tr_deadline = tr_stop_events = UINT64_MAX; /* the scratch events end no probe */
	memset(&sb, 0, sizeof sb);
	sb.cur = sb.rd = &scratch;
	scratch.used = 0;
	scratch.next = 0;
	sb.gen = 0x7FFFFFFEu;
	tr_gen = sb.gen;
	tr_tls = &sb;
	uint32_t site = 1;
	if (n > 6000)
		n = 6000; /* 2 words each: one chunk */
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (int i = 0; i < n; i++)
		__fragprof_point(&site, "", "", 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	tr_overhead_ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
	tr_gen = saved_gen;
	tr_tls = saved_tls;
	tr_deadline = saved_deadline;
	tr_stop_events = saved_stop;
}
