/* sort.c: the timing guide's sorting fragments, for fragprof freq --func.
 *
 * Insertion sort of n values drawn from uniform_int(0, 10^6), n ~ uniform_int(10, 100):
 * the inner loop's body runs once per inversion, and E[inversions | n] = C(n, 2)·q with
 * q = P(a_i > a_j) = (1 − 1/(10^6 + 1))/2 (ties are no inversions). Over n,
 * E[n(n − 1)] = Var n + (E n)² − E n = 690 + 3025 − 55 = 3660, so
 *   e(inner body) = 3660/2 · q = 914.999085
 *   fragprof freq examples/sort.c --func insertion_sort \
 *       --input 'n = uniform_int(10, 100)' --input 'a = array(n, uniform_int(0, 1e6))'
 */
#include <stdio.h>

void insertion_sort(int *a, int n) {
  for (int i = 1; i < n; i++) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];        // e 914.999085
      j--;
    }
    a[j + 1] = v;
  }
}

void bubble_sort(int *a, int n) {
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < n - i - 1; j++)
      if (a[j] > a[j + 1]) {
        int t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
}

int main(void) {
  int a[] = {5, 2, 9, 1, 7};
  insertion_sort(a, 5);
  for (int i = 0; i < 5; i++)
    printf("%d ", a[i]);
  printf("\n");
  return 0;
}
