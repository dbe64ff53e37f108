/* passthrough.cpp: exceptions that pass through frames which neither catch them nor
   clean up: g's landing pad has a catch clause that does not match (the unwinder
   skips it), h has no landing pad at all, and its call is followed by a branch. main
   returns, yet their blocks with the call are left fewer times than entered. */
#include <cstdio>
#include <stdexcept>

struct MyErr {};

static void f(int i) { // calls 200
  if (i % 7 == 0)
    throw std::out_of_range("f"); // want 30
}

static void g(int i) { // calls 100
  try {
    f(i);
  } catch (const MyErr &) {
    puts("never"); // want 0
  }
}

static int h(int i) { // calls 100
  f(i);
  if (i & 1)
    return 1; // want 43
  return 0;
}

int main() {
  int caught = 0, odd = 0;
  for (int i = 0; i < 100; i++) {
    try {
      g(i);
    } catch (const std::exception &) {
      caught++; // want 15
    }
    try {
      odd += h(i);
    } catch (const std::out_of_range &) {
      caught++; // want 15
    }
  }
  printf("%d %d\n", caught, odd);
  return 0;
}
