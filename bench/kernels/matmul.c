/* matmul.c: dense double matrix product, naive i-k-j loops and a blocked version,
 * compared; prints a checksum. A CPU kernel of bench/overhead.sh.
 * Usage: matmul [N] (default 300) */
#include <stdio.h>
#include <stdlib.h>

static void naive(int n, const double *a, const double *b, double *c) {
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++) {
			double x = a[i * n + k];
			for (int j = 0; j < n; j++)
				c[i * n + j] += x * b[k * n + j];
		}
}

static void blocked(int n, const double *a, const double *b, double *c) {
	const int B = 32;
	for (int ii = 0; ii < n; ii += B)
		for (int kk = 0; kk < n; kk += B)
			for (int jj = 0; jj < n; jj += B)
				for (int i = ii; i < ii + B && i < n; i++)
					for (int k = kk; k < kk + B && k < n; k++) {
						double x = a[i * n + k];
						for (int j = jj; j < jj + B && j < n; j++)
							c[i * n + j] += x * b[k * n + j];
					}
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 300;
	double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
	double *c = calloc((size_t)n * n, sizeof(double)), *d = calloc((size_t)n * n, sizeof(double));
	if (!a || !b || !c || !d)
		return 1;
	for (int i = 0; i < n * n; i++) {
		a[i] = (i % 17) * 0.25 - 2;
		b[i] = (i % 13) * 0.5 - 3;
	}
	naive(n, a, b, c);
	blocked(n, a, b, d);
	double s = 0;
	for (int i = 0; i < n * n; i++) {
		if (c[i] != d[i]) {
			printf("mismatch at %d\n", i);
			return 1;
		}
		s += c[i] * ((i % 7) - 3);
	}
	printf("%.6e\n", s);
	return 0;
}
