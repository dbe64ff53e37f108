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
 * defines to write the dump first (fragprof_rt.c): for the runtime's own exits. */
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

struct fp_unit {
	uint32_t version; /* 1, or 2 with walk */
	uint32_t ncounters;
	uint64_t *counters;
	const char *meta;
	uint64_t metalen;
	struct fp_unit *next;
	const int32_t *walk; /* version 2: the unit's walk table (walk.c), or null */
};

extern struct fp_unit *__fragprof_units;
extern int __fragprof_main_returned;

/* __fragprof_reset_for_child prepares a trial process: counters zeroed (when zero is
 * set: __fragprof_serve_trials left them zero in the server), the dump going to fd,
 * this process the owner. */
void __fragprof_reset_for_child(int fd, int zero);
/* __fragprof_serve_trials prepares the fork server: its counters zeroed, and a process
 * forked by a trial counts afresh and adds its counts to the trial's dump. It returns
 * 1 when the server's counters may still change (the program has other threads
 * running): its trials must zero them. */
int __fragprof_serve_trials(void);
void __fragprof_dump(int sig);
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
/* __fragprof_meta_sent is given each dump the fork server sends its client: once one
 * is whole and holds the metadata of every unit registered so far, the trials write
 * those units' metadata by reference. */
void __fragprof_meta_sent(const unsigned char *d, size_t n);
int __fragprof_write_all(int fd, const void *p, size_t n);
/* __fragprof_sparse writes the sparse form of the dump d (n bytes) to out, for the
 * fork server's reply; 0 when d goes as it is (fragprof_rt.c). */
size_t __fragprof_sparse(const unsigned char *d, size_t n, unsigned char *out, size_t cap);

/* The extra channel (extra.c): records of other subsystems (fragment times,
 * checkpoint traces) that travel beside the counter dump. Each record is framed as
 * u32 type, u32 length, then the bytes. The channel is a per-trial memfd under the
 * fork server, or the file named by FRAGPROF_EXTRA_OUT; -1 when neither exists. */
int __fragprof_extra_fd(void);
void __fragprof_set_extra_fd(int fd);
/* __fragprof_on_dump registers fn to run (once, at the dump, before the counters are
 * written; sig is the fatal signal or 0) so that a subsystem flushes its records. At
 * most 8 hooks. */
void __fragprof_on_dump(void (*fn)(int sig));
void __fragprof_flush_extra(int sig);
/* __fragprof_write_record writes one framed record to the extra channel. */
int __fragprof_write_record(uint32_t type, const void *p, uint32_t len);

/* Fragment timing (timing.c): the entry points of FP_BEGIN/FP_END and of the func:NAME
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
