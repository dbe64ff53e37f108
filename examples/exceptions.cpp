/* exceptions.cpp: exceptions thrown, caught, rethrown and passed through frames with
   destructors; one thrown by the C++ library (std::vector::at). */
#include <cstdio>
#include <stdexcept>
#include <vector>

static int destroyed = 0;

struct Guard {
  int id;
  explicit Guard(int i) : id(i) {}
  ~Guard() { destroyed++; } // calls 40
};

static int check(int x) { // calls 40
  if (x % 5 == 0)
    throw std::invalid_argument("multiple of five"); // want 8
  if (x % 7 == 0)
    throw x; // want 4
  return x * 2; // want 28
}

static int guarded(int x) { // calls 40
  Guard g(x);
  int r = check(x);
  return r + 1; // want 28
}

static int rethrows(int x) { // calls 40
  try {
    return guarded(x);
  } catch (int v) {
    if (v > 20) // want 4
      throw; // want 2
    return -v; // want 2
  }
}

int main() {
  std::vector<int> v(10, 1);
  long sum = 0;
  int caught = 0, lib = 0;
  for (int i = 1; i <= 40; i++) {
    try {
      sum += rethrows(i);
    } catch (const std::invalid_argument &e) {
      caught++; // want 8
    } catch (int v) {
      caught += 2; // want 2
    }
    try {
      sum += v.at(i % 13);
    } catch (const std::out_of_range &) {
      lib++; // want 9
    }
  }
  std::printf("sum %ld caught %d lib %d destroyed %d\n", sum, caught, lib, destroyed);
  return 0;
}
