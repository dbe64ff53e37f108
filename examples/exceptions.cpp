/* exceptions.cpp: exceptions thrown, caught, rethrown and passed through frames with
   destructors; one thrown by the C++ library (std::vector::at). */
#include <cstdio>
#include <stdexcept>
#include <vector>

static int destroyed = 0;

struct Guard {
  int id;
  explicit Guard(int i) : id(i) {}
  ~Guard() { destroyed++; }
};

static int check(int x) {
  if (x % 5 == 0)
    throw std::invalid_argument("multiple of five");
  if (x % 7 == 0)
    throw x;
  return x * 2;
}

static int guarded(int x) {
  Guard g(x);
  int r = check(x);
  return r + 1;
}

static int rethrows(int x) {
  try {
    return guarded(x);
  } catch (int v) {
    if (v > 20)
      throw;
    return -v;
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
      caught++;
    } catch (int v) {
      caught += 2;
    }
    try {
      sum += v.at(i % 13);
    } catch (const std::out_of_range &) {
      lib++;
    }
  }
  std::printf("sum %ld caught %d lib %d destroyed %d\n", sum, caught, lib, destroyed);
  return 0;
}
