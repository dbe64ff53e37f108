/* A program whose trials take 100 ms (asleep, so that many run at once even on a
 * small machine): the Slurm tests interrupt a round while its tasks run. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  int n, s = 0;
  if (scanf("%d", &n) != 1)
    return 1;
  for (int i = 0; i < n; i++)
    if (i % 3 == 0)
      s++;
  usleep(100000);
  printf("%d\n", s);
  return 0;
}
