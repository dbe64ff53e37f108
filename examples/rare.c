/* rare.c: a block that almost never runs (FreqSys's rare-block case, docs/methods.md).
 *
 * x is uniform over all 64-bit values; the then-branch runs when x equals one value,
 * with probability 2^-64. fragprof freq must report it constant (it never ran) or
 * inadequate (it ran so rarely that the normal approximation cannot be certified),
 * never converged:
 *   fragprof freq examples/rare.c --input 'x = uniform_int(-9223372036854775808, 9223372036854775807)' \
 *       --stdin '{x}\n' --eps 0.01
 */
// stdin: 42
#include <stdio.h>

int main(void) {
  long long x, a = 42;
  if (scanf("%lld", &x) != 1)
    return 2;
  if (x == a)
    x = 0;                   // want 1
  else
    x = 1;                   // want 0
  printf("%lld\n", x);
  return 0;
}
