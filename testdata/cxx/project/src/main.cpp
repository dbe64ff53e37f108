// main.cpp: wordstats reads lines from stdin and describes their words and numbers.
#include "tokens.hpp"
#include <minilib/algo.hpp>
#include <minilib/stats.hpp>
#include <cstdio>
#include <iostream>
#include <string>

int main() {
  std::string line;
  std::vector<int> all;
  minilib::Stats<int> perLine;
  int bad = 0;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> words = split(line);
    perLine.add(int(words.size()));
    bad += numbers(words, all);
  }
  std::vector<int> copy = all;
  minilib::insertion_sort(copy);
  histogram(all);
  std::printf("lines %zu, words per line %.2f, not numbers %d, median %d\n", perLine.count(), perLine.mean(), bad,
              copy.empty() ? 0 : copy[copy.size() / 2]);
  return 0;
}
