/* known.c: blocks whose expected counts e(b) are known exactly, for fragprof freq.
 *
 * With the inputs below (fragprof freq examples/known.c --inputs examples/known.toml):
 *   a loop with trip count n ~ uniform_int(1, 100)        e = 50.5
 *   a loop with a geometric trip count g ~ geometric(0.2)  e = (1 − p)/p = 4
 *   a branch taken when x ~ uniform(0, 1) is below 0.3     e = 0.3
 *   a nested loop of a ~ uniform_int(1, 10) × b ~ uniform_int(1, 20) passes
 *                                                         e = 5.5 · 10.5 = 57.75
 */
// stdin: 10 3 0.5 2 4
#include <stdio.h>

int main(void) {
  long n, g, a, b;
  double x;
  if (scanf("%ld %ld %lf %ld %ld", &n, &g, &x, &a, &b) != 5)
    return 2;
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i;                  // want 10    e 50.5
  for (long j = 0; j < g; j++)
    s ^= j;                  // want 3     e 4
  if (x < 0.3)
    s++;                     // want 0     e 0.3
  for (long i = 0; i < a; i++)
    for (long j = 0; j < b; j++)
      s += i * j;            // want 8     e 57.75
  printf("%ld\n", s);
  return 0;
}
