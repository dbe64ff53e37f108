/* branches.c: if/else, && and ||, and ?: over i = 0..99. */
#include <stdio.h>

static int weight(int i) { return i % 7; } // calls 100

int main(void) {
  int evens = 0, odds = 0, both = 0, either = 0, big = 0;
  for (int i = 0; i < 100; i++) {
    if (i % 2 == 0) {
      evens++;            // want 50
    } else {
      odds++;             // want 50
    }
    if (i % 3 == 0 && i % 5 == 0)
      both++;             // want 7
    if (i % 3 == 0 || i % 5 == 0)
      either++;           // want 47
    big += i > 90
        ? weight(i)       // want 9
        : -weight(i);     // want 91
  }
  printf("%d %d %d %d %d\n", evens, odds, both, either, big);
  return 0;
}
