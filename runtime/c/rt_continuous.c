/* rt_continuous.c: continuous mode (layer 2; fp_internal.h lists the layers). Like
 * LLVM's continuous mode (%c in LLVM_PROFILE_FILE), the counters live in the dump file
 * itself: each unit's counter array (page-aligned and a whole number of pages long, as
 * fragprof's instrumentation lays it out) is replaced by a shared mapping of its place
 * in the file, so every increment lands in the page cache at once and the counts
 * survive SIGKILL, _exit() and crashes of the runtime.
 *
 * Asked for by FRAGPROF_CONTINUOUS=1, or by %c anywhere in FRAGPROF_OUT (removed from
 * the name). Needs FRAGPROF_OUT (not FRAGPROF_FD). The file has the dump layout with
 * header flag FP_CONTINUOUS: after each unit's metadata, padding to the next page, then
 * the counter pages. FP_FINISHED is set, with the exit signal and whether main
 * returned, when the program ends through the runtime; a file without it comes from a
 * program that was killed. If any unit cannot be mapped, continuous mode is abandoned
 * and the ordinary dump at exit replaces the file.
 *
 * After fork() the child stops sharing the parent's pages: with %p in the name it
 * gets a file of its own and counts afresh; without %p it counts afresh in private
 * memory and, at its end, adds its counts to PATH.forks, the ordinary dump of the
 * run's other processes (rt_dump.c), which a program built by fragprof that a
 * process of the run execs adds to as well. fragprof adds PATH.forks to PATH.
 *
 * Entry points: __fragprof_cont_init (from rt_init.c, at the first registration),
 * __fragprof_cont_add (from __fragprof_register), __fragprof_cont_finish (from
 * __fragprof_dump). It calls only rt_io.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fp_internal.h"

static int cont_fd = -1;
static off_t cont_end;      /* size of the file so far */
static uint32_t cont_units; /* units in the file */

static long cont_page(void) { return sysconf(_SC_PAGESIZE); }

static off_t cont_round(off_t n) {
	long pg = cont_page();
	return (n + pg - 1) / pg * pg;
}

static int cont_pwrite(const void *p, size_t n, off_t off) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = fp_pwrite(cont_fd, c, n, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* cont_create opens a fresh continuous file and writes its header. */
static int cont_create(void) {
	char path[4096];
	int has_pid;
	if (__fragprof_expand(__fragprof_out_path, path, sizeof path, &has_pid) < 0)
		return -1;
	int fd = fp_open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	cont_fd = fd;
	unsigned char h[32];
	memset(h, 0, sizeof h);
	memcpy(h, FP_DUMP_MAGIC, 8);
	fp_put32(h + 8, 1);
	fp_put32(h + 24, (uint32_t)fp_getpid());
	fp_put32(h + 28, FP_CONTINUOUS);
	cont_end = sizeof h;
	cont_units = 0;
	return cont_pwrite(h, sizeof h, 0);
}

/* cont_map appends unit u to the file and maps its counters there. */
static int cont_map(struct fp_unit *u) {
	size_t bytes = (size_t)u->ncounters * 8;
	long pg = cont_page();
	size_t span = (bytes + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	if (bytes == 0)
		span = 0;
	if (span && (uintptr_t)u->counters % (uintptr_t)pg != 0)
		return -1; /* not laid out for mapping (built by an older fragprof) */
	unsigned char uh[8];
	fp_put32(uh, u->ncounters);
	fp_put32(uh + 4, (uint32_t)u->metalen);
	off_t off = cont_end;
	if (cont_pwrite(uh, 8, off) < 0 || cont_pwrite(u->meta, u->metalen, off + 8) < 0)
		return -1;
	off_t data = cont_round(off + 8 + (off_t)u->metalen);
	if (fp_ftruncate(cont_fd, data + (off_t)span) < 0)
		return -1;
	if (span) {
		/* Counts made before the mapping (constructors run earlier) go first. */
		if (cont_pwrite(u->counters, bytes, data) < 0)
			return -1;
		void *m = mmap(u->counters, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, cont_fd, data);
		if (m == MAP_FAILED)
			return -1;
	}
	cont_end = data + (off_t)span;
	cont_units++;
	unsigned char n[4];
	fp_put32(n, cont_units);
	return cont_pwrite(n, 4, 12);
}

/* cont_abandon leaves continuous mode; the ordinary dump at exit takes over. */
static void cont_abandon(void) {
	__fragprof_cont_on = 0;
	__fragprof_merge_children = 1; /* the ordinary mode's rule for forked children */
	if (cont_fd >= 0)
		fp_close(cont_fd);
	cont_fd = -1;
}

/* cont_forks makes this process an ordinary one of the run, counting afresh and
 * adding its counts at its end to PATH.forks (a forked child, or a program exec'd by
 * a process of the run); with no room for the name, it writes nothing. */
static void cont_forks(void) {
	size_t n = strlen(__fragprof_out_path);
	if (n + sizeof ".forks" > sizeof __fragprof_out_long) {
		__fragprof_owner = 0;
		return;
	}
	if (__fragprof_out_path == __fragprof_out_short && n + sizeof ".forks" > sizeof __fragprof_out_short) {
		memcpy(__fragprof_out_long, __fragprof_out_short, n);
		__fragprof_out_path = __fragprof_out_long;
	}
	memcpy(__fragprof_out_path + n, ".forks", sizeof ".forks");
	__fragprof_main_returned = 0;
	__fragprof_dumped = 0;
	__fragprof_owner = fp_getpid();
	__fragprof_merge_children = 1;
}

static void cont_after_fork(void) {
	if (!__fragprof_cont_on)
		return;
	int has_pid = fp_pct(__fragprof_out_path, 'p') != 0;
	/* Stop sharing: copy the counters into private memory at the same address. */
	for (struct fp_unit *u = __fragprof_units; u; u = u->next) {
		size_t bytes = (size_t)u->ncounters * 8;
		long pg = cont_page();
		size_t span = (bytes + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
		if (!span)
			continue;
		uint64_t *copy = mmap(0, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy == MAP_FAILED)
			continue;
		/* Zero: the child counts afresh, as in the ordinary mode (rt_fork.c). */
		if (mremap(copy, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, u->counters) == MAP_FAILED)
			munmap(copy, span);
	}
	fp_close(cont_fd);
	cont_fd = -1;
	if (!has_pid) {
		/* The parent owns the file: the child adds its counts to PATH.forks. */
		__fragprof_cont_on = 0;
		cont_forks();
		return;
	}
	__fragprof_main_returned = 0;
	__fragprof_dumped = 0;
	__fragprof_owner = fp_getpid();
	if (cont_create() < 0) {
		cont_abandon();
		return;
	}
	for (struct fp_unit *u = __fragprof_units; u; u = u->next)
		if (cont_map(u) < 0) {
			cont_abandon();
			return;
		}
}

void __fragprof_cont_init(void) {
	const char *c = fp_getenv("FRAGPROF_CONTINUOUS");
	int want = c && c[0] == '1' && !c[1];
	char *pc = fp_pct(__fragprof_out_path, 'c');
	if (pc) {
		memmove(pc, pc + 2, strlen(pc + 2) + 1);
		want = 1;
	}
	if (!want || __fragprof_out_fd >= 0 || !__fragprof_out_path[0])
		return;
	if (__fragprof_run_inherited && !fp_pct(__fragprof_out_path, 'p')) {
		cont_forks(); /* exec'd by a process of a continuous run: the file is not ours */
		return;
	}
	if (cont_create() < 0) {
		cont_abandon();
		return;
	}
	__fragprof_cont_on = 1;
	pthread_atfork(0, 0, cont_after_fork);
}

void __fragprof_cont_add(struct fp_unit *u) {
	if (cont_map(u) < 0)
		cont_abandon();
}

/* __fragprof_cont_finish records how the program ended (async-signal-safe). */
void __fragprof_cont_finish(int sig) {
	if (fp_getpid() != __fragprof_owner && !fp_pct(__fragprof_out_path, 'p'))
		return;
	unsigned char h[12];
	fp_put32(h, (uint32_t)__fragprof_main_returned);
	fp_put32(h + 4, (uint32_t)sig);
	fp_put32(h + 8, FP_CONTINUOUS | FP_FINISHED | (__fragprof_unwalked ? FP_UNWALKED : 0));
	cont_pwrite(h, 4, 16);
	cont_pwrite(h + 4, 4, 20);
	cont_pwrite(h + 8, 4, 28);
}
