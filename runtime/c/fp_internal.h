/* fp_internal.h: what the runtime's C files share. Not for programs: they include
 * fragprof.h. */
#ifndef FP_INTERNAL_H
#define FP_INTERNAL_H
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

struct fp_unit {
	uint32_t version;
	uint32_t ncounters;
	uint64_t *counters;
	const char *meta;
	uint64_t metalen;
	struct fp_unit *next;
};

extern struct fp_unit *__fragprof_units;
extern int __fragprof_main_returned;

/* __fragprof_reset_for_child prepares a forked trial process: counters zeroed, the
 * dump going to fd, this process the owner. */
void __fragprof_reset_for_child(int fd);
void __fragprof_dump(int sig);
int __fragprof_write_all(int fd, const void *p, size_t n);

#endif
