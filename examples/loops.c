/* loops.c: nested loops, a while loop and a do-while loop. */
// args: x y
#include <stdio.h>

int main(int argc, char **argv) {
  long s = 0;
  int n = 10 + argc; /* run with two arguments: argc = 3, so n = 13 */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      s += i * j;         // want 78
  int k = 1000;
  while (k > 1)
    k /= 2;               // want 9
  int d = 0;
  do
    d += 3;               // want 4
  while (d < 10);
  printf("%ld %d %d\n", s, k, d);
  return 0;
}
