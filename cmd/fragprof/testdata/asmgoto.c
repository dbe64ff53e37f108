/* asmgoto.c: asm goto (callbr) whose target is also reached by a goto, so its
   indirect edge is critical and cannot be split; and a computed goto (indirectbr). */
#include <stdio.h>

static int h(int x) { // calls 2
  if (x > 5)
    goto out;
  asm goto("" :::: out);
  x++;
  return x;
out:
  return -x; // want 1
}

static int dispatch(int n) { // calls 1
  static void *ops[] = {&&inc, &&dbl, &&done};
  int v = 1, i = 0;
  goto *ops[0];
inc:
  v++; // want 4
  if (++i == n)
    goto *ops[2];
  goto *ops[i % 2];
dbl:
  v *= 2; // want 3
  i++;
  goto *ops[i % 2 == 0 && i < n ? 0 : (i < n ? 1 : 2)];
done:
  return v; // want 1
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d %d %d\n", h(argc), h(argc + 10), dispatch(7));
  return 0;
}
