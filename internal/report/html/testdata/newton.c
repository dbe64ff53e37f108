/* newton.c: square root by Newton's iteration, FreqSys's worked example (docs/methods.md).
 *
 * The input ask is read from stdin; with ask ~ uniform(100, 800) FreqSys reports a
 * loop-body frequency of 9.96 iterations.
 */
// stdin: 400
#include <stdio.h>

double nsqrt(double a) { // calls 1
  double x = a, prev;
  do {
    prev = x;                   // want 9
    x = 0.5 * (x + a / x);      // want 9
  } while (prev - x > 1e-6 || x - prev > 1e-6);
  return x;                     // want 1
}

int main(void) {
  double ask;
  if (scanf("%lf", &ask) != 1) {
    fprintf(stderr, "newton: expected a number on stdin\n"); // want 0
    return 1;
  }
  printf("%.6f\n", nsqrt(ask)); // want 1
  return 0;
}
