// overloads.cpp: C++ functions for freq --func: overloads, references, a vector.
#include <vector>

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
double fib(double x) { return x < 2 ? x : fib(x - 1) + fib(x - 2); }

namespace acc {
int sumto(const int &n, int &total) {
  for (int i = 0; i < n; i++)
    total += i;
  return total;
}
} // namespace acc

int vsum(const std::vector<int> &v) {
  int s = 0;
  for (int x : v)
    s += x;
  return s;
}

int main() {
  int t = 0;
  std::vector<int> v{1, 2, 3};
  return fib(5) + int(fib(3.0)) + acc::sumto(4, t) + vsum(v) == 0;
}
