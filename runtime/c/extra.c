/* extra.c: the extra channel, where subsystems other than the block counters (fragment
 * timers, checkpoint traces) send records that travel beside the counter dump.
 *
 * Under the fork server every trial gets a fresh memfd, returned to the client after
 * the dump (forkserver.c). In a plain run the channel is the file named by
 * FRAGPROF_EXTRA_OUT (opened at the first use). Record types are assigned in
 * docs/runtime.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fp_internal.h"

static int extra_fd = -2; /* -2: not looked up yet */
static void (*hooks[8])(int);
static int nhooks;

int __fragprof_extra_fd(void) {
	if (extra_fd == -2) {
		const char *p = getenv("FRAGPROF_EXTRA_OUT");
		extra_fd = p && *p ? open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	}
	return extra_fd;
}

void __fragprof_set_extra_fd(int fd) { extra_fd = fd; }

void __fragprof_on_dump(void (*fn)(int)) {
	for (int i = 0; i < nhooks; i++)
		if (hooks[i] == fn)
			return;
	if (nhooks < 8)
		hooks[nhooks++] = fn;
}

void __fragprof_flush_extra(int sig) {
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
