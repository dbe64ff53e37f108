// openmp.cpp: an OpenMP parallel loop on four threads; with --atomic every
// iteration of every thread is counted: the loop body's line runs exactly 1000000
// times, the odd branch 500000 times, whatever the schedule.
#include <cstdio>
#include <omp.h>

int main() {
  long s = 0;
  omp_set_num_threads(4);
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 1000)
  for (int i = 0; i < 1000000; i++) {
    if (i & 1) // want omp.inner.for.body=1000000 omp.inner.for.inc=1000000
      s += i;  // want if.then=500000 if.else=500000
    else
      s -= i / 2;
  }
  std::printf("%ld %d\n", s, omp_get_max_threads());
  return 0;
}
