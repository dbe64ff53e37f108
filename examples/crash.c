/* crash.c: a SIGSEGV after some work; the runtime dumps the counts before dying. */
// signal: SIGSEGV
#include <stdio.h>

static volatile int *volatile nowhere = 0;

int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++)
    s += i;               // want 10
  printf("%d\n", s);
  fflush(stdout);
  if (s > 0)
    *nowhere = s;         // want 1
  puts("not reached");    // want 0
  return 0;
}
