/* main.c: count the words of stdin (examples/project). */
#include <stdio.h>
#include "table.h"

int main(int argc, char **argv) {
  char w[32];
  while (scanf("%31s", w) == 1)
    table_add(w);            // want 9
  printf("%d distinct\n", table_distinct());
  for (int i = 1; i < argc; i++)
    printf("%s: %d\n", argv[i], table_count(argv[i])); // want 4
  return 0;
}
