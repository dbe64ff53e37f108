/* exceptions.cpp: exceptions thrown, caught, rethrown and passed through frames with
   destructors; one thrown by the C++ library (std::vector::at); one thrown by a
   callback through the C library's qsort, which fragprof does not instrument. */
#include <cstdio>
#include <cstdlib>
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

static int compare(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  if (x == 13 || y == 13)
    throw 13; // want 3
  return x - y;
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
  int through = 0;
  for (int r = 0; r < 5; r++) {
    int arr[] = {5, 3, 13 - r % 2, 1, 8};
    try {
      std::qsort(arr, 5, sizeof(int), compare);
    } catch (int) {
      through++; // want 3
    }
  }
  std::printf("sum %ld caught %d lib %d destroyed %d through qsort %d\n", sum, caught, lib, destroyed, through);
  return 0;
}
