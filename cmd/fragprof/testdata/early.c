/* early.c: a run that ends early in different ways, chosen by the first argument:
 * 0 return from main, 1 exit() three calls deep, 2 abort(), 3 raise(SIGTERM),
 * 4 longjmp out of a nested call back into main, 5 SIGSEGV in a block without calls,
 * 6 SIGFPE (division by zero), 7 a signal handler that calls exit(), 8 SIGSEGV two
 * calls deep in functions that call nothing external (their callers' blocks have no
 * call that may not return: only the fault stops them).
 * Every counter scheme must give the same counts for all of them. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf jb;
static int mode;
static volatile int zero;
static int *volatile nowhere;

static void on_usr1(int sig) { exit(40 + sig % 10); }

static int deep(int i) {
	int r = i * 3;
	if (i == 7) {
		switch (mode) {
		case 1: exit(3);
		case 2: abort();
		case 3: raise(SIGTERM); break;
		case 4: longjmp(jb, 1);
		case 5: r += *nowhere; break;
		case 6: r /= zero; break;
		case 7: raise(SIGUSR1); break;
		}
	}
	return r % 5 == 0 ? r + 1 : r - 1;
}

static int peek(int i) { return i == 7 ? *nowhere : i; }

static int twice(int i) { return peek(i) + peek(i + 1); }

/* A block the entry cannot reach (the back end deletes it, and its address with
 * it: the -O0 walk table must not name it). */
static int unreached(int i) {
	if (i >= 0)
		return i + 1;
	return 0;
never:
	i++;
	goto never;
}

static int rec(int n) { return n == 0 ? *nowhere : 1 + rec(n - 1); }

static int overflow(int n) {
	volatile char pad[256];
	pad[n % 256] = (char)n;
	return overflow(n + 1) + pad[0];
}

static int cmp(const void *a, const void *b) {
	int x = *(const int *)a, y = *(const int *)b;
	if (x == 7 || y == 7)
		x += *nowhere;
	return x < y ? -1 : x > y;
}

static int middle(int i) { return i % 2 ? deep(i) : deep(i) + 1; }

static int work(int n) {
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (mode == 8)
			s += twice(i);
		else if (mode == 9 && i == 5)
			s += rec(50);
		else if (mode == 10 && i == 5)
			s += overflow(0);
		else if (mode == 11 && i == 5) {
			int v[12];
			for (int k = 0; k < 12; k++)
				v[k] = (k * 5) % 12;
			qsort(v, 12, sizeof v[0], cmp);
			s += v[0];
		} else if (i % 3 == 0)
			s += middle(i);
		else
			s -= middle(i) / 2;
	}
	return s;
}

int main(int argc, char **argv) {
	mode = argc > 1 ? atoi(argv[1]) : 0;
	signal(SIGUSR1, on_usr1);
	if (setjmp(jb)) {
		printf("back in main\n");
		return 0;
	}
	printf("%d\n", work(unreached(11)));
	return 0;
}
