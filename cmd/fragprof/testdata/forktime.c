/* forktime.c: a timed function in a forking program (TestForkTime). The parent calls
 * work 3 times; the child it forks first calls it twice, and returns after its
 * parent (20 ms later); the grandchild, forked after the first call, calls it once. */
#include <unistd.h>

static volatile int sink;
__attribute__((noinline)) static void work(int i) {
	for (int k = 0; k < 100; k++)
		sink += i * k;
}

int main(void) {
	if (fork() == 0) {
		work(1);
		if (fork() == 0) {
			work(2);
			return 0;
		}
		usleep(20000);
		work(3);
		return 0;
	}
	for (int i = 0; i < 3; i++)
		work(i);
	return 0;
}
