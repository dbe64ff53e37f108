// histogram.cpp: a sorted histogram of the numbers.
#include "tokens.hpp"
#include <minilib/algo.hpp>
#include <minilib/stats.hpp>
#include <cstdio>

void histogram(std::vector<int> values) {
  minilib::insertion_sort(values);
  minilib::Stats<int> st;
  for (int v : values)
    st.add(v);
  auto big = minilib::find_first(values.begin(), values.end(), [](int v) { return v >= 100; });
  std::printf("numbers %zu, min %d, max %d, mean %.2f, first >= 100 at %ld\n", st.count(), st.min(), st.max(),
              st.mean(), long(big - values.begin()));
  std::size_t i = 0;
  while (i < values.size()) {
    std::size_t j = i;
    while (j < values.size() && values[j] == values[i])
      j++;
    if (j - i > 1)
      std::printf("  %d x%zu\n", values[i], j - i);
    i = j;
  }
}
