// busy.c: a program that exercises what the in-process sampler must not disturb:
// threads, fork, signal handlers on an alternate stack, masks, and (with "prof" or
// "trap") its own SIGPROF or SIGTRAP handler; with "single", one thread and a
// frequent SIGALRM whose handler blocks every signal. Its output depends only on
// its work.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long work(unsigned long seed, long n) {
	unsigned long x = seed;
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		if (x % 7 == 3)
			x ^= x >> 17;
		else
			x += i;
	}
	return x;
}

static volatile sig_atomic_t usr1, onalt, prof, trap;

static void on_usr1(int sig) {
	(void)sig;
	stack_t ss;
	sigaltstack(NULL, &ss);
	if (ss.ss_flags & SS_ONSTACK)
		onalt++;
	// About a millisecond on the alternate stack, so that bursts start there.
	for (volatile long i = 0; i < 1000000; i++)
		;
	usr1++;
}
static void on_prof(int sig) { (void)sig; prof++; }

static volatile sig_atomic_t alarms;
static char hbuf[256], hsrc[256] = "the handler copies this with memcpy";
static void on_alarm(int sig) {
	(void)sig;
	memcpy(hbuf, hsrc, sizeof hsrc); // library code the main loop runs too
	alarms++;
}

// single runs one thread that calls library functions while SIGALRM, whose handler
// blocks every signal and calls the same functions, fires every 200 µs.
static int single(long n) {
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	char a[512], b[512];
	unsigned long x = 1;
	for (long i = 0; i < n / 100; i++) {
		snprintf(a, sizeof a, "%lu %ld", x, i);
		memcpy(b, a, sizeof a);
		x = work(x + strlen(b), 100);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("single %lu alarms %s\n", x, alarms > 0 ? "yes" : "no");
	return 0;
}
static void on_trap(int sig) { (void)sig; trap++; }

static void *thread(void *arg) {
	long id = (long)arg;
	unsigned long *r = malloc(sizeof *r);
	*r = work((unsigned long)id, 3000000);
	return r;
}

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	int own = argc > 2 ? (strcmp(argv[2], "prof") == 0 ? 1 : strcmp(argv[2], "trap") == 0 ? 2 : 0) : 0;
	if (argc > 2 && strcmp(argv[2], "single") == 0)
		return single(n);
	static char alt[1 << 16];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	sigaltstack(&ss, NULL);
	struct sigaction sa = {0};
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	if (own == 1) {
		signal(SIGPROF, on_prof);
		struct itimerval it = {{0, 2000}, {0, 2000}};
		setitimer(ITIMER_PROF, &it, NULL);
	}
	if (own == 2)
		signal(SIGTRAP, on_trap);
	unsigned long x = 0;
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	for (int r = 0; r < 10; r++) {
		x ^= work(x + (unsigned long)r, n / 10);
		// A masked section: the signal waits until the mask is lifted.
		sigprocmask(SIG_BLOCK, &block, &old);
		raise(SIGUSR1);
		x ^= work(x, n / 100);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (own == 2)
			raise(SIGTRAP);
	}
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread, (void *)(i + 1));
	for (int i = 0; i < 3; i++) {
		void *r;
		pthread_join(t[i], &r);
		x ^= *(unsigned long *)r;
		free(r);
	}
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		printf("child %lu\n", work(x, 2 * n)); // long enough for a few bursts of its own
		return 0;
	}
	int st;
	waitpid(c, &st, 0);
	printf("parent %lu usr1 %d onalt %d child-status %d\n", x, (int)usr1, (int)onalt, WEXITSTATUS(st));
	if (own == 1)
		printf("prof handler ran: %s\n", prof > 0 ? "yes" : "no");
	if (own == 2)
		printf("trap handler ran %d times\n", (int)trap);
	return 0;
}
