// minilib/stats.hpp: running statistics of a stream of values (header-only).
#pragma once
#include <cstddef>

namespace minilib {

template <typename T> class Stats {
public:
  void add(T x) {
    if (n_ == 0 || x < min_)
      min_ = x;
    if (n_ == 0 || x > max_)
      max_ = x;
    sum_ += x;
    n_++;
  }
  std::size_t count() const { return n_; }
  T min() const { return min_; }
  T max() const { return max_; }
  double mean() const {
    if (n_ == 0)
      return 0;
    return double(sum_) / double(n_);
  }

private:
  std::size_t n_ = 0;
  T sum_ = 0, min_ = 0, max_ = 0;
};

} // namespace minilib
