/* sortsum.c: insertion sort of pseudo-random numbers, then a checksum; two phases
   with different hot loops (the sort's inner while loop dominates).
   Usage: sortsum [count] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 3000;
	int *a = malloc(sizeof *a * n);
	unsigned x = 7;
	for (int i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		a[i] = x >> 8;
	}
	for (int i = 1; i < n; i++) {
		int v = a[i], j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
	unsigned long sum = 0;
	for (int i = 0; i < n; i++)
		sum = sum * 31 + a[i];
	printf("%lu\n", sum);
	free(a);
	return 0;
}
