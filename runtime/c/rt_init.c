/* rt_init.c: a unit's registration (layer 5, the top; fp_internal.h lists the
 * layers). Each instrumented translation unit registers its descriptor from a
 * constructor; the first registration reads the environment and sets the runtime up:
 * where the dump goes, the run the process belongs to, fragprof's live pipe,
 * continuous mode, the fork handler and the signal handlers. A program that asked
 * for no counts is left alone.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fp_internal.h"

static int installed;

/* join_run sets __fragprof_run_id: the run's, inherited through FRAGPROF_RUN, or a
 * new one when this process is the first. */
static void join_run(void) {
	const char *r = fp_getenv("FRAGPROF_RUN");
	if (r && *r) {
		__fragprof_run_id = (uint32_t)strtoul(r, 0, 10);
		__fragprof_run_inherited = 1;
		return;
	}
	if (fp_getrandom(&__fragprof_run_id, sizeof __fragprof_run_id, GRND_NONBLOCK) != sizeof __fragprof_run_id) {
		struct timespec ts; /* no entropy yet (early boot): the clock and the pid */
		clock_gettime(CLOCK_REALTIME, &ts);
		__fragprof_run_id = (uint32_t)ts.tv_nsec * 2654435761u ^ (uint32_t)ts.tv_sec ^ (uint32_t)fp_getpid() << 8;
	}
	__fragprof_run_id |= 0x80000000u;
	static char env[32] = "FRAGPROF_RUN=";
	char num[12];
	int d = 0;
	for (uint32_t v = __fragprof_run_id; v; v /= 10)
		num[d++] = (char)('0' + v % 10);
	for (int i = 0; d > 0; i++)
		env[13 + i] = num[--d];
	putenv(env); /* no copy: env stays the variable's storage */
}

/* install reads the environment (where the dump goes: FRAGPROF_FD, FRAGPROF_OUT, a
 * fork-server trial's FRAGPROF_TRIAL_FD; FRAGPROF_CTL, the fork server) and sets up
 * what the process needs. */
static void install(void) {
	if (fp_getenv("FRAGPROF_BIND_NOW")) {
		/* fragprof bound this process's symbols at load (internal/runner.BindNow): its
		 * children are the program's business */
		unsetenv("LD_BIND_NOW");
		unsetenv("FRAGPROF_BIND_NOW");
	}
	__fragprof_owner = fp_getpid();
	const char *fd = fp_getenv("FRAGPROF_FD");
	const char *path = fp_getenv("FRAGPROF_OUT");
	const char *ctl = fp_getenv("FRAGPROF_CTL");
	const char *tfd = fp_getenv("FRAGPROF_TRIAL_FD");
	int tn;
	unsigned long long ino;
	struct stat st;
	if (tfd && !(ctl && *ctl) && sscanf(tfd, "%d:%llu", &tn, &ino) == 2 && fp_fstat(tn, &st) == 0 &&
	    (unsigned long long)st.st_ino == ino) {
		/* exec'd by a process of a fork-server trial: add to the trial's dump */
		__fragprof_out_fd = tn;
		__fragprof_trial_fd = __fragprof_merge_children = 1;
	} else if (fd && *fd)
		__fragprof_out_fd = atoi(fd);
	else if (path) {
		size_t n = 0; /* a path too long for __fragprof_out_long counts nowhere, as none */
		while (path[n] && n + 1 < sizeof __fragprof_out_long)
			n++;
		if (!path[n]) {
			__fragprof_out_path = n < sizeof __fragprof_out_short ? __fragprof_out_short : __fragprof_out_long;
			for (size_t i = 0; i <= n; i++)
				__fragprof_out_path[i] = path[i];
		}
	}
	if (__fragprof_out_fd < 0 && !__fragprof_out_path[0] && !(ctl && *ctl))
		return; /* nobody asked for counts: stay out of the program's way */
	if (__fragprof_out_path[0] && !(ctl && *ctl)) {
		join_run();
		__fragprof_keep_live();
	}
	if (!(ctl && *ctl))
		__fragprof_cont_init(); /* continuous mode, if asked for; never under the fork
		                         * server, whose trials dump to their own memfd */
	if ((__fragprof_out_path[0] && !(ctl && *ctl)) || __fragprof_trial_fd) {
		/* In continuous mode its fork handler (rt_continuous.c), registered first,
		 * runs first: it turns a child into an ordinary process of the run, adding
		 * to PATH.forks. */
		__fragprof_merge_children = !__fragprof_cont_on;
		pthread_atfork(0, 0, __fragprof_after_fork);
	}
	__fragprof_catch_signals();
}

void __fragprof_register(struct fp_unit *u) {
	/* An exchange, not a test: the runtime's first access to the page of its small
	 * variables is then a write, one page fault, where a read maps the zero page and
	 * the first write faults again. */
	if (!__atomic_exchange_n(&installed, 1, __ATOMIC_RELAXED))
		install();
	for (struct fp_unit *v = __fragprof_units; v; v = v->next)
		if (v == u)
			return; /* registered twice (its constructor ran again): keep the list a list */
	u->next = __fragprof_units;
	__fragprof_units = u;
	__fragprof_nunits++;
	if (__fragprof_cont_on)
		__fragprof_cont_add(u);
}

