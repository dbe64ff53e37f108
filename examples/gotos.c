/* gotos.c: a loop and an early way out written with goto. */
#include <stdio.h>

int main(void) {
  int i = 0, s = 0;
again:
  s += i;                 // want 7
  i++;
  if (i == 7)
    goto out;             // want 1
  if (i < 100)
    goto again;           // want 6
  s = -1;                 // want 0
out:
  printf("%d %d\n", i, s);
  return 0;
}
