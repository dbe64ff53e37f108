// ehfault.cpp: a fault inside a catch handler, with landing pads and a personality
// routine in the IR (TestCountersAgreeEHFault, at -O0 where the runtime walks the
// stack). Usage: ehfault [x] (with an argument, the handler dereferences null).
#include <cstdio>
#include <stdexcept>
static int *volatile nowhere;
int thrower(int i) { if (i == 3) throw std::runtime_error("x"); return i; }
int work(int n, int mode) {
	int s = 0;
	for (int i = 0; i < n; i++) {
		try { s += thrower(i); } catch (const std::exception &e) { s -= 1; if (mode) s += *nowhere; }
	}
	return s;
}
int main(int argc, char **argv) { printf("%d\n", work(6, argc > 1)); return 0; }
