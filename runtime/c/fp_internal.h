/* fp_internal.h: what the runtime's C files share. Not for programs: they include
 * fragprof.h. */
#ifndef FP_INTERNAL_H
#define FP_INTERNAL_H
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fork handlers are registered through glibc's __register_atfork, which is what
 * pthread_atfork does: pthread_atfork itself comes from libc_nonshared.a, which the
 * linker places right after the program's own code, so that a function of the
 * program that falls off its end (undefined behaviour that -O2 makes of a store
 * through a null pointer: the code ends at an `unreachable`) would run it instead of
 * what it runs in the plain build (docs/runtime.md, "How a program ends"). */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso);
extern void *__dso_handle;
#define pthread_atfork(prepare, parent, child) __register_atfork(prepare, parent, child, __dso_handle)

/* FP_BULK puts a large static buffer in a section of its own, after the runtime's
 * small variables, at the start of a page. A process pays a page fault for each page
 * of zeroed memory it touches (3 us each on the project's VM: docs/runtime.md,
 * "What a millisecond run pays"): spread among the buffers, the small variables a
 * run uses took three pages, packed they take one, and a buffer of which a short
 * dump uses a few hundred bytes takes one page, not two. */
#define FP_BULK __attribute__((section(".bss.fragprof_bulk"), aligned(4096)))

/* System calls without lazy binding. The dynamic loader binds each libc function a
 * program imports at its first call, about 0.5 us each on the project's VM, and a
 * run that counts called twenty at its start and its dump (docs/runtime.md, "What a
 * millisecond run pays"). The runtime makes the system calls of those two moments
 * through syscall(2), bound once, with the wrappers below, and reads its
 * environment variables with fp_getenv; the other libc functions it calls are on
 * paths a counting run does not take. Each wrapper returns what the libc function
 * of the same name returns, and sets errno as it does. */
extern char **environ;
static inline pid_t fp_getpid(void) { return (pid_t)syscall(SYS_getpid); }
static inline int fp_open(const char *path, int flags, mode_t mode) {
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}
static inline int fp_close(int fd) { return (int)syscall(SYS_close, fd); }
static inline int fp_flock(int fd, int op) { return (int)syscall(SYS_flock, fd, op); }
static inline int fp_fstat(int fd, struct stat *st) { return (int)syscall(SYS_fstat, fd, st); }
static inline int fp_stat(const char *path, struct stat *st) {
	return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, 0);
}
static inline ssize_t fp_pread(int fd, void *buf, size_t n, off_t off) {
	return (ssize_t)syscall(SYS_pread64, fd, buf, n, off);
}
static inline ssize_t fp_pwrite(int fd, const void *buf, size_t n, off_t off) {
	return (ssize_t)syscall(SYS_pwrite64, fd, buf, n, off);
}
static inline ssize_t fp_write(int fd, const void *buf, size_t n) { return (ssize_t)syscall(SYS_write, fd, buf, n); }
static inline off_t fp_lseek(int fd, off_t off, int whence) { return (off_t)syscall(SYS_lseek, fd, off, whence); }
static inline int fp_ftruncate(int fd, off_t n) { return (int)syscall(SYS_ftruncate, fd, n); }
static inline int fp_unlink(const char *path) { return (int)syscall(SYS_unlinkat, AT_FDCWD, path, 0); }
static inline ssize_t fp_getrandom(void *buf, size_t n, unsigned flags) {
	return (ssize_t)syscall(SYS_getrandom, buf, n, flags);
}
/* fp_exit ends the process at once, as the C library's _exit, which the runtime
 * defines to write the dump first (rt_signals.c): for the runtime's own exits. */
static inline __attribute__((noreturn)) void fp_exit(int status) {
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
static inline int fp_sigaltstack(const stack_t *ss, stack_t *old) { return (int)syscall(SYS_sigaltstack, ss, old); }

/* fp_pct returns the first "%c" (c the given letter) in s, or 0: strstr(s, "%c"),
 * without binding it. */
static inline char *fp_pct(char *s, char c) {
	for (; *s; s++)
		if (s[0] == '%' && s[1] == c)
			return s;
	return 0;
}

/* fp_getenv is getenv(3), without binding it. */
static inline const char *fp_getenv(const char *name) {
	for (char **e = environ; e && *e; e++) {
		const char *a = *e, *b = name;
		while (*b && *a == *b)
			a++, b++;
		if (!*b && *a == '=')
			return a + 1;
	}
	return 0;
}

/* FP_HIDDEN marks a name the runtime's files share and programs do not see. */
#define FP_HIDDEN __attribute__((visibility("hidden")))

/* Little-endian fields of the dump and its file. */
static inline void fp_put32(unsigned char *b, uint32_t v) {
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}
static inline void fp_put64(unsigned char *b, uint64_t v) {
	fp_put32(b, (uint32_t)v);
	fp_put32(b + 4, (uint32_t)(v >> 32));
}
static inline uint32_t fp_get32(const unsigned char *b) {
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t fp_get64(const unsigned char *b) {
	return (uint64_t)fp_get32(b) | (uint64_t)fp_get32(b + 4) << 32;
}

/* The dump's header (docs/runtime.md, "Dump layout"): its magic, and its flags (offset 28). */
#define FP_DUMP_MAGIC "FPDUMP\0\1"
#define FP_CONTINUOUS 1u /* counters live in the file, page-aligned (continuous mode) */
#define FP_FINISHED 2u   /* the runtime completed the dump (at exit or on a signal) */
#define FP_MERGED 4u     /* the counts of several processes of one run, added up */
#define FP_FAULT 8u      /* a fault record (FP_FAULT_SIZE bytes) ends the dump */
#define FP_UNWALKED 16u  /* a fault's stack walk stopped at a frame it could not read (walk.c) */
#define FP_FAULT_SIZE 40

struct fp_unit {
	uint32_t version; /* 1, or 2 with walk */
	uint32_t ncounters;
	uint64_t *counters;
	const char *meta;
	uint64_t metalen;
	struct fp_unit *next;
	const int32_t *walk; /* version 2: the unit's walk table (walk.c), or null */
};

/* ---- Layer 0: the state the roles share (rt_state.c). ---- */

/* The registered units, newest first, and how many (rt_init.c adds them). A walk of
 * the list stops after __fragprof_nunits units: a damaged list (a cycle) cannot make
 * it endless. */
extern struct fp_unit *__fragprof_units;
extern FP_HIDDEN uint32_t __fragprof_nunits;
/* Set by the instrumented main when the program's main returns. */
extern int __fragprof_main_returned;
/* Where this process's dump goes: FRAGPROF_OUT, copied (a program may write over its
 * environment's strings, as some do to set their process title) into
 * __fragprof_out_short, among the small variables, or when longer into
 * __fragprof_out_long, a page of its own (FP_BULK), which a run given a short path
 * then never touches; __fragprof_out_path is the one in use ("" when none). Or an
 * open descriptor, __fragprof_out_fd (FRAGPROF_FD, or a fork-server trial's memfd;
 * -1 when none). */
extern FP_HIDDEN char __fragprof_out_short[256], __fragprof_out_long[4096];
extern FP_HIDDEN char *__fragprof_out_path;
extern FP_HIDDEN int __fragprof_out_fd;
/* The process whose dump this is (a vfork child shares its parent's memory and so its
 * owner: it writes none), and whether that dump is written. */
extern FP_HIDDEN pid_t __fragprof_owner;
extern FP_HIDDEN volatile sig_atomic_t __fragprof_dumped;
/* This process is a forked child of the run (rt_fork.c), which tells fragprof so. */
extern FP_HIDDEN int __fragprof_forked;
/* The run: a number drawn at random by its first process, with the top bit set so
 * that it is never a process id, which every process of the program (forked, or
 * exec'd with the environment) knows through FRAGPROF_RUN (rt_init.c). A dump file of
 * the same run is added to; one of another run is replaced. A process id would not
 * do: a dump left by an earlier run whose first process had the same pid (every run
 * started in a fresh pid namespace, a container, is pid 1) would be added to.
 * __fragprof_run_inherited: this process was exec'd by another of the run. */
extern FP_HIDDEN uint32_t __fragprof_run_id;
extern FP_HIDDEN int __fragprof_run_inherited;
/* __fragprof_merge_children: a forked child counts afresh and adds its counts to the
 * dump (rt_fork.c). __fragprof_trial_fd: __fragprof_out_fd is a fork-server trial's
 * dump (a memfd shared by every process of the trial), to which each process adds its
 * counts (rt_dump.c). */
extern FP_HIDDEN int __fragprof_merge_children, __fragprof_trial_fd;
/* Continuous mode is active (rt_continuous.c). */
extern FP_HIDDEN int __fragprof_cont_on;

/* ---- Layer 1: output (rt_io.c). ---- */

int __fragprof_write_all(int fd, const void *p, size_t n);
/* The dump's output buffer: __fragprof_buf_start directs it to fd, with at most room
 * bytes and first (cap bytes) as the buffer until the first flush;
 * __fragprof_buf_put appends n bytes (-1 when a write failed or room would be
 * passed, which __fragprof_buf_short then reports); __fragprof_buf_flush writes what
 * is buffered. One dump at a time. */
FP_HIDDEN void __fragprof_buf_start(int fd, size_t room, unsigned char *first, size_t cap);
FP_HIDDEN int __fragprof_buf_put(const void *p, size_t n);
FP_HIDDEN int __fragprof_buf_flush(void);
FP_HIDDEN int __fragprof_buf_short(void);
/* __fragprof_expand copies pattern to dst with %p replaced by the pid, and says in
 * *has_pid whether there was one (async-signal-safe). */
FP_HIDDEN int __fragprof_expand(const char *pattern, char *dst, size_t cap, int *has_pid);
/* __fragprof_tmp_name returns path.PID.tmp, the name a new file is written under
 * before it takes path's place, or 0 if it is too long. */
FP_HIDDEN const char *__fragprof_tmp_name(const char *path);
/* __fragprof_rename_new puts tmp in path's place when no file has it: 0 when done,
 * 1 when another process created path meanwhile (tmp removed), -1 on error.
 * __fragprof_rename_over puts tmp in the place of path's file: 0 when done. */
FP_HIDDEN int __fragprof_rename_new(const char *tmp, const char *path);
FP_HIDDEN int __fragprof_rename_over(const char *tmp, const char *path);
/* __fragprof_keep_live takes over fragprof's live pipe (FRAGPROF_LIVE_FD);
 * __fragprof_tell writes a line "WORD PID[ ERRNO]" to it. */
FP_HIDDEN void __fragprof_keep_live(void);
FP_HIDDEN void __fragprof_tell(const char *word, int err);

/* The extra channel: records of other subsystems (fragment times, checkpoint traces)
 * that travel beside the counter dump. Each record is framed as u32 type, u32 length,
 * then the bytes. The channel is a per-trial memfd under the fork server, or the file
 * named by FRAGPROF_EXTRA_OUT; -1 when neither exists. */
int __fragprof_extra_fd(void);
void __fragprof_set_extra_fd(int fd);
/* __fragprof_on_dump registers fn to run (once, at the dump, before the counters are
 * written; sig is the fatal signal or 0) so that a subsystem flushes its records. At
 * most 8 hooks. */
void __fragprof_on_dump(void (*fn)(int sig));
void __fragprof_flush_extra(int sig);
/* __fragprof_write_record writes one framed record to the extra channel. */
int __fragprof_write_record(uint32_t type, const void *p, uint32_t len);

/* ---- Layer 2: continuous mode, the stack walk, timers, traces. ---- */

/* Continuous mode (rt_continuous.c): __fragprof_cont_init turns it on when asked
 * for; __fragprof_cont_add maps a unit registered later; __fragprof_cont_finish
 * records how the program ended (async-signal-safe). */
FP_HIDDEN void __fragprof_cont_init(void);
FP_HIDDEN void __fragprof_cont_add(struct fp_unit *u);
FP_HIDDEN void __fragprof_cont_finish(int sig);
/* __fragprof_walk counts, on a fault the kernel raised (uc its context, addr the
 * faulting address), the block each activation of the faulting thread's stack
 * stopped in (walk.c); __fragprof_unwalked is set when the walk met a frame it could
 * not read, so that the counts near the fault may be off by one. */
void __fragprof_walk(const void *uc, uintptr_t addr);
extern int __fragprof_unwalked;
/* __fragprof_trace_base records, when tracing is on, the anonymous resident set just
 * before the program's main: the base of the working set in the trace's END record
 * (trace.c). */
void __fragprof_trace_base(void);

/* ---- Layer 3: the dump (rt_dump.c). ---- */

/* __fragprof_dump writes this process's dump once (sig: the fatal signal, or 0). */
void __fragprof_dump(int sig);
/* __fragprof_keep_fault keeps the fault record of a fault the kernel raised (the
 * first of the process): 1 when kept, 0 when one was kept already. */
FP_HIDDEN int __fragprof_keep_fault(uint64_t pc, uint64_t addr, int64_t code, uint64_t sp);
/* __fragprof_meta_sent is given each dump the fork server sends its client: once one
 * is whole and holds the metadata of every unit registered so far, the trials write
 * those units' metadata by reference. */
void __fragprof_meta_sent(const unsigned char *d, size_t n);
/* __fragprof_sparse writes the sparse form of the dump d (n bytes) to out, for the
 * fork server's reply; 0 when d goes as it is. */
size_t __fragprof_sparse(const unsigned char *d, size_t n, unsigned char *out, size_t cap);

/* ---- Layer 4: processes (rt_fork.c) and their ends (rt_signals.c). ---- */

/* __fragprof_after_fork starts a forked child's counts afresh (a fork handler). */
FP_HIDDEN void __fragprof_after_fork(void);
/* __fragprof_reset_for_child prepares a trial process: counters zeroed (when zero is
 * set: __fragprof_serve_trials left them zero in the server), the dump going to fd,
 * this process the owner. */
void __fragprof_reset_for_child(int fd, int zero);
/* __fragprof_serve_trials prepares the fork server: its counters zeroed, and a process
 * forked by a trial counts afresh and adds its counts to the trial's dump. It returns
 * 1 when the server's counters may still change (the program has other threads
 * running): its trials must zero them. */
int __fragprof_serve_trials(void);
/* __fragprof_catch_signals installs the handlers of the fatal signals. */
FP_HIDDEN void __fragprof_catch_signals(void);

/* Layer 2, fragment timing (timing.c): the entry points of FP_BEGIN/FP_END and of the func:NAME
 * edit, and what the timer probe (internal/timing/csrc/probe.c) calls. Timers are numbered
 * 0 tsc, 1 rdtscp, 2 monotonic, 3 monotonic_raw, 4 process, 5 thread. */
void __fragprof_frag_begin(int *slot, const char *name);
void __fragprof_frag_end(int *slot, const char *name);
int __fragprof_timer_count(void);
const char *__fragprof_timer_name(int t);
int __fragprof_timer_selected(void);
int __fragprof_timer_use(int t);
uint64_t __fragprof_timer_now(void);
double __fragprof_timer_res(int t);
int __fragprof_tsc_invariant(void);
double __fragprof_tsc_calibrate(double *span_ns);
void __fragprof_timer_overhead(double *median, double *minimum);

#endif
