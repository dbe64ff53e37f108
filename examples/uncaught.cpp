/* uncaught.cpp: an exception nobody catches: std::terminate aborts the program
   (SIGABRT), and the counts up to the throw are kept. */
// signal: SIGABRT
#include <cstdio>
#include <stdexcept>

static int step(int i) { // calls 8
  if (i == 7)
    throw std::runtime_error("seven"); // want 1
  return i * i; // want 7
}

int main() {
  long s = 0;
  for (int i = 0; i < 10; i++)
    s += step(i);
  std::printf("%ld\n", s);
  return 0;
}
