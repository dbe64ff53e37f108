// cxx_work.cpp: a CPU-bound C++ program for bench/overhead.sh: virtual calls,
// templates, lambdas, STL containers and exceptions (one throw per 64 rounds), about
// 0.3 s at -O2.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

struct Op {
  virtual ~Op() {}
  virtual long apply(long x) const = 0;
};
struct Add : Op {
  long k;
  explicit Add(long v) : k(v) {}
  long apply(long x) const override { return x + k; }
};
struct Mul : Op {
  long k;
  explicit Mul(long v) : k(v) {}
  long apply(long x) const override { return (x * k) % 1000003; }
};

template <typename T> T checked(T x) {
  if (x % 64 == 63)
    throw std::range_error("unlucky");
  return x;
}

int main() {
  std::vector<std::unique_ptr<Op>> ops;
  for (int i = 0; i < 16; i++) {
    if (i % 2)
      ops.push_back(std::make_unique<Add>(i));
    else
      ops.push_back(std::make_unique<Mul>(i + 3));
  }
  std::map<long, int> seen;
  long acc = 1, thrown = 0;
  for (long round = 0; round < 600000; round++) {
    std::vector<long> v;
    for (const auto &op : ops)
      v.push_back(op->apply(acc + round));
    std::sort(v.begin(), v.end(), [](long a, long b) { return a % 97 < b % 97; });
    try {
      acc = (acc + checked(v[round % v.size()])) % 1000003;
    } catch (const std::range_error &) {
      thrown++;
    }
    seen[acc % 512]++;
  }
  std::printf("%ld %ld %zu\n", acc, thrown, seen.size());
  return 0;
}
