/* mainset.c: main sets limit (scanf) and scale (init) at run time; --func work without
   them bound reads them as zero. 'unused' is set by main but work never reads it. */
#include <stdio.h>
int limit;
double scale;
int unused;
static void init(void) { scale = 2.5; }
long work(int n) {
  long s = 0;
  for (int i = 0; i < n && i < limit; i++)
    s += (long)(i * scale);
  return s;
}
int main(void) {
  if (scanf("%d", &limit) != 1)
    return 1;
  init();
  unused = 3;
  printf("%ld\n", work(10));
  return 0;
}
