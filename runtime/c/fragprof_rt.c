/* fragprof runtime: linked into every program built by fragprof.
 *
 * Each instrumented translation unit registers a descriptor (its counter array and
 * the metadata blob describing its CFG and counter plan) from a constructor. At exit
 * (after every atexit handler and destructor of the program) and on fatal signals the
 * runtime writes all units to the dump named by FRAGPROF_OUT (a path; %p expands to
 * the pid) or FRAGPROF_FD (an open descriptor). It never writes to the program's
 * stdout or stderr. The dump layout is documented in docs/runtime.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fp_unit {
	uint32_t version;
	uint32_t ncounters;
	uint64_t *counters;
	const char *meta;
	uint64_t metalen;
	struct fp_unit *next;
};

int __fragprof_main_returned;

static struct fp_unit *units;
static uint32_t nunits;
static int installed;
static volatile sig_atomic_t dumped;
static pid_t owner;
static char out_path[4096];
static int out_fd = -1;

static int write_all(int fd, const void *p, size_t n) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
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

/* expand copies out_path to dst with %p replaced by the pid (async-signal-safe). */
static int expand(char *dst, size_t cap, int *has_pid) {
	size_t j = 0;
	*has_pid = 0;
	for (size_t i = 0; out_path[i]; i++) {
		if (out_path[i] == '%' && out_path[i + 1] == 'p') {
			char num[24];
			int k = 0;
			unsigned long p = (unsigned long)getpid();
			do {
				num[k++] = (char)('0' + p % 10);
				p /= 10;
			} while (p);
			while (k > 0) {
				if (j + 1 >= cap)
					return -1;
				dst[j++] = num[--k];
			}
			i++;
			*has_pid = 1;
			continue;
		}
		if (j + 1 >= cap)
			return -1;
		dst[j++] = out_path[i];
	}
	dst[j] = 0;
	return 0;
}

static void put32(unsigned char *b, uint32_t v) {
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static int dump_to(int fd, int sig) {
	unsigned char h[32];
	memcpy(h, "FPDUMP\0\1", 8);
	put32(h + 8, 1);
	put32(h + 12, nunits);
	put32(h + 16, (uint32_t)__fragprof_main_returned);
	put32(h + 20, (uint32_t)sig);
	put32(h + 24, (uint32_t)getpid());
	put32(h + 28, 0);
	if (write_all(fd, h, sizeof h) < 0)
		return -1;
	static const char zeros[8];
	for (struct fp_unit *u = units; u; u = u->next) {
		unsigned char uh[8];
		put32(uh, u->ncounters);
		put32(uh + 4, (uint32_t)u->metalen);
		if (write_all(fd, uh, 8) < 0 || write_all(fd, u->meta, u->metalen) < 0)
			return -1;
		size_t pad = (8 - u->metalen % 8) % 8;
		if (pad && write_all(fd, zeros, pad) < 0)
			return -1;
		if (write_all(fd, u->counters, (size_t)u->ncounters * 8) < 0)
			return -1;
	}
	return 0;
}

/* __fragprof_dump writes the dump once. sig is the fatal signal, or 0. */
void __fragprof_dump(int sig) {
	if (dumped)
		return;
	dumped = 1;
	if (out_fd >= 0) {
		if (getpid() == owner)
			dump_to(out_fd, sig);
		return;
	}
	if (!out_path[0])
		return;
	char path[4096], tmp[4200];
	int has_pid;
	if (expand(path, sizeof path, &has_pid) < 0)
		return;
	if (!has_pid && getpid() != owner)
		return; /* a forked child: the parent owns the file */
	size_t n = strlen(path);
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp", 5);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	int bad = dump_to(fd, sig);
	close(fd);
	if (bad == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

static const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
                            SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ};

static void on_signal(int sig) {
	int saved = errno;
	__fragprof_dump(sig);
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

static void install(void) {
	installed = 1;
	owner = getpid();
	const char *fd = getenv("FRAGPROF_FD");
	const char *path = getenv("FRAGPROF_OUT");
	if (fd && *fd)
		out_fd = atoi(fd);
	else if (path && strlen(path) < sizeof out_path)
		strcpy(out_path, path);
	if (out_fd < 0 && !out_path[0])
		return; /* nobody asked for counts: stay out of the program's way */
	static char altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	sigaltstack(&ss, 0);
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(fatal[i], 0, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* the program was started with it ignored: keep that */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal[i], &sa, 0);
	}
}

void __fragprof_register(struct fp_unit *u) {
	if (!installed)
		install();
	u->next = units;
	units = u;
	nunits++;
}

/* Runs after the program's own atexit handlers and destructors. */
__attribute__((destructor(101))) static void at_exit(void) { __fragprof_dump(0); }
