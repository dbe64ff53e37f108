// tokens.hpp: the interface between the project's translation units.
#pragma once
#include <string>
#include <vector>

std::vector<std::string> split(const std::string &line);
int numbers(const std::vector<std::string> &words, std::vector<int> &out);
void histogram(std::vector<int> values);
