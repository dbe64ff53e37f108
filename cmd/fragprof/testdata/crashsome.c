/* A program that aborts when its first input is at most its second: the Slurm tests
 * make a share of the trials crash, or all of them. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n, limit, s = 0;
  if (scanf("%d %d", &n, &limit) != 2)
    return 1;
  if (n <= limit)
    abort();
  for (int i = 0; i < n; i++)
    s += i % 3;
  printf("%d\n", s);
  return 0;
}
