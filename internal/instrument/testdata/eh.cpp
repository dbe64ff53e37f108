// eh.cpp: the source of eh14.ll, eh19.ll and eh-msvc.ll (regenerate them with the
// commands in eh_test.go): invokes into landing pads that several invokes
// share, a cleanup, a rethrow through a destructor, and asm goto.
struct G {
  int *p;
  ~G() { (*p)++; }
};
int f(int x) {
  if (x > 3)
    throw x;
  return x;
}
int g(int x) {
  int d = 0;
  G guard{&d};
  try {
    return f(x) + f(x + 1);
  } catch (int v) {
    if (v > 8)
      throw;
    return -v;
  }
}
int h(int x) {
  asm goto("" :::: out);
  return x;
out:
  return -x;
}
