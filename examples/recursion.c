/* recursion.c: recursion and early returns. */
#include <stdio.h>

static long fib(int n) { // calls 177
  if (n < 2)
    return n;             // want 89
  return fib(n - 1) + fib(n - 2); // want 88
}

static int find(const int *a, int n, int x) { // calls 2
  for (int i = 0; i < n; i++)
    if (a[i] == x)
      return i;           // want 1
  return -1;              // want 1
}

int main(void) {
  int a[] = {5, 3, 9, 1};
  printf("%ld %d %d\n", fib(10), find(a, 4, 9), find(a, 4, 7));
  return 0;
}
