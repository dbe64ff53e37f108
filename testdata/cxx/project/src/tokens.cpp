// tokens.cpp: splitting lines into words and reading the numbers among them.
#include "tokens.hpp"
#include <minilib/algo.hpp>
#include <minilib/stats.hpp>
#include <cstdio>

std::vector<std::string> split(const std::string &line) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : line) {
    if (c == ' ') {
      if (!cur.empty())
        words.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty())
    words.push_back(cur);
  return words;
}

int numbers(const std::vector<std::string> &words, std::vector<int> &out) {
  minilib::Stats<int> lengths;
  int bad = 0;
  for (const auto &w : words) {
    lengths.add(int(w.size()));
    try {
      out.push_back(minilib::parse_int(w));
    } catch (const std::invalid_argument &) {
      bad++;
    }
  }
  std::printf("words %zu, mean length %.2f, longest %d\n", lengths.count(), lengths.mean(), lengths.max());
  return bad;
}
