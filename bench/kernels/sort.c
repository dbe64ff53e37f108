/* sort.c: insertion sort of short runs and quicksort of the whole, on pseudo-random
 * integers; prints a checksum. A CPU kernel of bench/overhead.sh.
 * Usage: sort [N] (default 1000000) */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 88172645463325252ULL;
static unsigned next(void) {
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)rng;
}

static void insertion(int *a, int n) {
	for (int i = 1; i < n; i++) {
		int v = a[i], j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static void quick(int *a, int n) {
	while (n > 24) {
		int p = a[n / 2], i = 0, j = n - 1;
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				int t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (j + 1 < n - i) {
			quick(a, j + 1);
			a += i, n -= i;
		} else {
			quick(a + i, n - i);
			n = j + 1;
		}
	}
	insertion(a, n);
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1000000;
	int *a = malloc((size_t)n * sizeof *a);
	if (!a)
		return 1;
	for (int i = 0; i < n; i++)
		a[i] = (int)(next() % 1000000007u);
	quick(a, n);
	unsigned long long sum = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0 && a[i - 1] > a[i]) {
			printf("not sorted at %d\n", i);
			return 1;
		}
		sum = sum * 31 + (unsigned)a[i];
	}
	printf("%llu\n", sum);
	free(a);
	return 0;
}
