/* exit_nested.c: exit() from two calls deep; the counts up to there are kept. */
// exit: 3
#include <stdio.h>
#include <stdlib.h>

static void check(int v) { // calls 5
  if (v > 3) {
    printf("too big: %d\n", v); // want 1
    exit(3);
  }
}

static void walk(int n) { // calls 1
  for (int i = 0; i < n; i++)
    check(i);             // want 5
  puts("not reached");    // want 0
}

int main(void) {
  /* The block holding these two lines was entered once; exit() left it midway. */
  walk(10);               // want 1
  return 0;
}
