/* rt_fork.c: the processes of a run (layer 4; fp_internal.h lists the layers): a
 * forked child's counts, exec, and the fork server.
 *
 * A process the program forks counts afresh and, at its end, adds its counts to the
 * run's dump (or to its fork-server trial's); one that execs writes its counts
 * before the exec (docs/runtime.md, "Processes: fork and exec").
 *
 * The fork server. fragprof renames an instrumented program's main to __fragprof_main
 * and gives the program a new main that calls __fragprof_start, below. Normally it
 * just calls the program's main. When FRAGPROF_CTL="R,W"
 * names two descriptors, it becomes a fork server (AFL's is the model): the program
 * has initialised once; for every trial request read from R it forks a fresh copy,
 * gives it the trial's argv and stdin, lets it run the program's main to its end,
 * and reports its wait status and its counter dump on W. Each trial is a fresh
 * process image, as FreqSys requires, without the cost of exec.
 *
 * With FRAGPROF_ISOLATION=none it runs every trial in the server's own process
 * instead, one after the other, resetting the counters in between: much faster, and
 * right only for programs whose main leaves no state behind (globals, heap, open
 * files) and returns rather than calling exit().
 *
 * Protocol (little-endian u32s):
 *   request: "FPQ3", nargs, stdin_len, then nargs × (len, bytes), then stdin bytes.
 *            nargs = 0xFFFFFFFF keeps the server's own arguments.
 *   reply:   "FPR3", wait status, dump length, form, sent length, 0, the dump as
 *            sent, extra length, 0, extra bytes (the extra channel's records,
 *            rt_io.c) when the trial has ended. Form 0: the dump's bytes as they
 *            are (sent length 0); form 1: its sparse form, sent length bytes, each
 *            unit's counters as runs of the non-zero ones (rt_dump.c,
 *            __fragprof_sparse), which the client expands to the dump.
 *            After the first reply that holds a dump, the trials write the server's
 *            units' metadata by reference (rt_dump.c, REF_ML): the client keeps
 *            it from that reply.
 * The tags carry the protocol's version (3): a server and a client of different
 * versions stop at the first exchange, the server with status 70 on a request it
 * does not know, the client on a reply it does not know.
 *
 * Requests may be sent ahead of the replies: the server takes them in order, so a
 * client that keeps a few in flight never leaves it waiting (the server never
 * writes a reply before it has read the whole request). Trials run in the server's
 * process group: the client enforces timeouts, and stops everything, by killing
 * that group. A read of end-of-file on R ends the server.
 *
 * A trial is all the processes of the program: those its process forks, and those
 * exec'd from them, add their counts to the trial's dump (rt_dump.c: merge_fd;
 * an exec'd program finds the dump's descriptor in FRAGPROF_TRIAL_FD). The server is
 * their subreaper (PR_SET_CHILD_SUBREAPER): it reports a trial when its last process
 * has ended, so that no count is missing from the reply nor lands in the next
 * trial's dump. A process that outlives the trial's timeout is killed with the
 * server, and the trial reported as timed out.
 *
 * It calls rt_dump.c (the dump, the sparse form), rt_io.c (the extra channel) and
 * trace.c (the trace's base).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fp_internal.h"

/* zero_counters zeroes every unit's counters, writing only the pages (512 counters)
 * that hold a count. A forked process shares its parent's pages until it writes to
 * them: a trial forked from the fork server, whose counters are zero unless its
 * program ran code before the fork, then copies only the counter pages it counts in,
 * not every one (reading costs no copy). With resident_only, a page that no process
 * has touched (not resident: mincore) is zero and left unread: reading it would map
 * it, and a trial forked afterwards would pay a second fault (copying the zero page)
 * on its first count there, not one. */
static void zero_counters(int resident_only) {
	static unsigned char res[256];
	uint32_t k = 0;
	for (struct fp_unit *u = __fragprof_units; u && k < __fragprof_nunits; u = u->next, k++)
		for (uint64_t i = 0; i < u->ncounters; i += 512) {
			uint64_t n = u->ncounters - i < 512 ? u->ncounters - i : 512, any = 0;
			if (resident_only && (uintptr_t)u->counters % 4096 == 0) {
				/* mincore a run of pages at once: res[(i / 512) % 256] */
				uint64_t pg = i / 512;
				if (pg % 256 == 0) {
					uint64_t left = (u->ncounters - i + 511) / 512;
					if (mincore(u->counters + i, (size_t)(left < 256 ? left : 256) * 4096, res) < 0)
						memset(res, 1, sizeof res); /* unknown: read them */
				}
				if (!(res[pg % 256] & 1))
					continue;
			}
			for (uint64_t j = 0; j < n; j++)
				any |= u->counters[i + j];
			if (any)
				memset(u->counters + i, 0, (size_t)n * 8);
		}
}

/* __fragprof_after_fork starts a forked child's counts afresh (the parent's so far
 * are the parent's to write): at its end the child adds its own to the run's dump. */
void __fragprof_after_fork(void) {
	if (__fragprof_cont_on || !__fragprof_merge_children)
		return; /* continuous mode: rt_continuous.c; the fork server: its trials */
	zero_counters(0);
	__fragprof_main_returned = 0;
	__fragprof_dumped = 0;
	__fragprof_owner = fp_getpid();
	__fragprof_forked = 1;
	__fragprof_tell("fork", 0);
}

/* __fragprof_before_exec is called before every exec call of instrumented code: the
 * process image is about to be replaced, so its counts so far are written (in the
 * ordinary mode, added to the run's dump). */
void __fragprof_before_exec(void) {
	/* Not in a vfork child (whose owner is its parent): it shares the parent's
	 * counters, which the parent writes at its end. */
	if ((!__fragprof_out_path[0] && !__fragprof_trial_fd) || __fragprof_cont_on || __fragprof_dumped ||
	    fp_getpid() != __fragprof_owner)
		return;
	int saved = errno;
	__fragprof_dump(0);
	errno = saved;
}

/* __fragprof_after_exec runs when the exec failed: the counts so far are written, so
 * the process counts afresh and adds the rest at its end. */
void __fragprof_after_exec(void) {
	if ((!__fragprof_out_path[0] && !__fragprof_trial_fd) || __fragprof_cont_on || !__fragprof_dumped ||
	    fp_getpid() != __fragprof_owner)
		return;
	int saved = errno;
	__fragprof_after_fork();
	errno = saved;
}

void __fragprof_reset_for_child(int fd, int zero) {
	if (zero)
		zero_counters(0);
	__fragprof_main_returned = 0;
	__fragprof_out_fd = fd;
	__fragprof_out_path[0] = 0;
	__fragprof_owner = fp_getpid();
	__fragprof_run_id = (uint32_t)__fragprof_owner;
	__fragprof_dumped = 0;
	__fragprof_trial_fd = __fragprof_merge_children = 1;
}

/* count_threads returns the number of threads of this process (/proc/self/task), or
 * 0 when it cannot tell. */
static int count_threads(void) {
	int fd = fp_open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0), n = 0;
	if (fd < 0)
		return 0;
	char buf[4096];
	long r;
	while ((r = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long off = 0; off < r;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, 2);
			const char *name = buf + off + 19;
			n += name[0] != '.';
			off += reclen;
		}
	fp_close(fd);
	return r < 0 ? 0 : n;
}

int __fragprof_serve_trials(void) {
	pthread_atfork(0, 0, __fragprof_after_fork);
	/* The counts of the program's constructors are no trial's. The server runs no
	 * code of the program from here on, so its counters stay zero and every trial
	 * it forks starts from zero without reading them: zeroing them in each trial read
	 * every counter page (sqlite3: 200 pages, a fault each) and was a tenth of a
	 * trial's time. Unless a thread of the program's still runs (started by a
	 * constructor): then its counts are zeroed in every trial, as they were. */
	zero_counters(1);
	return count_threads() != 1;
}

extern int __fragprof_main(int, char **, char **) __attribute__((weak));

/* The request stream is read through a buffer: with several requests in flight one
 * read() brings in many. */
static struct {
	int fd;
	char b[1 << 16];
	size_t pos, end;
} rq FP_BULK;

static int read_all(void *p, size_t n) {
	char *c = p;
	while (n > 0) {
		if (rq.pos == rq.end) {
			ssize_t r = read(rq.fd, rq.b, sizeof rq.b);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -1;
			rq.pos = 0;
			rq.end = (size_t)r;
		}
		size_t k = rq.end - rq.pos < n ? rq.end - rq.pos : n;
		memcpy(c, rq.b + rq.pos, k);
		rq.pos += k;
		c += k;
		n -= k;
	}
	return 0;
}

static int read_u32(uint32_t *v) {
	unsigned char b[4];
	if (read_all(b, 4) < 0)
		return -1;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

#define TAG(s) ((uint32_t)(s)[0] | (uint32_t)(s)[1] << 8 | (uint32_t)(s)[2] << 16 | (uint32_t)(s)[3] << 24)

/* A trial's dump and extra records: a memfd the trial writes from offset 0 (the
 * offset is shared with the trial's copy of the descriptor), mapped here so that
 * reading it costs no system call while it fits the mapping. */
struct outfile {
	int fd;
	char *map;
	size_t cap;
};

static struct outfile out_create(const char *name, unsigned flags) {
	struct outfile o = {memfd_create(name, flags), 0, 1 << 20};
	if (o.fd < 0 || ftruncate(o.fd, (off_t)o.cap) < 0)
		fp_exit(73);
	o.map = mmap(0, o.cap, PROT_READ, MAP_SHARED, o.fd, 0);
	if (o.map == MAP_FAILED)
		fp_exit(73);
	/* The children need the descriptor, not this view of it. */
	madvise(o.map, o.cap, MADV_DONTFORK);
	return o;
}

/* out_take returns the bytes the trial wrote to o (in buf when they overflow the
 * mapping) and rewinds o for the next trial. */
static char *out_take(struct outfile *o, uint32_t *n, char **big) {
	off_t size = lseek(o->fd, 0, SEEK_CUR);
	if (size < 0)
		size = 0;
	*n = (uint32_t)size;
	char *p = o->map;
	if ((size_t)size > o->cap) {
		free(*big);
		*big = malloc((size_t)size);
		if (!*big || pread(o->fd, *big, (size_t)size, 0) != size)
			fp_exit(77);
		p = *big;
	}
	if (lseek(o->fd, 0, SEEK_SET) < 0)
		fp_exit(77);
	return p;
}

/* report sends a trial's wait status, its dump (in its sparse form when that is
 * shorter: __fragprof_sparse) and its extra records, in one write. */
static int report(int wfd, struct outfile *out, struct outfile *extra, int status) {
	static char *big[2];
	static unsigned char *sparse;
	static size_t sparse_cap;
	uint32_t dn, en;
	char *d = out_take(out, &dn, &big[0]);
	char *e = out_take(extra, &en, &big[1]);
	/* A whole dump with every unit's metadata: the client will have it (the trials
	 * after this one write it by reference). */
	__fragprof_meta_sent((const unsigned char *)d, dn);
	if (sparse_cap < dn) {
		free(sparse);
		sparse = malloc(dn);
		sparse_cap = sparse ? dn : 0;
	}
	size_t sn = sparse ? __fragprof_sparse((const unsigned char *)d, dn, sparse, sparse_cap) : 0;
	uint32_t h[6] = {TAG("FPR3"), (uint32_t)status, dn, sn ? 1 : 0, (uint32_t)sn, 0};
	uint32_t eh[2] = {en, 0};
	struct iovec iov[4] = {{h, sizeof h}, {d, dn}, {eh, sizeof eh}, {e, en}};
	if (sn) {
		iov[1].iov_base = sparse;
		iov[1].iov_len = sn;
	}
	size_t total = sizeof h + iov[1].iov_len + sizeof eh + en;
	int k = 0;
	while (total > 0) {
		ssize_t w = writev(wfd, iov + k, 4 - k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		total -= (size_t)w;
		while (k < 4 && (size_t)w >= iov[k].iov_len) {
			w -= (ssize_t)iov[k].iov_len;
			k++;
		}
		if (k < 4) {
			iov[k].iov_base = (char *)iov[k].iov_base + w;
			iov[k].iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* await waits for the trial pid and returns its wait status. */
static int await(pid_t pid) {
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fp_exit(76);
	return status;
}

/* await_rest waits for the trial's other processes: its children, and theirs, which
 * the server inherits as their subreaper when their parent ends first. The server
 * has no other children. */
static void await_rest(void) {
	int status;
	while (waitpid(-1, &status, 0) > 0 || errno == EINTR)
		;
}

/* The server's own CPU mask, given back after every fork. */
static cpu_set_t all_cpus;
static int have_all_cpus;

/* fork_here forks a trial that starts on the CPU the server is running on. Left to
 * itself, the kernel places a new process on the idlest CPU — here the other one,
 * idle, whose waking costs a virtual machine more than the whole trial of a small
 * program, while this CPU falls idle the moment the server waits. So the
 * server narrows its mask to its current CPU for the fork and both processes widen
 * it again at once: the trial starts here, and the scheduler stays free to move it
 * (or its threads) later. Where the mask cannot be set, a plain fork. */
static pid_t fork_here(void) {
	int narrowed = 0;
	int cpu = have_all_cpus ? sched_getcpu() : -1;
	if (cpu >= 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		narrowed = sched_setaffinity(0, sizeof one, &one) == 0;
	}
	pid_t pid = fork();
	if (narrowed)
		sched_setaffinity(0, sizeof all_cpus, &all_cpus);
	return pid;
}

static int serve(int rfd, int wfd, int argc, char **argv, char **envp, int inprocess) {
	/* One stdin, dump and extra file for every trial, rewound after each. */
	int in = memfd_create("fragprof-stdin", MFD_CLOEXEC);
	if (in < 0)
		fp_exit(73);
	/* The dump's descriptor stays open across exec: a program built by fragprof that
	 * a trial execs adds its counts to it (FRAGPROF_TRIAL_FD). */
	struct outfile out = out_create("fragprof-dump", 0), extra = out_create("fragprof-extra", MFD_CLOEXEC);
	char tfd[48];
	struct stat st;
	if (fstat(out.fd, &st) < 0)
		fp_exit(73);
	/* The descriptor and its inode: a program that closed it, and opened another file
	 * that got its number, does not take that file for the dump. */
	snprintf(tfd, sizeof tfd, "%d:%llu", out.fd, (unsigned long long)st.st_ino);
	setenv("FRAGPROF_TRIAL_FD", tfd, 1);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	int dirty = __fragprof_serve_trials();
	pid_t server = getpid();
	rq.fd = rfd;
	static char buf[1 << 16] FP_BULK;
	have_all_cpus = sched_getaffinity(0, sizeof all_cpus, &all_cpus) == 0;
	for (;;) {
		uint32_t tag, nargs, inlen;
		if (read_u32(&tag) < 0)
			fp_exit(0); /* the client went away */
		if (tag != TAG("FPQ3") || read_u32(&nargs) < 0 || read_u32(&inlen) < 0)
			fp_exit(70); /* not this protocol: the client says so (exec.ErrProtocol) */
		int n = argc;
		char **av = argv;
		if (nargs != 0xFFFFFFFFu) {
			n = 1 + (int)nargs;
			av = calloc((size_t)n + 1, sizeof *av);
			if (!av)
				fp_exit(71);
			av[0] = argv[0];
			for (uint32_t i = 0; i < nargs; i++) {
				uint32_t len;
				if (read_u32(&len) < 0 || !(av[i + 1] = malloc(len + 1)) || read_all(av[i + 1], len) < 0)
					fp_exit(72);
				av[i + 1][len] = 0;
			}
		}
		if (ftruncate(in, 0) < 0)
			fp_exit(74);
		for (uint32_t left = inlen, off = 0; left > 0;) {
			size_t k = left < sizeof buf ? left : sizeof buf;
			if (read_all(buf, k) < 0 || pwrite(in, buf, k, off) != (ssize_t)k)
				fp_exit(74);
			left -= (uint32_t)k;
			off += (uint32_t)k;
		}
		lseek(in, 0, SEEK_SET);
		int status;
		if (inprocess) {
			/* Reopen stdin on this trial's input: a fresh open of the memfd, so the
			 * stream starts clean (rewinding the old stream is not enough: glibc's
			 * fseek may serve the new position from the last trial's buffer). */
			char path[64];
			snprintf(path, sizeof path, "/proc/self/fd/%d", in);
			if (!freopen(path, "r", stdin))
				fp_exit(78);
			__fragprof_reset_for_child(out.fd, 1);
			__fragprof_set_extra_fd(extra.fd);
			__fragprof_trace_base();
			int code = __fragprof_main(n, av, envp);
			if (getpid() != server)
				exit(code); /* a child the trial forked returned from main */
			fflush(stdout);
			fflush(stderr);
			__fragprof_dump(0);
			status = (code & 0xff) << 8;
			await_rest();
		} else {
			pid_t pid = fork_here();
			if (pid < 0)
				fp_exit(75);
			if (pid == 0) {
				/* A trial dies with its server, which dies with fragprof (exec.start):
				 * a fragprof killed by SIGKILL leaves no trial running. */
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() != server)
					fp_exit(0); /* the server died before the prctl */
				close(rfd);
				close(wfd);
				dup2(in, 0);
				close(in);
				__fragprof_reset_for_child(out.fd, dirty);
				__fragprof_set_extra_fd(extra.fd);
				__fragprof_trace_base();
				exit(__fragprof_main(n, av, envp));
			}
			status = await(pid);
			await_rest();
		}
		if (av != argv) {
			for (int i = 1; i < n; i++)
				free(av[i]);
			free(av);
		}
		if (report(wfd, &out, &extra, status) < 0)
			fp_exit(0);
	}
}

/* __fragprof_start is called by the main that fragprof adds to the unit that defined
 * the program's main (internal/instrument: renameMain). The runtime defines no main of
 * its own: a program without one fails to link, as its plain build does, and a
 * program whose main was not built by fragprof keeps it. */
int __fragprof_start(int argc, char **argv, char **envp) {
	const char *ctl = fp_getenv("FRAGPROF_CTL");
	int rfd, wfd;
	if (ctl && sscanf(ctl, "%d,%d", &rfd, &wfd) == 2) {
		const char *iso = fp_getenv("FRAGPROF_ISOLATION");
		int inprocess = iso && strcmp(iso, "none") == 0;
		unsetenv("FRAGPROF_CTL");
		unsetenv("FRAGPROF_ISOLATION");
		return serve(rfd, wfd, argc, argv, envp, inprocess);
	}
	__fragprof_trace_base();
	return __fragprof_main(argc, argv, envp);
}
