// minilib/algo.hpp: small algorithms and parsing (header-only).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace minilib {

template <typename T> void insertion_sort(std::vector<T> &v) {
  for (std::size_t i = 1; i < v.size(); i++) {
    T x = v[i];
    std::size_t j = i;
    while (j > 0 && x < v[j - 1]) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

template <typename It, typename Pred> It find_first(It first, It last, Pred p) {
  for (; first != last; ++first)
    if (p(*first))
      return first;
  return last;
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline int parse_int(const std::string &s) {
  if (s.empty())
    throw std::invalid_argument("empty");
  int v = 0;
  for (char c : s) {
    if (!is_digit(c))
      throw std::invalid_argument(s);
    v = v * 10 + (c - '0');
  }
  return v;
}

} // namespace minilib
