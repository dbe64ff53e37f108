/* shapes.cpp: virtual calls, templates, lambdas and STL containers (vector, map,
   string, std::sort with a lambda comparator). */
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct Shape {
  virtual ~Shape() {}
  virtual double area() const = 0;
  virtual const char *name() const { return "shape"; }
};

struct Rect : Shape {
  double w, h;
  Rect(double a, double b) : w(a), h(b) {} // calls 20
  double area() const override { return w * h; }
  const char *name() const override { return "rect"; } // calls 20
};

struct Circle : Shape {
  double r;
  explicit Circle(double x) : r(x) {}
  double area() const override { return 3.0 * r * r; }
};

// A global with a constructor (run before main) and a destructor (run at exit,
// before the counts are written).
struct Registry {
  std::vector<int> ids;
  Registry() { // calls 1
    for (int i = 0; i < 4; i++)
      ids.push_back(i); // want 4
  }
  ~Registry() { // calls 1
    while (!ids.empty())
      ids.pop_back(); // want 4
  }
} registry;

template <typename T> T clamp_to(T x, T lo, T hi) {
  if (x < lo)
    return lo;
  if (x > hi)
    return hi;
  return x;
}

template <typename C, typename F> int count_if_all(const C &c, F pred) {
  int n = 0;
  for (const auto &x : c)
    if (pred(x))
      n++;
  return n;
}

int main() {
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 0; i < 30; i++) {
    if (i % 3 == 0)
      shapes.push_back(std::make_unique<Circle>(i / 4.0)); // want 10
    else
      shapes.push_back(std::make_unique<Rect>(i, i % 4));
  }
  std::sort(shapes.begin(), shapes.end(),
            [](const std::unique_ptr<Shape> &a, const std::unique_ptr<Shape> &b) { return a->area() < b->area(); });
  std::map<std::string, int> byName;
  double total = 0;
  for (const auto &s : shapes) {
    byName[s->name()]++;
    total += clamp_to(s->area(), 1.0, 50.0);
  }
  int big = count_if_all(shapes, [](const std::unique_ptr<Shape> &s) { return s->area() > 20; });
  int odd = count_if_all(std::vector<int>{1, 2, 3, 4, 5}, [](int x) { return x % 2 == 1; });
  int k = clamp_to(17, 0, 10) + clamp_to(-3, 0, 10);
  for (const auto &kv : byName)
    std::printf("%s %d\n", kv.first.c_str(), kv.second);
  std::printf("total %.2f big %d odd %d k %d\n", total, big, odd, k);
  return 0;
}
