/* rt_io.c: the runtime's output (layer 1; fp_internal.h lists the layers): whole
 * writes, the dump's buffered output, %p in a path, a new file put in place of
 * another, the extra channel, and fragprof's live pipe. It calls nothing of the
 * runtime above it; the extra channel's dump hooks are functions the subsystems
 * above (timing.c, trace.c) hand it. Async-signal-safe but for the extra channel's
 * first look-up and __fragprof_keep_live (system calls only). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fp_internal.h"

int __fragprof_write_all(int fd, const void *p, size_t n) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = fp_write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The dump's output. Writes go through a buffer, so that a small dump is one system
 * call, and stop short (room_short) rather than pass room bytes: a slot of the dump
 * file is no bigger. The buffer is first the caller's (on its stack, which the
 * process has touched already), then, from the first flush on, ob_big: a dump of a
 * millisecond run fits the first and touches no page of ob_big, which would cost a
 * page fault (FP_BULK). Used by one dump at a time (a process dumps once; the signal
 * that could interrupt a dump finds the default action restored). */
static struct {
	int fd;
	size_t room;
	int room_short;
	unsigned char *buf;
	size_t cap, used;
} ob;
static unsigned char ob_big[1 << 16] FP_BULK;

void __fragprof_buf_start(int fd, size_t room, unsigned char *first, size_t cap) {
	ob.fd = fd;
	ob.room = room;
	ob.room_short = 0;
	ob.buf = first;
	ob.cap = cap;
	ob.used = 0;
}

int __fragprof_buf_flush(void) {
	int bad = ob.used ? __fragprof_write_all(ob.fd, ob.buf, ob.used) : 0;
	ob.used = 0;
	return bad;
}

int __fragprof_buf_put(const void *p, size_t n) {
	if (n > ob.room) {
		ob.room_short = 1;
		return -1;
	}
	ob.room -= n;
	if (ob.used + n > ob.cap) {
		if (__fragprof_buf_flush() < 0)
			return -1;
		ob.buf = ob_big;
		ob.cap = sizeof ob_big;
	}
	if (n > ob.cap)
		return __fragprof_write_all(ob.fd, p, n);
	memcpy(ob.buf + ob.used, p, n);
	ob.used += n;
	return 0;
}

int __fragprof_buf_short(void) { return ob.room_short; }

/* put_dec writes v in decimal at dst (at most 20 bytes) and returns the length. */
static size_t put_dec(char *dst, unsigned long v) {
	char num[24];
	size_t d = 0, n = 0;
	do {
		num[d++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (d > 0)
		dst[n++] = num[--d];
	return n;
}

int __fragprof_expand(const char *pattern, char *dst, size_t cap, int *has_pid) {
	size_t j = 0;
	*has_pid = 0;
	for (size_t i = 0; pattern[i]; i++) {
		if (pattern[i] == '%' && pattern[i + 1] == 'p') {
			char num[24];
			size_t k = put_dec(num, (unsigned long)fp_getpid());
			if (j + k >= cap)
				return -1;
			memcpy(dst + j, num, k);
			j += k;
			i++;
			*has_pid = 1;
			continue;
		}
		if (j + 1 >= cap)
			return -1;
		dst[j++] = pattern[i];
	}
	dst[j] = 0;
	return 0;
}

/* Built only when needed: a run that writes in place touches no page for it (a
 * process dumps once). */
const char *__fragprof_tmp_name(const char *path) {
	static char tmp[4200] FP_BULK;
	size_t n = strlen(path), j = n;
	if (n + 30 > sizeof tmp)
		return 0;
	memcpy(tmp, path, n);
	tmp[j++] = '.';
	j += put_dec(tmp + j, (unsigned long)fp_getpid());
	memcpy(tmp + j, ".tmp", 5);
	return tmp;
}

/* Without replacing a file another process created meanwhile (renameat2
 * RENAME_NOREPLACE); where the kernel has no renameat2, a plain rename. */
int __fragprof_rename_new(const char *tmp, const char *path) {
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 1 /* RENAME_NOREPLACE */) == 0)
		return 0;
	if (errno == EEXIST) {
		fp_unlink(tmp);
		return 1;
	}
#endif
	return rename(tmp, path);
}

/* By exchanging the two names and unlinking the old file: a plain rename over an
 * existing file makes ext4 write the new file back inside the rename (7.6 ms in one
 * strace). Where the exchange fails, a plain rename. */
int __fragprof_rename_over(const char *tmp, const char *path) {
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 2 /* RENAME_EXCHANGE */) == 0)
		return fp_unlink(tmp);
#endif
	return rename(tmp, path);
}

/* ------------------------------------------------------------------------------------
 * The extra channel, where subsystems other than the block counters (fragment timers,
 * checkpoint traces) send records that travel beside the counter dump.
 *
 * Under the fork server every trial gets a fresh memfd, returned to the client after
 * the dump (rt_fork.c). In a plain run the channel is the file named by
 * FRAGPROF_EXTRA_OUT (opened at the first use). Record types are assigned in
 * docs/runtime.md.
 *
 * The channel belongs to one process: the one that opened it, or the trial it was
 * given to. A process it forks writes no records (its fragment times and traces
 * would repeat the samples it inherited, and its records would interleave with its
 * parent's or, outliving the trial, land in another trial's channel); its counts
 * are added up all the same (rt_fork.c).
 * ------------------------------------------------------------------------------------ */

static int extra_fd = -2; /* -2: not looked up yet */
static pid_t extra_pid;    /* the process the channel belongs to */
static void (*hooks[8])(int);
static int nhooks;

/* mine claims the channel for this process if nobody has, and reports whether it is
 * this process's. */
static int mine(void) {
	if (!extra_pid)
		extra_pid = fp_getpid();
	return extra_pid == fp_getpid();
}

int __fragprof_extra_fd(void) {
	if (!mine())
		return -1;
	if (extra_fd == -2) {
		const char *p = fp_getenv("FRAGPROF_EXTRA_OUT");
		extra_fd = p && *p ? fp_open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	}
	return extra_fd;
}

void __fragprof_set_extra_fd(int fd) {
	extra_fd = fd;
	extra_pid = fp_getpid();
}

void __fragprof_on_dump(void (*fn)(int)) {
	mine();
	for (int i = 0; i < nhooks; i++)
		if (hooks[i] == fn)
			return;
	if (nhooks < 8)
		hooks[nhooks++] = fn;
}

void __fragprof_flush_extra(int sig) {
	if (!mine())
		return; /* a forked child: the channel is its parent's */
	for (int i = 0; i < nhooks; i++)
		hooks[i](sig);
}

int __fragprof_write_record(uint32_t type, const void *p, uint32_t len) {
	int fd = __fragprof_extra_fd();
	if (fd < 0)
		return -1;
	uint32_t h[2] = {type, len};
	if (__fragprof_write_all(fd, h, sizeof h) < 0)
		return -1;
	return __fragprof_write_all(fd, p, len);
}

/* ------------------------------------------------------------------------------------
 * The live pipe: fragprof's way of knowing when the last process of a run has ended,
 * and whose counts are missing.
 * ------------------------------------------------------------------------------------ */

static int live_fd = -1; /* the pipe's write end, or -1 */

/* __fragprof_keep_live moves the write end of fragprof's "live" pipe
 * (FRAGPROF_LIVE_FD, set by internal/runner for the run's first process) out of the
 * program's way, to a high descriptor that every process of the run inherits:
 * fragprof reads its end of file when the last of them has ended, and then reads the
 * dump. */
void __fragprof_keep_live(void) {
	const char *l = fp_getenv("FRAGPROF_LIVE_FD");
	if (!l || !*l)
		return;
	int fd = atoi(l);
	unsetenv("FRAGPROF_LIVE_FD"); /* an exec'd program inherits the high descriptor */
	if (fcntl(fd, F_GETFD) < 0)
		return;
	struct rlimit rl;
	int lo = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64 && rl.rlim_cur <= 1 << 20 ? (int)rl.rlim_cur - 32 : 0;
	int hi = lo > fd ? fcntl(fd, F_DUPFD, lo) : -1;
	if (hi >= 0)
		fp_close(fd);
	live_fd = hi >= 0 ? hi : fd;
}

/* __fragprof_tell writes a line "WORD PID[ ERRNO]" to fragprof's live pipe, which
 * internal/runner reads: "fork PID" from a forked child as it starts, "done PID" from
 * a forked child that wrote its counts, "dump-error PID ERRNO" from a process that
 * could not (err, when not 0, is the errno met). So fragprof knows whose counts are
 * missing, and why. One write below PIPE_BUF: whole among other processes' lines. */
void __fragprof_tell(const char *word, int err) {
	if (live_fd < 0)
		return;
	char line[64];
	size_t n = 0;
	while (*word)
		line[n++] = *word++;
	line[n++] = ' ';
	n += put_dec(line + n, (unsigned long)fp_getpid());
	if (err) {
		line[n++] = ' ';
		n += put_dec(line + n, (unsigned long)err);
	}
	line[n++] = '\n';
	fp_write(live_fd, line, n);
}
