/* lines.c: the oracle's own fixture. The comments say which gcc 12 -O0 blocks hold
 * each line; gcc ends a block after every call that may not return. */
#include <stdio.h>

static int f(int x) { return x + 1; } /* one block */

int main(void) {         /* the first block: lines 7, 8 and the init of 9 */
  int t = 0;             /* the first block only */
  for (int k = 0; k < 10; k++) /* three blocks: init, test, increment */
    t += f(k);           /* a chain: the call, then the add with the increment */
  if (t > 50)            /* one block, ending in the branch */
    t = f(t) + f(t);     /* a chain of three: two calls, then the add */
  printf("%d\n", t);     /* a chain: the call, then line 14 */
  return 0;              /* the same chain */
}
