/* switch.c: a switch with fallthrough, a shared target and a default. */
#include <stdio.h>

static int classify(int x) { // calls 20
  int r = 0;
  switch (x % 6) {
  case 0:
    r += 100;             // want 4
    /* fallthrough */
  case 1:
    r += 10;              // want 8
    break;
  case 2:
  case 3:
    r += 1;               // want 6
    break;
  default:
    r = -1;               // want 6
  }
  return r;
}

int main(void) {
  int s = 0;
  for (int i = 0; i < 20; i++)
    s += classify(i);
  printf("%d\n", s);
  return 0;
}
