/* forkexit.c: three forked children call work once each and end by _exit, the usual
 * end of a forked child, which skips the exit handlers; the parent calls work once:
 * 4 calls per run, all counted (TestForkFreq). */
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;
static void work(int i) { sink += i; }

int main(void) {
	for (int k = 0; k < 3; k++) {
		pid_t p = fork();
		if (p == 0) {
			work(k);
			_exit(0);
		}
		waitpid(p, 0, 0);
	}
	work(9);
	return 0;
}
