// overloads.cpp: C++ functions for freq --func: overloads, references, vectors by
// reference and by value, and a string (which --func refuses).
#include <string>
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

int above(std::vector<double> v, double t) {
  int n = 0;
  for (double x : v)
    if (x > t)
      n++;
  return n;
}

int length(const std::string &s) { return int(s.size()); }

int main() {
  int t = 0;
  std::vector<int> v{1, 2, 3};
  return fib(5) + int(fib(3.0)) + acc::sumto(4, t) + vsum(v) + above({0.5, 2}, 1) + length("x") == 0;
}
