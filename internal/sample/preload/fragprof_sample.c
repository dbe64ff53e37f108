// fragprof_sample.c: the in-process sampler that `fragprof sample` preloads into a
// program (LD_PRELOAD). See docs/sampling.md, "The in-process sampler".
//
// Every thread arms a one-shot CPU-time timer (timer_create on
// CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID, signal SIGPROF). Its handler records
// the interrupted PC, copies the top of the stack (for offline unwinding) and
// follows the thread for a burst: it decodes forward to the block's branch and stops
// the thread there — an int3 while the process has one thread, a hardware breakpoint
// of that thread alone (a perf breakpoint event) once it has several, or the trap
// flag (EFLAGS.TF: a debug trap after every instruction) with --stepping singlestep
// or where breakpoint events do not deliver — whose SIGTRAP handler computes the
// branch's successor and goes on, until the burst is complete. A method is used only
// after a trial burst in the process has shown that it delivers (run_trial). Bursts go to a
// shared memory-mapped file (so that they survive _exit, crashes and kills), in
// per-thread chunks; fragprof decodes them offline.
//
// What the program sees: nothing, as far as we can make it. The handlers make raw
// system calls only (errno is untouched);
// the environment variables that asked for sampling (and our LD_PRELOAD entry) are
// removed at start, so programs it execs run unsampled; the output file is mapped
// and closed (no extra descriptor); a burst never runs through a system call (it
// ends at one), never starts where SIGTRAP is blocked and ends at a repeated string
// instruction (which traps once per iteration). A program that installs its own
// SIGTRAP or SIGPROF handler gets it (the sampler stops in that process and says so
// in the file; fragprof falls back to ptrace for later runs); queries of those two
// signals' actions return what the program set. Forked children re-arm (POSIX timers
// are not inherited) and write their own chunks; threads created with
// pthread_create are armed before their start routine runs.
//
// Started by the user's own launcher (`fragprof sample --env`: FRAGPROF_SAMPLE_OUT
// instead of FRAGPROF_SAMPLE_FILE), the library keeps its bursts in an anonymous
// file of its own (memfd), leaves the environment as it is (programs it execs are
// sampled too), gives a forked child a file of its own, and at exit writes the
// process's whole record ("fragprof-record 1", docs/batches.md) to OUT.<pid>,
// through a temporary name and a link (write_record), and at _exit. A process
// killed by a signal, or that crashes, writes none.
#define _GNU_SOURCE
#include <stdio.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

// The handlers run only their own code and raw system calls: a burst may have
// planted a breakpoint in any library function the program uses (memcpy,
// clock_gettime, a system-call wrapper, __errno_location), and a breakpoint met
// inside a handler, where SIGTRAP is blocked, would kill the process.
static long rawsys(long n, long a, long b, long c, long d, long e, long f) {
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return ret;
}
#define SYS0(n) rawsys(n, 0, 0, 0, 0, 0, 0)
#define SYS3(n, a, b, c) rawsys(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define SYS4(n, a, b, c, d) rawsys(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

// copy and fill are memcpy and memset that the compiler cannot turn into calls.
static void copy(void *dst, const void *src, size_t n) {
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		*(volatile uint64_t *)(d + i) = *(const volatile uint64_t *)(s + i);
	for (; i < n; i++)
		d[i] = s[i];
}
static void fill(void *dst, uint8_t v, size_t n) {
	volatile uint8_t *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = v;
}

#define FPS_MAGIC 0x31534d53504650ULL /* "PFPSMS1\0" little-endian */
#define FPS_HEADER 4096
#define FPS_CHUNK (64 * 1024)
#define FPS_MAXBURST 1024
#define FPS_MAXSTACK 65536

enum { REC_BURST = 1, REC_MAPS = 2, REC_NOTE = 3, REC_MEM = 4 };

// The file header. Offsets are fixed: fragprof reads them (internal/sample/preload.go).
struct header {
	uint64_t magic;
	uint64_t size;          // file size
	_Atomic uint64_t next;  // offset of the next free chunk
	uint64_t chunk;         // chunk size
	_Atomic uint64_t lost;  // bursts dropped because the file was full
	_Atomic uint64_t conflict; // signal number the program took over (0: none)
	_Atomic uint64_t skipped;  // bursts not started: SIGTRAP blocked, or a system call next
	_Atomic uint64_t started;  // 1: the library mapped the file and is sampling
	_Atomic uint64_t maps_ns;  // CPU time spent recording the mappings (not in any burst's cost)
	// trial[m]: the trial burst of stepping method m (M_INT3, M_HW, M_TF): its
	// outcome (T_*) | PCs reached << 8 | thread CPU time in ns << 16; 0: not tried.
	_Atomic uint64_t trial[3];
	// method[0], method[1]: 1 + the method that stepped bursts while the process had
	// one thread, and once it had several (0: none was needed).
	_Atomic uint64_t method[2];
};

// A chunk starts with this; records follow. used is stored (release) after each record.
struct chunk {
	uint32_t pid, tid;
	_Atomic uint32_t used; // bytes of records
	uint32_t pad;
};

// A record: type, total length (multiple of 8), payload.
struct rec {
	uint32_t type, len;
};

// A burst's payload.
struct burst {
	uint64_t time_ns;  // CLOCK_MONOTONIC at the burst's start, since the sampler's start
	uint64_t cost_ns;  // thread CPU time from the burst's start to its end
	uint32_t n;        // PCs
	uint32_t stack;    // bytes of stack copied from rsp
	uint64_t rsp, rbp; // registers at the burst's start
	// uint64_t pcs[n]; uint8_t stack[stack] (padded to 8)
};

struct thread_state {
	int armed;
	int timer;          // the kernel's timer id (POSIX CPU-time timer)
	int perffd;         // or the task-clock perf event's descriptor (-1: none)
	pid_t tid;
	struct chunk *chunk; // current chunk, NULL before the first
	uint32_t used;       // bytes used in it
	struct rec *cur;     // the burst being recorded, or NULL
	struct burst *b;
	uint64_t *pcs;
	uint64_t t0;        // thread CPU time at the burst's start
	uint64_t rng;
	uint64_t stack_hi;  // top of this thread's stack (0: unknown, no stack copy)
	uint64_t stack_lo;
	double cost;        // mean burst cost so far, ns
	uint64_t bursts;
	int busy;           // the library itself is writing to the chunk
	uint64_t bp;        // breakpoints: the address of this burst's breakpoint (0: none)
	int memfd;          // breakpoints: /proc/self/mem during a burst (-1: closed)
	int hwfd;           // hardware breakpoint: this thread's perf event during a burst (-1: none)
	uint32_t len;       // PCs the burst under way takes (burst_len, or TRIAL_PCS)
	int method;         // the method stepping the burst under way
	int trial;          // 1 + the method of the trial burst under way (0: none)
	int refused;        // the trial's breakpoint was refused (memory write, perf event)
	uint32_t trial_n;   // PCs the last trial burst reached
	uint64_t trial_ns;  // and its thread CPU time
	struct rec trial_rec; // a trial burst's record: never committed
	struct burst trial_b;
	uint64_t trial_pcs[16];
};

static __thread struct thread_state ts __attribute__((tls_model("initial-exec"))) = {.perffd = -1, .memfd = -1, .hwfd = -1};

static struct header *hdr;     // the mapped file; NULL when not sampling
static int enabled;            // sampling in this process
static uint64_t interval_ns = 3000000, seed = 1, stack_bytes = 4096;
static uint32_t burst_len = 25;
static int use_tf;             // step with the trap flag instead of breakpoints
static int use_timer;          // POSIX CPU-time timers rather than perf's task clock (the default)
// multi: the process has had a second thread. int3 breakpoints are used only before:
// a thread that meets another's int3 while it blocks SIGTRAP would be killed, so with
// several threads bursts stop at hardware breakpoints (or the trap flag), per thread.
static _Atomic int multi;
// Stepping methods, in the order they are tried: an int3 planted through
// /proc/self/mem (one thread only), the thread's own hardware breakpoint (a perf
// breakpoint event, which raises SIGTRAP in that thread alone), the trap flag (a
// debug trap after every instruction), and none (a burst is its first PC).
enum { M_INT3, M_HW, M_TF, M_PC };
// Outcomes of a method's trial burst.
enum { T_OK = 1, T_REFUSED, T_SHORT, T_COSTLY, T_STOPPED };
// A trial burst follows trial_code for TRIAL_PCS PCs; a method delivers when it
// reaches them all within TRIAL_MAX_NS of CPU time: 300 µs a PC, a trap that the
// machine emulates at a cost no burst should pay (this project's VM takes 1.6 µs an
// int3, 13.5 µs a hardware breakpoint, 20 µs a trap-flag step, quiet; a trap-flag
// trial took 240-430 µs of CPU in all at load 10-15 on its 2 CPUs, and a bound of
// 50 µs a PC failed it now and then).
#define TRIAL_PCS 16
#define TRIAL_MAX_NS (TRIAL_PCS * 300000ULL)
// m_single, m_multi: the method that steps bursts while the process has one thread,
// and once it has several; -1 until chosen (at start, and at the first
// pthread_create), each the first of its order whose trial burst delivered.
static _Atomic int m_single = -1, m_multi = -1;
// broken: methods (bit 1 << M_*) made not to deliver, as on a host whose kernel or
// hypervisor loses their traps: the int3's memory write is refused, the hardware
// breakpoint watches the byte after the branch, the trap flag is not set. Tests
// use it to check the fallback on every host.
// With 1 << 3 (hardware breakpoints) and 1 << 4 (the trap flag), the method
// delivers in its trial and stops delivering in the program's bursts.
static unsigned broken;
// stale[m]: bursts stepped by m in a row that were still open at the thread's next
// timer (their trap never came); STALE_MAX of them drop the method (on_prof).
static _Atomic int stale[3];
#define STALE_MAX 3
static int trial_marker;       // si_value of a trial's SIGPROF: &trial_marker
static int hw_marker;          // sig_data of our breakpoint events: &hw_marker
#ifndef TRAP_PERF
#define TRAP_PERF 6            // si_code of a perf event's SIGTRAP (Linux 5.13)
#endif
static double share;           // adaptive: the burst cost's share of CPU time
static uint64_t tick_ns;       // the kernel's tick, on which CPU-time timers expire (0: unknown)
static uint64_t cost0_ns;      // mean burst cost learned by earlier runs (0: none), until a thread has its own
static uint64_t start_ns;
static int timer_marker;       // si_value of our timers: &timer_marker
static struct sigaction prog_act[2]; // the program's view of SIGPROF, SIGTRAP
static int prog_set[2];

static uint64_t now(clockid_t c) {
	struct timespec t;
	SYS3(SYS_clock_gettime, c, &t, 0);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

// claim returns a fresh chunk for this thread, or NULL when the file is full.
static struct chunk *claim(void) {
	uint64_t off = atomic_fetch_add(&hdr->next, FPS_CHUNK);
	if (off + FPS_CHUNK > hdr->size)
		return NULL;
	struct chunk *c = (struct chunk *)((char *)hdr + off);
	c->pid = (uint32_t)SYS0(SYS_getpid);
	c->tid = (uint32_t)ts.tid;
	ts.chunk = c;
	ts.used = 0;
	return c;
}

// reserve returns room for a record of len bytes in this thread's chunk.
static struct rec *reserve(uint32_t len) {
	if (!hdr || len > FPS_CHUNK - sizeof(struct chunk))
		return NULL;
	if (!ts.chunk || ts.used + len > FPS_CHUNK - sizeof(struct chunk)) {
		if (!claim())
			return NULL;
	}
	return (struct rec *)((char *)(ts.chunk + 1) + ts.used);
}

static void commit(struct rec *r) {
	ts.used += r->len;
	atomic_store_explicit(&ts.chunk->used, ts.used, memory_order_release);
}

static void put_text(uint32_t type, const char *s, size_t n) {
	uint32_t len = (uint32_t)((sizeof(struct rec) + n + 7) & ~7UL);
	struct rec *r = reserve(len);
	if (!r)
		return;
	r->type = type;
	r->len = len;
	copy(r + 1, s, n);
	fill((char *)(r + 1) + n, 0, len - sizeof(struct rec) - n);
	commit(r);
}

// put_maps records /proc/self/maps, and the vDSO's bytes (no file holds them) the
// first time. It runs in a handler, at the process's first burst (a run that takes
// no burst never reads its mappings: that read was a third of the library's start,
// 80 µs of CPU on this project's VM), and after each dlopen: raw system calls and
// the library's own loops only.
static _Atomic int maps_state; // 0: not recorded, 1: being recorded, 2: recorded

static int hexdigit(char c) {
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static uint64_t parse_hex(const char **p, const char *end) {
	uint64_t v = 0;
	int d;
	while (*p < end && (d = hexdigit(**p)) >= 0) {
		v = v << 4 | (uint64_t)d;
		(*p)++;
	}
	return v;
}

static int ends_with(const char *p, const char *e, const char *suffix, size_t n) {
	if ((size_t)(e - p) < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (e[-(long)n + (long)i] != suffix[i])
			return 0;
	return 1;
}

static void put_maps_locked(int first);

// maps_lock guards put_maps's buffer: a thread's first burst and another's dlopen
// may record at once. (A thread never waits for itself: its handler does not sample
// while it is in dlopen, ts.busy.)
static atomic_flag maps_lock = ATOMIC_FLAG_INIT;

static void put_maps(int first) {
	while (atomic_flag_test_and_set_explicit(&maps_lock, memory_order_acquire))
		SYS0(SYS_sched_yield);
	put_maps_locked(first);
	atomic_flag_clear_explicit(&maps_lock, memory_order_release);
}

static void put_maps_locked(int first) {
	static char buf[1 << 16];
	int fd = (int)SYS4(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	size_t n = 0;
	for (;;) {
		long k = SYS3(SYS_read, fd, buf + n, sizeof buf - n);
		if (k <= 0)
			break;
		n += (size_t)k;
		if (n == sizeof buf)
			break;
	}
	SYS3(SYS_close, fd, 0, 0);
	for (size_t i = 0; i < n && i + 1 < FPS_CHUNK - 64;) {
		// Split into records that fit a chunk, at line boundaries.
		size_t j = i + (FPS_CHUNK / 2 < n - i ? FPS_CHUNK / 2 : n - i);
		while (j < n && j > i && buf[j - 1] != '\n')
			j--;
		if (j == i)
			j = n;
		put_text(REC_MAPS, buf + i, j - i);
		i = j;
	}
	if (!first)
		return;
	for (const char *p = buf; p < buf + n;) {
		const char *e = p;
		while (e < buf + n && *e != '\n')
			e++;
		if (e == buf + n)
			break;
		const char *s = p;
		uint64_t lo = parse_hex(&s, e);
		s++;
		uint64_t hi = parse_hex(&s, e);
		if (ends_with(p, e, "[vdso]", 6) && hi > lo && hi - lo <= 4 * 4096) {
			uint32_t len = (uint32_t)(sizeof(struct rec) + 8 + (hi - lo));
			struct rec *r = reserve(len);
			if (r) {
				r->type = REC_MEM;
				r->len = len;
				*(uint64_t *)(r + 1) = lo;
				copy((char *)(r + 1) + 8, (void *)lo, hi - lo);
				commit(r);
			}
		}
		p = e + 1;
	}
}

// need_maps records the mappings if no thread has yet.
static void need_maps(void) {
	int none = 0;
	if (atomic_load(&maps_state) == 0 && atomic_compare_exchange_strong(&maps_state, &none, 1)) {
		uint64_t t0 = now(CLOCK_THREAD_CPUTIME_ID);
		put_maps(1);
		atomic_fetch_add(&hdr->maps_ns, now(CLOCK_THREAD_CPUTIME_ID) - t0);
		atomic_store(&maps_state, 2);
	}
}

static uint64_t next_rand(void) {
	// xorshift64*: reproducible jitter per (seed, thread order).
	ts.rng ^= ts.rng >> 12;
	ts.rng ^= ts.rng << 25;
	ts.rng ^= ts.rng >> 27;
	return ts.rng * 2685821657736338717ULL;
}

// mean_gap is the thread's mean interval I: the larger of the one asked and the mean
// burst cost / share (the thread's own mean, or before its first burst the one
// earlier runs learned).
static uint64_t mean_gap(void) {
	double mean = (double)interval_ns;
	double c = ts.bursts > 0 ? ts.cost : (double)cost0_ns;
	if (share > 0 && c / share > mean)
		mean = c / share;
	return (uint64_t)mean;
}

// first_gap is the gap a thread's timer is first armed with: the forward recurrence
// time of the stationary expiry process, so that a thread (or a whole run) shorter
// than a few gaps is sampled at the long-run rate instead of almost never. Gaps are
// G ~ U[I/2, 3I/2); a POSIX CPU-time timer armed right after an expiry (on a tick)
// expires on the first tick after G, i.e. K = ceil(G / tick) ticks later, so the
// long-run process has an expiry every K ticks. A thread that starts at a random
// phase of it waits J ticks, P(J = j) = P(K >= j) / E[K]: K is drawn size-biased
// (rejection: accept with probability K / Kmax), J uniform in 1..K; a gap of
// (J - 1) ticks + 1 ns expires on the J-th tick. With I at most 2/3 of a tick (the
// default 1 ms, or bursts of up to 100 µs at 4 % on HZ=250) K is always 1: the first
// tick the thread runs through takes a burst, as every later tick does. Without a
// tick (perf's task clock expires at any time) the same draw with a 1 ns lattice
// gives the continuous residual.
static uint64_t first_gap(void) {
	uint64_t m = mean_gap();
	uint64_t t = (ts.perffd >= 0 || !tick_ns) ? 1 : tick_ns;
	if (m < 2)
		m = 2;
	uint64_t kmax = (m / 2 + m - 1 + t - 1) / t, k = kmax;
	for (int i = 0; i < 64; i++) {
		uint64_t g = m / 2 + next_rand() % m;
		k = (g + t - 1) / t;
		if (k < 1)
			k = 1;
		if (next_rand() % kmax < k)
			break;
	}
	uint64_t j = 1 + next_rand() % k;
	return (j - 1) * t + 1;
}

// arm_next_gap sets the thread's timer to the next gap: uniform in [I/2, 3I/2) of the
// mean interval I (mean_gap), or with first set the first gap (first_gap).
static void arm_next_gap(int first) {
	if (!ts.armed)
		return;
	uint64_t m = mean_gap();
	uint64_t gap = first ? first_gap() : m / 2 + next_rand() % (m ? m : 1);
	struct itimerspec it = {0};
	it.it_value.tv_sec = (time_t)(gap / 1000000000ULL);
	it.it_value.tv_nsec = (long)(gap % 1000000000ULL);
	if (ts.perffd >= 0)
		SYS3(SYS_ioctl, ts.perffd, PERF_EVENT_IOC_PERIOD, &gap);
	else
		SYS4(SYS_timer_settime, ts.timer, 0, &it, 0);
}
static void arm_next(void) { arm_next_gap(0); }

// open_clock opens a task-clock perf event of this thread that sends SIGPROF to it
// every period of its user-mode CPU time. Its expiry is a high-resolution timer,
// where a POSIX CPU-time timer expires on the scheduler's tick (4 ms at HZ=250,
// which a short program may never reach). The descriptor is moved high, out of the
// way of the program's own. Returns -1 where perf events are not allowed.
static int open_clock(uint64_t period) {
	struct perf_event_attr a;
	fill(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.exclude_kernel = 1; // fires only in user mode: no system call is interrupted
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	int fd = (int)rawsys(SYS_perf_event_open, (long)&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct rlimit rl;
	long high = 1000;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur - 64 < high)
		high = (long)rl.rlim_cur / 2;
	int hfd = (int)SYS3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high);
	if (hfd >= 0) {
		SYS3(SYS_close, fd, 0, 0);
		fd = hfd;
	}
	struct f_owner_ex o = {F_OWNER_TID, ts.tid};
	if (SYS3(SYS_fcntl, fd, F_SETOWN_EX, &o) != 0 || SYS3(SYS_fcntl, fd, F_SETSIG, SIGPROF) != 0 ||
	    SYS3(SYS_fcntl, fd, F_SETFL, O_ASYNC) != 0) {
		SYS3(SYS_close, fd, 0, 0);
		return -1;
	}
	return fd;
}

static void arm_thread(uint64_t order) {
	if (!enabled)
		return;
	ts.tid = (pid_t)syscall(SYS_gettid);
	ts.rng = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ (order + 1) * 0xbf58476d1ce4e5b9ULL;
	if (!ts.rng)
		ts.rng = 1;
	ts.chunk = NULL;
	ts.cur = NULL;
	ts.perffd = use_timer ? -1 : open_clock(interval_ns);
	if (ts.perffd >= 0) {
		ts.armed = 1;
		arm_next_gap(1);
		return;
	}
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev.sigev_value.sival_ptr = &timer_marker;
	ev._sigev_un._tid = ts.tid;
	if (SYS3(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &ev, &ts.timer) != 0)
		return;
	ts.armed = 1;
	arm_next_gap(1);
}

static void disarm_thread(void) {
	if (ts.armed) {
		ts.armed = 0;
		if (ts.perffd >= 0) {
			SYS3(SYS_close, ts.perffd, 0, 0);
			ts.perffd = -1;
		} else
			SYS3(SYS_timer_delete, ts.timer, 0, 0);
	}
}


// ---- x86-64 instruction decoding (lengths and control transfers) ----

enum kind { K_OTHER, K_COND, K_JMP, K_CALL, K_IJMP, K_ICALL, K_RET, K_STOP };

struct insn {
	int len;
	int kind;          // enum kind; K_STOP: a system call, a trap, or what the stepper does not follow
	uint64_t target;   // K_COND, K_JMP, K_CALL: the static target
	int cc;            // K_COND: the condition (low nibble of the opcode)
	uint8_t modrm, sib;
	int has_sib, rex, disp_size, imm16; // K_IJMP/K_ICALL operand; K_RET: imm16 to pop
	int32_t disp;
	int addr32, seg;
};

// Whether a one-byte opcode has a ModRM byte (1), and its immediate size
// (1, 2, 4: iz, 8: the imm of A0-A3/B8-BF handled apart).
static const uint8_t has_modrm1[256] = {
	// 0 1 2 3 4 5 6 7 8 9 A B C D E F
	1,1,1,1,0,0,0,0,1,1,1,1,0,0,0,0, // 0
	1,1,1,1,0,0,0,0,1,1,1,1,0,0,0,0, // 1
	1,1,1,1,0,0,0,0,1,1,1,1,0,0,0,0, // 2
	1,1,1,1,0,0,0,0,1,1,1,1,0,0,0,0, // 3
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // 4
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // 5
	0,0,0,1,0,0,0,0,0,1,0,1,0,0,0,0, // 6
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // 7
	1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, // 8
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // 9
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // A
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // B
	1,1,0,0,0,0,1,1,0,0,0,0,0,0,0,0, // C
	1,1,1,1,0,0,0,0,1,1,1,1,1,1,1,1, // D
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, // E
	0,0,0,0,0,0,1,1,0,0,0,0,0,0,1,1, // F
};
// 1: ib, 2: iw, 3: iz (4, or 2 with 66), 4: iw+ib (enter)
static const uint8_t imm1[256] = {
	0,0,0,0,1,3,0,0,0,0,0,0,1,3,0,0,
	0,0,0,0,1,3,0,0,0,0,0,0,1,3,0,0,
	0,0,0,0,1,3,0,0,0,0,0,0,1,3,0,0,
	0,0,0,0,1,3,0,0,0,0,0,0,1,3,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,3,3,1,1,0,0,0,0,
	1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
	1,3,0,1,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,1,3,0,0,0,0,0,0,
	1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,
	1,1,2,0,0,0,1,3,4,0,2,0,0,1,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	1,1,1,1,1,1,1,1,3,3,0,1,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};
// Two-byte opcodes (0F xx) without a ModRM byte.
static int no_modrm2(uint8_t op) {
	return op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 || op == 0x09 || op == 0x0b || op == 0x0e ||
	       (op >= 0x30 && op <= 0x37) || op == 0x77 || (op >= 0x80 && op <= 0x8f) || op == 0xa0 || op == 0xa1 ||
	       op == 0xa2 || op == 0xa8 || op == 0xa9 || op == 0xaa || (op >= 0xc8 && op <= 0xcf);
}
// Two-byte opcodes (0F xx) with an imm8.
static int imm8_2(uint8_t op) {
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba || op == 0xc2 ||
	       (op >= 0xc4 && op <= 0xc6) || op == 0x0f;
}

// modrm_len returns the bytes after the ModRM byte taken by SIB and displacement.
static int modrm_len(const uint8_t *p, struct insn *in) {
	uint8_t m = p[0];
	int mod = m >> 6, rm = m & 7, n = 0;
	in->modrm = m;
	in->has_sib = 0;
	in->disp_size = 0;
	if (mod == 3)
		return 0;
	if (rm == 4) {
		in->has_sib = 1;
		in->sib = p[1];
		n = 1;
		if (mod == 0 && (p[1] & 7) == 5)
			in->disp_size = 4;
	} else if (mod == 0 && rm == 5)
		in->disp_size = 4; // RIP-relative
	if (mod == 1)
		in->disp_size = 1;
	if (mod == 2)
		in->disp_size = 4;
	const uint8_t *d = p + 1 + n;
	if (in->disp_size == 1)
		in->disp = (int8_t)d[0];
	else if (in->disp_size == 4)
		in->disp = (int32_t)((uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24);
	return n + in->disp_size;
}

static int32_t rel32(const uint8_t *p) {
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

// decode decodes the instruction at addr from its bytes p (at least 15 readable).
// It returns 0 when it cannot: the stepper then ends the burst.
static int decode(const uint8_t *p, uint64_t addr, struct insn *in) {
	fill(in, 0, sizeof *in);
	int i = 0, opsize = 0, rep = 0;
	for (;; i++) {
		if (i >= 14)
			return 0;
		uint8_t b = p[i];
		if (b == 0x66)
			opsize = 1;
		else if (b == 0x67)
			in->addr32 = 1;
		else if (b == 0xf2 || b == 0xf3)
			rep = 1;
		else if (b == 0x64 || b == 0x65)
			in->seg = 1;
		else if (b == 0xf0 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26)
			;
		else
			break;
	}
	(void)rep;
	if ((p[i] & 0xf0) == 0x40)
		in->rex = p[i++];
	uint8_t op = p[i++];
	int n;
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		// VEX (C4: 3 bytes, C5: 2 bytes) and EVEX (62: 4 bytes): a ModRM always; an
		// imm8 in map 0F3A and for a few map-0F opcodes.
		int map;
		if (op == 0xc5) {
			map = 1;
			i += 1;
		} else if (op == 0xc4) {
			map = p[i] & 0x1f;
			i += 2;
		} else {
			map = p[i] & 7;
			i += 3;
		}
		uint8_t o = p[i++];
		n = 1 + modrm_len(p + i, in);
		i += n;
		if (map == 3 || (map == 1 && imm8_2(o)))
			i += 1;
		if (map < 1 || map > 3)
			return 0;
		in->len = i;
		return i <= 15;
	}
	if (op == 0x0f) {
		uint8_t o = p[i++];
		if (o == 0x38 || o == 0x3a) {
			i++; // the third opcode byte
			i += 1 + modrm_len(p + i, in);
			if (o == 0x3a)
				i += 1;
		} else if (o >= 0x80 && o <= 0x8f) {
			if (opsize)
				return 0;
			in->kind = K_COND;
			in->cc = o & 15;
			in->len = i + 4;
			in->target = addr + (uint64_t)in->len + (uint64_t)(int64_t)rel32(p + i);
			return 1;
		} else {
			if (o == 0x05 || o == 0x07 || o == 0x34 || o == 0x35 || o == 0x0b || o == 0xb9 || o == 0xff || o == 0x01)
				in->kind = K_STOP; // syscall, sysret, sysenter, sysexit, ud2, ud1, ud0, system (0F 01: xbegin-like, xgetbv...)
			if (!no_modrm2(o))
				i += 1 + modrm_len(p + i, in);
			if (imm8_2(o))
				i += 1;
		}
		in->len = i;
		return i <= 15;
	}
	if (op == 0x8f && (p[i] & 0x38) != 0)
		return 0; // XOP
	if ((op >= 0x06 && op <= 0x07) || op == 0x0e || (op >= 0x16 && op <= 0x17) || (op >= 0x1e && op <= 0x1f) ||
	    op == 0x27 || op == 0x2f || op == 0x37 || op == 0x3f || op == 0x60 || op == 0x61 || op == 0x82 ||
	    op == 0x9a || op == 0xce || op == 0xd4 || op == 0xd5 || op == 0xd6 || op == 0xea)
		return 0; // invalid in 64-bit mode
	int modrm_at = i;
	if (has_modrm1[op])
		i += 1 + modrm_len(p + i, in);
	switch (imm1[op]) {
	case 1: i += 1; break;
	case 2: i += 2; break;
	case 3: i += opsize ? 2 : 4; break;
	case 4: i += 3; break;
	}
	if (op >= 0xa0 && op <= 0xa3)
		i += in->addr32 ? 4 : 8;
	if (op >= 0xb8 && op <= 0xbf)
		i += (in->rex & 8) ? 8 : opsize ? 2 : 4;
	if ((op == 0xf6 || op == 0xf7) && ((p[modrm_at] >> 3) & 7) < 2)
		i += op == 0xf6 ? 1 : opsize ? 2 : 4;
	in->len = i;
	if (i > 15)
		return 0;
	switch (op) {
	case 0x70: case 0x71: case 0x72: case 0x73: case 0x74: case 0x75: case 0x76: case 0x77:
	case 0x78: case 0x79: case 0x7a: case 0x7b: case 0x7c: case 0x7d: case 0x7e: case 0x7f:
		in->kind = K_COND;
		in->cc = op & 15;
		in->target = addr + (uint64_t)i + (uint64_t)(int64_t)(int8_t)p[i - 1];
		break;
	case 0xeb:
		in->kind = K_JMP;
		in->target = addr + (uint64_t)i + (uint64_t)(int64_t)(int8_t)p[i - 1];
		break;
	case 0xe9:
	case 0xe8:
		if (opsize)
			return 0;
		in->kind = op == 0xe8 ? K_CALL : K_JMP;
		in->target = addr + (uint64_t)i + (uint64_t)(int64_t)rel32(p + i - 4);
		break;
	case 0xc3:
	case 0xc2:
		if (opsize)
			return 0;
		in->kind = K_RET;
		in->imm16 = op == 0xc2 ? (p[i - 2] | p[i - 1] << 8) : 0;
		break;
	case 0xff: {
		int reg = (p[modrm_at] >> 3) & 7;
		if (reg == 2 || reg == 4) {
			if (opsize || in->addr32 || in->seg)
				return 0;
			in->kind = reg == 2 ? K_ICALL : K_IJMP;
		} else if (reg == 3 || reg == 5)
			in->kind = K_STOP; // far
		break;
	}
	case 0xe0: case 0xe1: case 0xe2: case 0xe3: // loop, jrcxz
	case 0xca: case 0xcb: case 0xcc: case 0xcd: case 0xcf: // far returns, int3, int, iret
	case 0xf1: case 0xf4: case 0x9d: // int1, hlt, popf (may set TF)
		in->kind = K_STOP;
		break;
	case 0xc7:
		if (p[modrm_at] == 0xf8)
			in->kind = K_STOP; // xbegin
		break;
	}
	return 1;
}

// ---- Stepping with breakpoints ----
//
// A burst decodes forward from the PC, recording each instruction, following
// direct jumps and calls, up to the next instruction whose successor depends on
// the state (a conditional branch, a return, an indirect jump or call); it plants
// int3 there (through /proc/self/mem, as a debugger does) and lets the thread run.
// At the trap the successor is computed from the registers, the byte restored, the
// thread rewound to the branch, which then runs natively, and the burst goes on from
// the successor: one trap per block instead of one per instruction (a debug trap
// costs 20 µs on a VM that intercepts #DB, an int3 1.5 µs). A thread of the same
// process that reaches another thread's breakpoint has the branch emulated (its
// successor computed and its effect on rsp and the stack applied), so it never
// waits. Breakpoints are counted per address (two threads may plant the same one).

#define MAXBP 64
static struct bp {
	uint64_t addr;
	int refs;
	uint8_t orig;
} bps[MAXBP];
static atomic_flag bplock = ATOMIC_FLAG_INIT;

static void lock_bps(void) {
	while (atomic_flag_test_and_set_explicit(&bplock, memory_order_acquire))
		;
}
static void unlock_bps(void) { atomic_flag_clear_explicit(&bplock, memory_order_release); }

static int poke(int fd, uint64_t addr, uint8_t b) {
	return SYS4(SYS_pwrite64, fd, &b, 1, addr) == 1;
}

// safe_read copies n bytes at addr into dst, returning how many could be read.
static size_t safe_read(void *dst, uint64_t addr, size_t n) {
	if ((addr & 4095) + n <= 4096 && n <= 16) {
		// Within one page of code we are executing (or about to): readable.
		copy(dst, (const void *)addr, n);
		return n;
	}
	struct iovec l = {dst, n}, r = {(void *)addr, n};
	long k = rawsys(SYS_process_vm_readv, SYS0(SYS_getpid), (long)&l, 1, (long)&r, 1, 0);
	return k < 0 ? 0 : (size_t)k;
}

// read_code fills buf[16] with the original code bytes at addr (breakpoints masked).
static int read_code(uint64_t addr, uint8_t *buf) {
	fill(buf, 0x90, 16);
	size_t n = 16;
	if ((addr & 4095) > 4096 - 16) {
		size_t first = 4096 - (addr & 4095);
		copy(buf, (const void *)addr, first);
		n = first + safe_read(buf + first, addr + first, 16 - first);
	} else
		copy(buf, (const void *)addr, 16);
	lock_bps();
	for (int i = 0; i < MAXBP; i++)
		if (bps[i].refs && bps[i].addr >= addr && bps[i].addr < addr + n)
			buf[bps[i].addr - addr] = bps[i].orig;
	unlock_bps();
	return n > 0;
}

static int plant(int fd, uint64_t addr) {
	lock_bps();
	int ok = 0, free_slot = -1;
	for (int i = 0; i < MAXBP; i++) {
		if (bps[i].refs && bps[i].addr == addr) {
			bps[i].refs++;
			unlock_bps();
			return 1;
		}
		if (!bps[i].refs && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0) {
		uint8_t orig = *(const uint8_t *)addr;
		if (poke(fd, addr, 0xcc)) {
			bps[free_slot].addr = addr;
			bps[free_slot].orig = orig;
			bps[free_slot].refs = 1;
			ok = 1;
		}
	}
	unlock_bps();
	return ok;
}

static void unplant(int fd, uint64_t addr) {
	lock_bps();
	for (int i = 0; i < MAXBP; i++) {
		if (bps[i].refs && bps[i].addr == addr) {
			if (--bps[i].refs == 0)
				poke(fd, addr, bps[i].orig);
			break;
		}
	}
	unlock_bps();
}

static int planted(uint64_t addr) {
	int found = 0;
	lock_bps();
	for (int i = 0; i < MAXBP && !found; i++)
		found = bps[i].refs && bps[i].addr == addr;
	unlock_bps();
	return found;
}

static const int greg_of[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

static int cond_holds(int cc, uint64_t fl) {
	int cf = fl & 1, pf = (fl >> 2) & 1, zf = (fl >> 6) & 1, sf = (fl >> 7) & 1, of = (fl >> 11) & 1;
	int r;
	switch (cc >> 1) {
	case 0: r = of; break;
	case 1: r = cf; break;
	case 2: r = zf; break;
	case 3: r = cf | zf; break;
	case 4: r = sf; break;
	case 5: r = pf; break;
	case 6: r = sf != of; break;
	default: r = zf | (sf != of); break;
	}
	return (cc & 1) ? !r : r;
}

// successor computes where the branch in at addr goes in the state g.
static int successor(const struct insn *in, uint64_t addr, const greg_t *g, uint64_t *next) {
	switch (in->kind) {
	case K_COND:
		*next = cond_holds(in->cc, (uint64_t)g[REG_EFL]) ? in->target : addr + (uint64_t)in->len;
		return 1;
	case K_RET:
		return safe_read(next, (uint64_t)g[REG_RSP], 8) == 8;
	case K_IJMP:
	case K_ICALL: {
		int mod = in->modrm >> 6, rm = in->modrm & 7;
		int rb = (in->rex & 1) << 3, rx = (in->rex & 2) << 2;
		if (mod == 3) {
			*next = (uint64_t)g[greg_of[rm | rb]];
			return 1;
		}
		uint64_t ea = (uint64_t)(int64_t)in->disp;
		if (in->has_sib) {
			int base = in->sib & 7, index = ((in->sib >> 3) & 7) | rx, scale = in->sib >> 6;
			if (index != 4)
				ea += (uint64_t)g[greg_of[index]] << scale;
			if (!(base == 5 && mod == 0))
				ea += (uint64_t)g[greg_of[base | rb]];
		} else if (rm == 5 && mod == 0)
			ea += addr + (uint64_t)in->len;
		else
			ea += (uint64_t)g[greg_of[rm | rb]];
		return safe_read(next, ea, 8) == 8;
	}
	}
	return 0;
}

// emulate applies the branch in at addr to g (for a thread that reached another
// thread's breakpoint).
static int emulate(const struct insn *in, uint64_t addr, greg_t *g) {
	uint64_t next;
	if (!successor(in, addr, g, &next))
		return 0;
	if (in->kind == K_RET)
		g[REG_RSP] += 8 + in->imm16;
	if (in->kind == K_ICALL) {
		g[REG_RSP] -= 8;
		*(uint64_t *)g[REG_RSP] = addr + (uint64_t)in->len;
	}
	g[REG_RIP] = (greg_t)next;
	return 1;
}

static void end_burst(void);
static void refuse(int m);
static void drop(int m, int refused);

// hw_plant moves this thread's hardware breakpoint to addr, opening its perf event
// at the burst's first stop. The event sends SIGTRAP (si_code TRAP_PERF, our
// marker in si_perf_data) to this thread alone, before the instruction runs; the
// kernel sets the resume flag, so the instruction runs once the handler returns.
static int hw_plant(uint64_t addr) {
#ifndef PERF_ATTR_SIZE_VER7
	// Kernel headers older than 5.13: no sigtrap events.
	(void)addr;
	return 0;
#else
	struct perf_event_attr a;
	fill(&a, 0, sizeof a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof a;
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = broken & (1u << M_HW | (ts.trial ? 0 : 8u)) ? addr + 1 : addr; // broken: never reached
	a.bp_len = sizeof(long);
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1; // required with sigtrap
	a.sig_data = (uint64_t)&hw_marker;
	if (ts.hwfd >= 0)
		return SYS3(SYS_ioctl, ts.hwfd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0;
	int fd = (int)rawsys(SYS_perf_event_open, (long)&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ts.hwfd = fd;
	return 1;
#endif
}

// walk records the instructions from a up to the next branch whose successor
// depends on the state, and plants a breakpoint there; or ends the burst.
static void walk(uint64_t a) {
	for (;;) {
		uint8_t buf[16];
		struct insn in;
		if (!read_code(a, buf) || !decode(buf, a, &in)) {
			ts.pcs[ts.b->n++] = a; // it runs next, whatever it is
			end_burst();
			return;
		}
		ts.pcs[ts.b->n++] = a;
		if (ts.b->n >= ts.len || in.kind == K_STOP) {
			end_burst();
			return;
		}
		switch (in.kind) {
		case K_OTHER:
			a += (uint64_t)in.len;
			continue;
		case K_JMP:
		case K_CALL:
			a = in.target;
			continue;
		}
		if (ts.memfd >= 0 ? !(broken & 1u << M_INT3) && plant(ts.memfd, a) : hw_plant(a))
			ts.bp = a;
		else {
			int m = ts.memfd >= 0 ? M_INT3 : M_HW;
			end_burst(); // first: refuse may write a note after the burst's record
			refuse(m);
		}
		return;
	}
}

// end_burst closes the current burst.
static void end_burst(void) {
	if (!ts.cur)
		return;
	if (ts.bp && ts.memfd >= 0)
		unplant(ts.memfd, ts.bp);
	ts.bp = 0;
	if (ts.hwfd >= 0) {
		SYS3(SYS_close, ts.hwfd, 0, 0);
		ts.hwfd = -1;
	}
	if (ts.memfd >= 0) {
		SYS3(SYS_close, ts.memfd, 0, 0);
		ts.memfd = -1;
	}
	uint64_t c = now(CLOCK_THREAD_CPUTIME_ID) - ts.t0;
	if (ts.trial) {
		ts.trial_n = ts.b->n;
		ts.trial_ns = c;
		ts.cur = NULL;
		return;
	}
	ts.b->cost_ns = c;
	ts.bursts++;
	ts.cost += ((double)c - ts.cost) / (double)ts.bursts;
	// The record was reserved for burst_len PCs; shrink it to those recorded (the
	// stack bytes follow the PCs, so move them down).
	uint32_t stack = ts.b->stack;
	uint32_t pad = (stack + 7) & ~7U;
	char *st = (char *)(ts.pcs + burst_len);
	if (ts.b->n < burst_len && stack)
		copy(ts.pcs + ts.b->n, st, pad); // moving down: a forward copy is safe
	ts.cur->len = (uint32_t)(sizeof(struct rec) + sizeof(struct burst) + 8 * ts.b->n + pad);
	commit(ts.cur);
	ts.cur = NULL;
}

static int is_syscall(const uint8_t *p) {
	// (trap-flag stepping only)
	return (p[0] == 0x0f && (p[1] == 0x05 || p[1] == 0x34)) || (p[0] == 0xcd); // syscall, sysenter, int n
}

static int is_rep(const uint8_t *p) {
	for (int i = 0; i < 4; i++) {
		if (p[i] == 0xf3 || p[i] == 0xf2)
			return 1;
		if (p[i] != 0x66 && p[i] != 0x67 && !(p[i] >= 0x40 && p[i] <= 0x4f))
			return 0;
	}
	return 0;
}

static void forward(int idx, int sig, siginfo_t *si, void *uc);

static void begin_burst(greg_t *g, int m);

static void on_prof(int sig, siginfo_t *si, void *ucv) {
	int trial = si->si_code == SI_QUEUE && si->si_value.sival_ptr == &trial_marker;
	int ours = trial || (si->si_code == SI_TIMER && si->si_value.sival_ptr == &timer_marker) ||
	           (si->si_code > 0 && ts.perffd >= 0 && si->si_fd == ts.perffd);
	if (!ours) {
		forward(0, sig, si, ucv);
		return;
	}
	ucontext_t *uc = ucv;
	if (ts.trial) {
		// A trial is under way in this thread (run_trial): its own signal starts
		// it; a timer's expiry meanwhile takes no burst.
		if (trial && !ts.cur)
			begin_burst(uc->uc_mcontext.gregs, ts.trial - 1);
		else if (!trial)
			arm_next();
		return;
	}
	if (trial)
		return; // a trial that ended before its signal came
	if (ts.busy) {
		// The library itself is at work on this thread (exit, dlopen): leave it be.
		arm_next();
		atomic_fetch_add(&hdr->skipped, 1);
		return;
	}
	if (ts.cur) {
		// Its trap never came: the trap flag lost (a longjmp out of a handler), or
		// a method that stopped delivering; a few in a row drop the method.
		int m = ts.method;
		end_burst();
		if ((m == M_HW || m == M_TF) && atomic_fetch_add(&stale[m], 1) + 1 >= STALE_MAX)
			drop(m, 0);
	}
	if (!enabled || !ts.armed) {
		disarm_thread();
		return;
	}
	arm_next();
	greg_t *g = uc->uc_mcontext.gregs;
	uint64_t pc = (uint64_t)g[REG_RIP];
	if (((const unsigned long *)&uc->uc_sigmask)[0] & (1UL << (SIGTRAP - 1)) || is_syscall((const uint8_t *)pc)) {
		atomic_fetch_add(&hdr->skipped, 1);
		return;
	}
	need_maps(); // before the burst's clock starts: a cost of the start, not of bursts
	int m = multi ? atomic_load(&m_multi) : atomic_load(&m_single);
	begin_burst(g, m < 0 ? M_PC : m);
}

// begin_burst starts a burst at the interrupted context g, stepped by method m: a
// trial's (ts.trial) in the thread's trial buffer, without the stack; the
// program's in a record of its chunk, with the top of the stack.
static void begin_burst(greg_t *g, int m) {
	uint64_t t0 = now(CLOCK_THREAD_CPUTIME_ID);
	uint64_t pc = (uint64_t)g[REG_RIP];
	struct burst *b;
	uint64_t *pcs;
	if (ts.trial) {
		ts.len = TRIAL_PCS;
		ts.cur = &ts.trial_rec;
		b = &ts.trial_b;
		fill(b, 0, sizeof *b);
		pcs = ts.trial_pcs;
	} else {
		uint64_t rsp = (uint64_t)g[REG_RSP];
		uint32_t stack = 0;
		uint64_t hi = 0;
		if (ts.stack_hi && rsp > ts.stack_lo && rsp < ts.stack_hi)
			hi = ts.stack_hi;
		else if (stack_bytes) {
			// Not on the thread's stack: in a handler running on the alternate
			// signal stack (sigaltstack) most likely, whose bounds the kernel knows.
			stack_t ss;
			if (SYS3(SYS_sigaltstack, 0, &ss, 0) == 0 && !(ss.ss_flags & SS_DISABLE) &&
			    rsp > (uint64_t)ss.ss_sp && rsp < (uint64_t)ss.ss_sp + ss.ss_size)
				hi = (uint64_t)ss.ss_sp + ss.ss_size;
		}
		if (stack_bytes && hi) {
			uint64_t room = hi - rsp;
			stack = (uint32_t)(room < stack_bytes ? room : stack_bytes);
		}
		uint32_t len = (uint32_t)(sizeof(struct rec) + sizeof(struct burst) + 8 * burst_len + ((stack + 7) & ~7U));
		struct rec *r = reserve(len);
		if (!r) {
			atomic_fetch_add(&hdr->lost, 1);
			return;
		}
		r->type = REC_BURST;
		r->len = len;
		b = (struct burst *)(r + 1);
		b->time_ns = now(CLOCK_MONOTONIC) - start_ns;
		b->cost_ns = 0;
		b->stack = stack;
		b->rsp = rsp;
		b->rbp = (uint64_t)g[REG_RBP];
		pcs = (uint64_t *)(b + 1);
		if (stack)
			copy(pcs + burst_len, (void *)rsp, stack);
		ts.cur = r;
		ts.len = burst_len;
	}
	b->n = 1;
	pcs[0] = pc;
	ts.b = b;
	ts.pcs = pcs;
	ts.t0 = t0;
	ts.method = m;
	ts.bp = 0;
	ts.memfd = -1;
	if (ts.len <= 1 || m == M_PC) {
		end_burst();
		return;
	}
	if (m == M_TF) {
		if (!(broken & (1u << M_TF | (ts.trial ? 0 : 16u))))
			g[REG_EFL] |= 0x100; // TF: trap after the next instruction
		return;
	}
	if (m == M_INT3 && (ts.memfd = (int)SYS4(SYS_openat, AT_FDCWD, "/proc/self/mem", O_RDWR | O_CLOEXEC, 0)) < 0) {
		ts.memfd = -1;
		end_burst();
		refuse(M_INT3);
		return;
	}
	// Breakpoints: int3 while the process has one thread, else hardware ones.
	b->n = 0;
	walk(pc); // a refused breakpoint ends this burst; later ones step with the trap flag
}

// refuse notes that method m's breakpoint was refused (the memory write, the perf
// event): in a trial, it fails the trial; in a burst of the program (int3, which
// has no trial, or a method whose trial delivered, refused later: descriptors or
// debug registers run out), the later bursts step with the trap flag (a handler
// cannot run a trial: SIGTRAP is blocked in it).
static void refuse(int m) {
	if (ts.trial) {
		ts.refused = 1;
		return;
	}
	drop(m, 1);
}

// drop stops method m in this process, its breakpoint refused (refused) or its
// traps no longer coming: later bursts step with the trap flag, or, when the trap
// flag is dropped, are one PC. The first drop of a method writes a note.
static void drop(int m, int refused) {
	int next = m == M_TF ? M_PC : M_TF, moved = 0;
	for (int i = 0; i < 2; i++) {
		_Atomic int *slot = i ? &m_multi : &m_single;
		int from = m;
		if (atomic_compare_exchange_strong(slot, &from, next)) {
			moved = 1;
			atomic_store(&hdr->method[i], (uint64_t)next + 1);
		}
	}
	if (!moved)
		return;
	uint64_t none = 0;
	if (refused)
		atomic_compare_exchange_strong(&hdr->trial[m], &none, T_REFUSED);
	else // delivered in its trial, then stopped: keep the trial's PCs and cost
		atomic_store(&hdr->trial[m], (atomic_load(&hdr->trial[m]) & ~255ULL) | T_STOPPED);
	static const char *const note[] = {
		"int3 breakpoints refused during the run (writing /proc/self/mem failed): later bursts step with the trap flag",
		"hardware breakpoints refused by the kernel during the run: later bursts step with the trap flag",
		"hardware breakpoints stopped delivering during the run (3 bursts in a row whose trap never came): later bursts step with the trap flag",
		"the trap flag stopped delivering during the run (3 bursts in a row whose trap never came): later bursts are one PC"};
	const char *n = note[refused ? m == M_HW : m == M_HW ? 2 : 3];
	size_t k = 0;
	while (n[k])
		k++;
	put_text(REC_NOTE, n, k);
}

static void on_trap(int sig, siginfo_t *si, void *ucv) {
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	if (si->si_code == TRAP_PERF) {
		// si_perf_data (glibc 2.36 does not name it): after si_addr in _sigfault.
		uint64_t data = *(const uint64_t *)((const char *)si + 24);
		if (data != (uint64_t)&hw_marker) {
			forward(1, sig, si, ucv);
			return;
		}
		uint64_t x = (uint64_t)g[REG_RIP];
		if (!ts.cur || ts.hwfd < 0 || ts.bp != x)
			return; // a stale hit: the burst has ended, the instruction runs
		atomic_store(&stale[M_HW], 0);
		uint8_t buf[16];
		struct insn in;
		uint64_t next;
		ts.bp = 0;
		if (read_code(x, buf) && decode(buf, x, &in) && successor(&in, x, g, &next))
			walk(next);
		else
			end_burst();
		return;
	}
	if (si->si_code == SI_KERNEL) {
		// int3: ours (this burst's, another thread's, or a stale one), or the program's.
		uint64_t x = (uint64_t)g[REG_RIP] - 1;
		uint8_t buf[16];
		struct insn in;
		if (ts.cur && ts.bp == x) {
			uint64_t next;
			int ok = read_code(x, buf) && decode(buf, x, &in) && successor(&in, x, g, &next);
			unplant(ts.memfd, x);
			ts.bp = 0;
			g[REG_RIP] = (greg_t)x; // the branch runs natively
			if (ok)
				walk(next);
			else
				end_burst();
			return;
		}
		if (planted(x)) {
			if (!(read_code(x, buf) && decode(buf, x, &in) && emulate(&in, x, g)))
				g[REG_RIP] = (greg_t)x; // retry when it is gone
			return;
		}
		if (*(volatile uint8_t *)x != 0xcc) {
			g[REG_RIP] = (greg_t)x; // a breakpoint removed since it was hit
			return;
		}
		forward(1, sig, si, ucv);
		return;
	}
	if (!ts.cur || si->si_code != TRAP_TRACE || !(g[REG_EFL] & 0x100)) {
		if (si->si_code == TRAP_TRACE && !ts.cur && !(prog_set[1] && prog_act[1].sa_handler != SIG_DFL)) {
			// A burst ended outside this handler (exit, a new burst) while the
			// trap flag was still set in this context: clear it.
			g[REG_EFL] &= ~0x100;
			return;
		}
		forward(1, sig, si, ucv);
		return;
	}
	uint64_t pc = (uint64_t)g[REG_RIP];
	const uint8_t *p = (const uint8_t *)pc;
	atomic_store(&stale[M_TF], 0);
	if (pc == ts.pcs[ts.b->n - 1] && is_rep(p)) {
		// Another iteration of a repeated string instruction: end here rather than
		// trap once per iteration.
		g[REG_EFL] &= ~0x100;
		end_burst();
		return;
	}
	ts.pcs[ts.b->n++] = pc;
	if (ts.b->n >= ts.len || is_syscall(p)) {
		g[REG_EFL] &= ~0x100;
		end_burst();
	}
}

// forward hands a signal that is not the sampler's to the program's action for it.
static void forward(int idx, int sig, siginfo_t *si, void *uc) {
	struct sigaction *a = &prog_act[idx];
	if (!prog_set[idx] || a->sa_handler == SIG_DFL) {
		// Default action: restore it and raise again (for a trap, the instruction
		// after it has not run; the default terminates the process anyway).
		struct sigaction d = {0};
		d.sa_handler = SIG_DFL;
		real_sigaction(sig, &d, NULL);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, sig);
		pthread_sigmask(SIG_UNBLOCK, &s, NULL);
		raise(sig);
		return;
	}
	if (a->sa_handler == SIG_IGN)
		return;
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, si, uc);
	else
		a->sa_handler(sig);
}

static void install(int sig, void (*h)(int, siginfo_t *, void *)) {
	struct sigaction sa = {0};
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	// Every signal is blocked in the handlers: they never nest, and no handler of the
	// program runs inside them (where SIGTRAP is blocked) while a breakpoint is planted.
	sigfillset(&sa.sa_mask);
	real_sigaction(sig, &sa, NULL);
}

// take_over is called when the program sets its own action for SIGPROF or SIGTRAP:
// sampling stops in this process (bursts in flight end at their next trap) and the
// conflict is noted.
static void take_over(int sig) {
	if (!enabled)
		return;
	enabled = 0;
	uint64_t zero = 0;
	atomic_compare_exchange_strong(&hdr->conflict, &zero, (uint64_t)sig);
	disarm_thread();
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
	if (!real_sigaction)
		real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	int idx = sig == SIGPROF ? 0 : sig == SIGTRAP ? 1 : -1;
	if (idx < 0 && hdr && act && sigismember(&act->sa_mask, SIGTRAP) == 1) {
		// A handler must not block SIGTRAP: it could meet a burst's breakpoint.
		struct sigaction a = *act;
		sigdelset(&a.sa_mask, SIGTRAP);
		return real_sigaction(sig, &a, old);
	}
	if (idx < 0 || !hdr)
		return real_sigaction(sig, act, old);
	if (old) {
		if (prog_set[idx])
			*old = prog_act[idx];
		else {
			memset(old, 0, sizeof *old);
			old->sa_handler = SIG_DFL;
		}
	}
	if (act) {
		// The sampler's handler stays installed and hands every signal that is
		// not its own to the program's action (forward), so that timers armed in
		// other threads, or a burst in flight, never reach the program.
		prog_act[idx] = *act;
		prog_set[idx] = 1;
		if (act->sa_handler != SIG_DFL)
			take_over(sig);
	}
	return 0;
}

sighandler_t signal(int sig, sighandler_t h) {
	struct sigaction sa = {0}, old;
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

// ---- Checking that a stepping method delivers ----
//
// A kernel may accept a perf breakpoint event and never deliver its trap, a
// hypervisor may lose the trap flag's debug exception, /proc/self/mem may refuse
// writes: a method is used only after a trial burst in the process has shown that it
// delivers. run_trial sends this thread a SIGPROF marked as a trial, whose handler
// starts a burst of TRIAL_PCS stepped by the method (begin_burst) at the return of
// that system call; the thread then runs trial_code, whose loop ends each block in a
// conditional branch. A method delivers when the burst reached its TRIAL_PCS within
// TRIAL_MAX_NS of CPU time; the outcome goes to the header (trial[m]).

static volatile uint64_t trial_sink;

__attribute__((noinline)) static void trial_code(void) {
	for (int i = 0; i < 64; i++)
		trial_sink = trial_sink * 3 + (uint64_t)i;
}

static void run_trial(int m) {
	if (atomic_load(&hdr->trial[m]))
		return; // tried already, in this process or before the fork
	unsigned long set = (1UL << (SIGPROF - 1)) | (1UL << (SIGTRAP - 1)), old;
	SYS4(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, &old, 8);
	ts.trial = m + 1;
	ts.refused = 0;
	ts.trial_n = 0;
	ts.trial_ns = 0;
	siginfo_t si;
	fill(&si, 0, sizeof si);
	si.si_signo = SIGPROF;
	si.si_code = SI_QUEUE;
	si.si_pid = (pid_t)SYS0(SYS_getpid);
	si.si_uid = (uid_t)SYS0(SYS_getuid);
	si.si_value.sival_ptr = &trial_marker;
	SYS4(SYS_rt_tgsigqueueinfo, si.si_pid, ts.tid, SIGPROF, &si);
	trial_code();
	// A burst still open stopped short: its trap never came. Clear the trap flag
	// before SIGTRAP is blocked (a debug trap while it is blocked kills), then
	// end it (closing its event, removing its int3).
	__asm__ volatile("pushfq; andq $-257, (%%rsp); popfq" ::: "memory", "cc");
	SYS4(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 8);
	if (ts.cur)
		end_burst();
	ts.trial = 0;
	SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, 8);
	uint64_t outcome = ts.refused ? T_REFUSED : ts.trial_n < TRIAL_PCS ? T_SHORT : ts.trial_ns > TRIAL_MAX_NS ? T_COSTLY : T_OK;
	uint64_t none = 0;
	atomic_compare_exchange_strong(&hdr->trial[m], &none, outcome | (uint64_t)ts.trial_n << 8 | ts.trial_ns << 16);
}

// choose returns the first of the n methods in order whose trial burst delivers,
// trying them in turn, or M_PC (bursts of one PC) when none does. int3 is taken
// without a trial: its trap is an instruction's, which no kernel or hypervisor
// loses, and what can fail, the write through /proc/self/mem, is checked at every
// breakpoint (refuse). A trial would cost every run: the first write to the
// program's code through /proc/self/mem takes 130-330 µs of CPU on this project's
// VM, as long as the library's whole start.
static int choose(const int *order, int n) {
	if (burst_len <= 1)
		return M_PC;
	for (int i = 0; i < n; i++) {
		if (order[i] == M_INT3)
			return M_INT3;
		run_trial(order[i]);
		if ((atomic_load(&hdr->trial[order[i]]) & 255) == T_OK)
			return order[i];
	}
	return M_PC;
}

// choose_methods sets the method of one-thread bursts (at start) or of threads' (at
// the first pthread_create), when not yet chosen: int3, then a hardware breakpoint,
// then the trap flag for one thread; a hardware breakpoint, then the trap flag for
// several (another thread could meet an int3 while it blocks SIGTRAP); the trap flag
// alone with --stepping singlestep.
static void choose_methods(int threads) {
	static const int one[] = {M_INT3, M_HW, M_TF}, several[] = {M_HW, M_TF}, tf[] = {M_TF};
	_Atomic int *slot = threads ? &m_multi : &m_single;
	if (atomic_load(slot) >= 0)
		return;
	int m = use_tf ? choose(tf, 1) : threads ? choose(several, 2) : choose(one, 3);
	atomic_store(slot, m);
	atomic_store(&hdr->method[threads], (uint64_t)m + 1);
}

// Threads: armed before the start routine runs, disarmed when they end.
struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t order;
};

static pthread_key_t exit_key;
static _Atomic uint64_t thread_order;

// block_sampler blocks SIGPROF and SIGTRAP in this thread for good (it is ending).
static void block_sampler(void) {
	unsigned long set = (1UL << (SIGPROF - 1)) | (1UL << (SIGTRAP - 1));
	SYS4(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 8);
}

static void thread_exit(void *unused) {
	(void)unused;
	ts.busy = 1;
	block_sampler();
	if (ts.cur)
		end_burst();
	disarm_thread();
}

static void *start_thread(void *p) {
	struct start s = *(struct start *)p;
	free(p);
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		void *lo;
		size_t size;
		if (pthread_attr_getstack(&a, &lo, &size) == 0) {
			ts.stack_lo = (uint64_t)lo;
			ts.stack_hi = (uint64_t)lo + size;
		}
		pthread_attr_destroy(&a);
	}
	pthread_setspecific(exit_key, (void *)1);
	arm_thread(s.order);
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_create");
	if (!enabled)
		return real(t, attr, fn, arg);
	struct start *s = malloc(sizeof *s);
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->order = atomic_fetch_add(&thread_order, 1) + 1;
	choose_methods(1); // the first time: a trial burst of the threads' method
	multi = 1; // before the thread exists; this thread has no breakpoint now (a burst ends at a system call)
	int err = real(t, attr, start_thread, s);
	if (err)
		free(s);
	return err;
}

// dlopen: the new library's mappings are recorded.
void *dlopen(const char *file, int mode) {
	static void *(*real)(const char *, int);
	if (!real)
		real = dlsym(RTLD_NEXT, "dlopen");
	void *h = real(file, mode);
	if (h && hdr && atomic_load(&maps_state) != 0) { // else the first burst reads them
		ts.busy = 1;
		put_maps(0);
		ts.busy = 0;
	}
	return h;
}

// The user's launcher's mode (FRAGPROF_SAMPLE_OUT): out_prefix is the records'
// path prefix (empty in fragprof's own runs); lib_start_ns the CPU time the
// constructor took (0 in a forked child, which did not pay it).
static char out_prefix[4096];
static uint64_t lib_start_ns;
static int owner_pid; // the process whose record hdr holds
static int recorded;  // its record is written

static int own_file(struct header *parent);

static void child_after_fork(void) {
	// Only the forking thread exists; its chunk and timer belong to the parent. The
	// breakpoints other threads had planted are in this copy of the code: remove them.
	atomic_flag_clear(&bplock);
	atomic_flag_clear(&maps_lock); // held by a thread of the parent, perhaps: not here
	int fd = -1;
	for (int i = 0; i < MAXBP; i++) {
		if (bps[i].refs) {
			if (fd < 0)
				fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
			poke(fd, bps[i].addr, bps[i].orig);
			bps[i].refs = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	ts.bp = 0;
	ts.memfd = -1;
	multi = 0;
	if (ts.hwfd >= 0)
		SYS3(SYS_close, ts.hwfd, 0, 0); // the parent thread's breakpoint
	ts.hwfd = -1;
	if (ts.perffd >= 0)
		SYS3(SYS_close, ts.perffd, 0, 0); // the parent thread's event
	ts.perffd = -1;
	ts.chunk = NULL;
	ts.cur = NULL;
	ts.armed = 0;
	if (out_prefix[0] && hdr && !own_file(hdr))
		enabled = 0; // no file of its own: the child runs unsampled
	if (enabled)
		arm_thread(atomic_fetch_add(&thread_order, 1) + 1);
}

// own_file maps a fresh anonymous sampler file (memfd: nothing to clean up, and
// tmpfs, whose pages cost the program little to fault in) as hdr. In a forked child
// (parent: the inherited mapping) it starts with the parent's header, whose stepping
// trials and methods hold for the child too, and no chunks; the child records its
// own mappings. 0 with one line on stderr when it cannot.
static int own_file(struct header *parent) {
	const uint64_t size = 1ULL << 30; // sparse: only what is written takes room
	int fd = (int)SYS3(SYS_memfd_create, "fragprof-sample", 1 /* MFD_CLOEXEC */, 0);
	void *m = MAP_FAILED;
	if (fd >= 0) {
		if (ftruncate(fd, (off_t)size) == 0)
			m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	}
	if (m == MAP_FAILED) {
		dprintf(2, "fragprof: no room for the sampler's file (memfd_create, mmap): %s not sampled\n", out_prefix);
		return 0;
	}
	struct header *h = m;
	if (parent) {
		copy(h, parent, sizeof *h);
		munmap(parent, (size_t)parent->size);
		h->lost = h->skipped = h->maps_ns = 0;
		atomic_store(&maps_state, 0);
		lib_start_ns = 0;
	}
	owner_pid = (int)SYS0(SYS_getpid);
	recorded = 0;
	h->magic = FPS_MAGIC;
	h->size = size;
	h->next = FPS_HEADER;
	h->chunk = FPS_CHUNK;
	hdr = h;
	return 1;
}

// put_all writes n bytes to fd; 0 when it could not.
static int put_all(int fd, const void *p, size_t n) {
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 0;
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return 1;
}

// duration formats ns as Go's time.Duration prints a whole number of ms, µs or ns.
static void duration(char *buf, size_t n, uint64_t ns) {
	if (ns % 1000000 == 0)
		snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000));
	else if (ns % 1000 == 0)
		snprintf(buf, n, "%lluµs", (unsigned long long)(ns / 1000));
	else
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
}

// write_record writes this process's record to out_prefix.<pid>: the info lines
// `fragprof sample` writes (cmd, interval, burst, overhead, sampler), the library's
// own cost figures (library_start_ns: its constructor's CPU time; process_cpu_ns
// and children_cpu_ns: the process's own CPU time now and its waited-for
// children's, getrusage; each child that recorded itself holds its own), the
// sampler's file as it is, and info runs 1 (the reader counts the bursts and
// reads the stepping from the file). Written to out_prefix.<pid>.tmp and linked to
// its name, so that a reader never sees half a record and no record is replaced;
// when it cannot, one line on stderr names the path and the program's exit goes on.
static void write_record(void) {
	char path[sizeof out_prefix + 32], tmp[sizeof path + 8], head[8192];
	int pid = (int)SYS0(SYS_getpid);
	snprintf(path, sizeof path, "%s.%d", out_prefix, pid);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	uint64_t cpu = 0, kids_cpu = 0;
	struct timeval tv[4] = {self.ru_utime, self.ru_stime, kids.ru_utime, kids.ru_stime};
	for (int i = 0; i < 4; i++)
		*(i < 2 ? &cpu : &kids_cpu) += (uint64_t)tv[i].tv_sec * 1000000000ULL + (uint64_t)tv[i].tv_usec * 1000ULL;
	char cmd[4096];
	size_t nc = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t k;
		while (nc < sizeof cmd - 1 && (k = read(fd, cmd + nc, sizeof cmd - 1 - nc)) > 0)
			nc += (size_t)k;
		close(fd);
	}
	while (nc > 0 && cmd[nc - 1] == 0)
		nc--;
	for (size_t i = 0; i < nc; i++)
		if (cmd[i] == 0 || cmd[i] == '\n')
			cmd[i] = ' ';
	cmd[nc] = 0;
	char iv[32];
	duration(iv, sizeof iv, interval_ns);
	uint64_t used = atomic_load(&hdr->next);
	if (used > hdr->size)
		used = hdr->size;
	int n = snprintf(head, sizeof head,
		"fragprof-record 1\ninfo cmd %s\ninfo interval %s\ninfo burst %u\ninfo overhead %g%%\ninfo sampler inprocess\n"
		"info library_start_ns %llu\ninfo process_cpu_ns %llu\ninfo children_cpu_ns %llu\nraw %llu\n",
		cmd, iv, burst_len, 100 * share, (unsigned long long)lib_start_ns, (unsigned long long)cpu,
		(unsigned long long)kids_cpu, (unsigned long long)used);
	static const char tail[] = "\ninfo runs 1\n";
	int ok = 0;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ok = put_all(fd, head, (size_t)n) && put_all(fd, hdr, used) && put_all(fd, tail, sizeof tail - 1);
		ok = close(fd) == 0 && ok;
		// link, not rename: a record left by an earlier process of the same ID (an
		// earlier run, or IDs wrapped around) is kept, and this one is OUT.<pid>.<n>.
		size_t np = strlen(path);
		for (int i = 1; ok && link(tmp, path) != 0; i++) {
			if (errno != EEXIST || i > 999)
				ok = 0;
			else
				snprintf(path + np, sizeof path - np, ".%d", i);
		}
		int e = errno;
		unlink(tmp);
		errno = e;
	}
	if (!ok)
		dprintf(2, "fragprof: cannot write the record %s: %s\n", path, strerror(errno));
}

static void at_exit(void) {
	ts.busy = 1;
	block_sampler();
	if (ts.cur)
		end_burst();
	disarm_thread();
	if (out_prefix[0] && hdr && !recorded && (int)SYS0(SYS_getpid) == owner_pid) {
		recorded = 1;
		write_record();
	}
}

// _exit and _Exit, which shells (dash) and forked children end with, run no atexit
// handler: in the user's launcher's mode they write the record first. A vfork child,
// which shares its parent's memory, has another process ID than the file's owner
// and writes none.
void _exit(int status) {
	if (out_prefix[0] && hdr)
		at_exit();
	for (;;)
		SYS3(SYS_exit_group, status, 0, 0);
}

void _Exit(int status) { _exit(status); }

// unsetenv_entry removes our library from LD_PRELOAD, restoring the program's own.
static void restore_env(void) {
	const char *orig = getenv("FRAGPROF_SAMPLE_LD_PRELOAD");
	if (orig && *orig)
		setenv("LD_PRELOAD", orig, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv("FRAGPROF_SAMPLE_LD_PRELOAD");
	unsetenv("FRAGPROF_SAMPLE");
	unsetenv("FRAGPROF_SAMPLE_FILE");
}

// main_stack sets the main thread's stack bounds without reading the mappings: the
// kernel copies the program's file name (AT_EXECFN) to the top of the stack, so the
// page boundary above it is the stack's end.
static void main_stack(void) {
	uint64_t fn = (uint64_t)getauxval(AT_EXECFN);
	if (!fn)
		return;
	ts.stack_hi = (fn + 4096) & ~4095ULL;
	ts.stack_lo = ts.stack_hi > (64ULL << 20) ? ts.stack_hi - (64ULL << 20) : 0;
}

__attribute__((constructor)) static void init(void) {
	real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	const char *file = getenv("FRAGPROF_SAMPLE_FILE");
	const char *conf = getenv("FRAGPROF_SAMPLE");
	const char *out = getenv("FRAGPROF_SAMPLE_OUT");
	if ((!file && !(out && *out)) || !conf) {
		return;
	}
	uint64_t init_t0 = now(CLOCK_THREAD_CPUTIME_ID);
	// conf: interval_ns burst seed share_ppm stack_bytes trap_flag posix_timer tick_ns cost0_ns broken probe
	char *s = (char *)conf;
	interval_ns = strtoull(s, &s, 10);
	burst_len = (uint32_t)strtoul(s, &s, 10);
	seed = strtoull(s, &s, 10);
	share = (double)strtoull(s, &s, 10) / 1e6;
	stack_bytes = strtoull(s, &s, 10);
	use_tf = (int)strtoul(s, &s, 10);
	use_timer = (int)strtoul(s, &s, 10);
	tick_ns = strtoull(s, &s, 10);
	cost0_ns = strtoull(s, &s, 10);
	broken = (unsigned)strtoul(s, &s, 10);
	int probe = (int)strtoul(s, &s, 10);
	if (burst_len < 1 || burst_len > FPS_MAXBURST)
		burst_len = 25;
	if (stack_bytes > FPS_MAXSTACK)
		stack_bytes = FPS_MAXSTACK;
	if (interval_ns < 1000)
		interval_ns = 1000;
	if (!file) { // started by the user's launcher (fragprof sample --env)
		size_t n = strlen(out);
		if (n + 32 > sizeof out_prefix) {
			dprintf(2, "fragprof: the record's path %s is too long: not sampled\n", out);
			return;
		}
		copy(out_prefix, out, n + 1);
		if (!own_file(NULL))
			return;
	} else {
		int fd = open(file, O_RDWR | O_CLOEXEC);
		restore_env();
		if (fd < 0)
			return;
		off_t size = lseek(fd, 0, SEEK_END);
		void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return;
		hdr = m;
		if (hdr->magic != FPS_MAGIC || hdr->size != (uint64_t)size) {
			munmap(m, (size_t)size);
			hdr = NULL;
			return;
		}
	}
	start_ns = now(CLOCK_MONOTONIC);
	ts.tid = (pid_t)syscall(SYS_gettid);
	main_stack();
	atomic_store(&hdr->started, 1);
	pthread_key_create(&exit_key, thread_exit);
	pthread_atfork(NULL, NULL, child_after_fork);
	atexit(at_exit);
	install(SIGPROF, on_prof);
	install(SIGTRAP, on_trap);
	enabled = 1;
	if (probe) // fragprof sample --probe-host: try every method
		for (int m = M_INT3; m <= M_TF; m++)
			run_trial(m);
	choose_methods(0);
	arm_thread(0);
	lib_start_ns = now(CLOCK_THREAD_CPUTIME_ID) - init_t0;
}
