/* spin.c: a loop that never ends and calls nothing but step, which -O2 inlines: the
 * compiler may keep the loop's counters in registers (or drop them, as the loop never
 * ends) unless they are volatile. TestCountTimeout stops it with --timeout. */
static long step(long i) { return i % 7 == 0 ? i * 3 : i + 1; }

int main(void) {
	long s = 0;
	for (long i = 0;; i++)
		s += step(i);
	return (int)s;
}
