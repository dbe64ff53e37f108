/* forkserver.c: the runtime's main and its fork server.
 *
 * fragprof renames an instrumented program's main to __fragprof_main, so this main
 * runs first. Normally it just calls the program's main. When FRAGPROF_CTL="R,W"
 * names two descriptors, it becomes a fork server (AFL's is the model): the program
 * has initialised once; for every trial request read from R it forks a fresh copy,
 * gives it the trial's argv and stdin, lets it run the program's main to its end,
 * and reports its pid, then its wait status and its counter dump, on W. Each trial
 * is a fresh process image, as FreqSys requires, without the cost of exec.
 *
 * With FRAGPROF_ISOLATION=none it runs every trial in its own process instead, one
 * after the other, resetting the counters in between: much faster, and right only
 * for programs whose main leaves no state behind (globals, heap, open files) and
 * returns rather than calling exit().
 *
 * Protocol (little-endian u32s):
 *   request: "FPRQ", nargs, stdin_len, then nargs × (len, bytes), then stdin bytes.
 *            nargs = 0xFFFFFFFF keeps the server's own arguments.
 *   reply:   "FPPD", pid            once the trial process exists
 *            "FPST", wait status, dump length, 0, dump bytes, extra length, 0,
 *            extra bytes (the extra channel's records, extra.c)   when it has ended
 * A read of end-of-file on R ends the server.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fp_internal.h"

extern int __fragprof_main(int, char **, char **) __attribute__((weak));

static int read_all(int fd, void *p, size_t n) {
	char *c = p;
	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int read_u32(int fd, uint32_t *v) {
	unsigned char b[4];
	if (read_all(fd, b, 4) < 0)
		return -1;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static int write_u32s(int fd, uint32_t a, uint32_t b) {
	uint32_t v[2] = {a, b};
	return __fragprof_write_all(fd, v, sizeof v);
}

#define TAG(s) ((uint32_t)(s)[0] | (uint32_t)(s)[1] << 8 | (uint32_t)(s)[2] << 16 | (uint32_t)(s)[3] << 24)

/* send_file sends the length of fd's contents and the contents, and closes fd. */
static int send_file(int wfd, int fd, char *buf, size_t cap) {
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		size = 0;
	if (write_u32s(wfd, (uint32_t)size, 0) < 0)
		return -1;
	lseek(fd, 0, SEEK_SET);
	for (off_t left = size; left > 0;) {
		ssize_t r = read(fd, buf, left < (off_t)cap ? (size_t)left : cap);
		if (r <= 0)
			_exit(77);
		if (__fragprof_write_all(wfd, buf, (size_t)r) < 0)
			return -1;
		left -= r;
	}
	close(fd);
	return 0;
}

/* report sends a trial's wait status, its dump and its extra records. */
static int report(int wfd, int out, int extra, int status, char *buf, size_t cap) {
	if (write_u32s(wfd, TAG("FPST"), (uint32_t)status) < 0)
		return -1;
	if (send_file(wfd, out, buf, cap) < 0)
		return -1;
	return send_file(wfd, extra, buf, cap);
}

static int serve(int rfd, int wfd, int argc, char **argv, char **envp, int inprocess) {
	for (;;) {
		uint32_t tag, nargs, inlen;
		if (read_u32(rfd, &tag) < 0)
			_exit(0); /* the client went away */
		if (tag != TAG("FPRQ") || read_u32(rfd, &nargs) < 0 || read_u32(rfd, &inlen) < 0)
			_exit(70);
		int n = argc;
		char **av = argv;
		if (nargs != 0xFFFFFFFFu) {
			n = 1 + (int)nargs;
			av = calloc((size_t)n + 1, sizeof *av);
			if (!av)
				_exit(71);
			av[0] = argv[0];
			for (uint32_t i = 0; i < nargs; i++) {
				uint32_t len;
				if (read_u32(rfd, &len) < 0 || !(av[i + 1] = malloc(len + 1)) || read_all(rfd, av[i + 1], len) < 0)
					_exit(72);
				av[i + 1][len] = 0;
			}
		}
		int in = memfd_create("fragprof-stdin", MFD_CLOEXEC);
		int out = memfd_create("fragprof-dump", MFD_CLOEXEC);
		int extra = memfd_create("fragprof-extra", MFD_CLOEXEC);
		if (in < 0 || out < 0 || extra < 0)
			_exit(73);
		char buf[65536];
		for (uint32_t left = inlen; left > 0;) {
			size_t k = left < sizeof buf ? left : sizeof buf;
			if (read_all(rfd, buf, k) < 0 || __fragprof_write_all(in, buf, k) < 0)
				_exit(74);
			left -= (uint32_t)k;
		}
		lseek(in, 0, SEEK_SET);
		if (inprocess) {
			/* Reopen stdin on this trial's input: a fresh open of the memfd, so the
			 * stream starts clean (rewinding the old stream is not enough: glibc's
			 * fseek may serve the new position from the last trial's buffer). */
			char path[64];
			snprintf(path, sizeof path, "/proc/self/fd/%d", in);
			if (!freopen(path, "r", stdin))
				_exit(78);
			close(in);
			__fragprof_reset_for_child(out);
			__fragprof_set_extra_fd(extra);
			if (write_u32s(wfd, TAG("FPPD"), (uint32_t)getpid()) < 0)
				_exit(0);
			int code = __fragprof_main(n, av, envp);
			fflush(stdout);
			fflush(stderr);
			__fragprof_dump(0);
			if (av != argv) {
				for (int i = 1; i < n; i++)
					free(av[i]);
				free(av);
			}
			if (report(wfd, out, extra, (code & 0xff) << 8, buf, sizeof buf) < 0)
				_exit(0);
			continue;
		}
		pid_t pid = fork();
		if (pid < 0)
			_exit(75);
		if (pid == 0) {
			close(rfd);
			close(wfd);
			dup2(in, 0);
			close(in);
			__fragprof_reset_for_child(out);
			__fragprof_set_extra_fd(extra);
			exit(__fragprof_main(n, av, envp));
		}
		close(in);
		if (av != argv) {
			for (int i = 1; i < n; i++)
				free(av[i]);
			free(av);
		}
		if (write_u32s(wfd, TAG("FPPD"), (uint32_t)pid) < 0)
			_exit(0);
		int status;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				_exit(76);
		if (report(wfd, out, extra, status, buf, sizeof buf) < 0)
			_exit(0);
	}
}

/* main is weak so that a program whose own main was not built by fragprof keeps it. */
__attribute__((weak)) int main(int argc, char **argv, char **envp) {
	if (!__fragprof_main)
		abort(); /* cannot happen: this main is linked only to call it */
	const char *ctl = getenv("FRAGPROF_CTL");
	int rfd, wfd;
	if (ctl && sscanf(ctl, "%d,%d", &rfd, &wfd) == 2) {
		const char *iso = getenv("FRAGPROF_ISOLATION");
		int inprocess = iso && strcmp(iso, "none") == 0;
		unsetenv("FRAGPROF_CTL");
		unsetenv("FRAGPROF_ISOLATION");
		return serve(rfd, wfd, argc, argv, envp, inprocess);
	}
	return __fragprof_main(argc, argv, envp);
}
