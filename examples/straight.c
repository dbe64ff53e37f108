/* straight.c: straight-line code and calls: every block runs once per call. */
#include <stdio.h>

static int twice(int x) { // calls 3
  return 2 * x;           // want 3
}

int main(void) {
  int a = twice(1);       // want 1
  int b = twice(a);
  int c = twice(b);
  printf("%d\n", a + b + c);
  return 0;
}
