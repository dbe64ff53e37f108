// trapcost.c: what one trap costs on this machine, the figure that chooses how the
// in-process sampler steps (docs/sampling.md): a debug trap from the trap flag
// (EFLAGS.TF, delivered as SIGTRAP), a breakpoint (int3, SIGTRAP), a plain signal
// (tgkill), a system call. Prints CPU and wall microseconds per event, and the
// ratio of the debug trap to the breakpoint, both measured in this run.
// Usage: gcc -O2 -o trapcost bench/trapcost.c && ./trapcost
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static volatile long n, want;
static void on_tf(int s, siginfo_t *si, void *u) {
	(void)s, (void)si;
	if (++n >= want)
		((ucontext_t *)u)->uc_mcontext.gregs[REG_EFL] &= ~0x100;
}
static void on_sig(int s, siginfo_t *si, void *u) { (void)s, (void)si, (void)u; n++; }
static double clk(clockid_t c) {
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
static double w0, c0;
static void start(void) { w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID); }
static double stop(const char *what, long k) {
	double c = (clk(CLOCK_PROCESS_CPUTIME_ID) - c0) / k * 1e6;
	printf("%-22s %8.2f µs CPU %8.2f µs wall\n", what, c, (clk(CLOCK_MONOTONIC) - w0) / k * 1e6);
	return c;
}

int main(void) {
	struct sigaction sa = {0};
	sa.sa_flags = SA_SIGINFO;
	sa.sa_sigaction = on_tf;
	sigaction(SIGTRAP, &sa, NULL);
	want = 50000, n = 0;
	start();
	__asm__ volatile("pushf; orq $0x100,(%%rsp); popf" ::: "memory");
	for (volatile int i = 0; n < want; i++)
		;
	double tf = stop("trap flag (#DB)", n);
	sa.sa_sigaction = on_sig;
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	start();
	for (int i = 0; i < 50000; i++)
		__asm__ volatile("int3");
	double bp = stop("breakpoint (int3)", 50000);
	start();
	for (int i = 0; i < 50000; i++)
		syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	stop("signal (tgkill)", 50000);
	start();
	for (int i = 0; i < 50000; i++)
		syscall(SYS_getppid);
	stop("system call", 50000);
	printf("trap flag / breakpoint (CPU): %.1f\n", tf / bp);
	return 0;
}
