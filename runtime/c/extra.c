/* extra.c: the extra channel, where subsystems other than the block counters (fragment
 * timers, checkpoint traces) send records that travel beside the counter dump.
 *
 * Under the fork server every trial gets a fresh memfd, returned to the client after
 * the dump (forkserver.c). In a plain run the channel is the file named by
 * FRAGPROF_EXTRA_OUT (opened at the first use). Record types are assigned in
 * docs/runtime.md.
 *
 * The channel belongs to one process: the one that opened it, or the trial it was
 * given to. A process it forks writes no records (its fragment times and traces
 * would repeat the samples it inherited, and its records would interleave with its
 * parent's or, outliving the trial, land in another trial's channel); its counts
 * are added up all the same (fragprof_rt.c).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fp_internal.h"

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
