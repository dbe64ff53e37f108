/* early_edited.c: early.c after an edit that changes the CFG of work (an extra
 * branch), for the stale-profile and merge-mismatch tests. */
#include <stdio.h>
#include <stdlib.h>

static int deep(int i) {
	int r = i * 3;
	return r % 5 == 0 ? r + 1 : r - 1;
}

static int middle(int i) { return i % 2 ? deep(i) : deep(i) + 1; }

static int work(int n) {
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			s += middle(i);
		else if (i % 3 == 1)
			s -= middle(i) / 2;
		else
			s ^= 1;
	}
	return s;
}

int main(int argc, char **argv) {
	printf("%d\n", work(argc > 1 ? atoi(argv[1]) + 12 : 12));
	return 0;
}
