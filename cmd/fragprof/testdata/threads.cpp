// threads.cpp: four std::threads run the same loop; with --atomic every increment
// of every counter is counted, so the loop body's count is exactly 4 x 250000.
#include <cstdio>
#include <thread>
#include <vector>

static void work(long *out, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) // want for.cond=1000004 for.body=1000000
    if (i % 3 == 0)
      s += i;
  *out = s;
}

int main() {
  std::vector<long> sums(4);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; t++)
    ts.emplace_back(work, &sums[t], 250000);
  for (auto &t : ts)
    t.join();
  std::printf("%ld\n", sums[0] + sums[1] + sums[2] + sums[3]);
  return 0;
}
