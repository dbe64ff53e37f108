/* forklate.c: processes that outlive the trial's main (TestForkFreq). The parent
 * forks a child and returns at once, without waiting for it; the child forks a
 * grandchild and returns; the grandchild, orphaned, sleeps 20 ms and calls work 4
 * times. Every trial calls work 1 + 2 + 4 = 7 times, in three processes. */
#include <unistd.h>

static volatile int sink;
static void work(int i) { sink += i; }

int main(void) {
	if (fork() == 0) {
		if (fork() == 0) {
			usleep(20000);
			for (int i = 0; i < 4; i++)
				work(i);
			return 0;
		}
		for (int i = 0; i < 2; i++)
			work(i);
		return 0;
	}
	work(0);
	return 0;
}
