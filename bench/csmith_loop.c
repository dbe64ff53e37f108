/* csmith_loop.c: makes a csmith program CPU-bound for bench/overhead.sh. It includes
 * the program (named by -DCSMITH_SRC='"file.c"'), calls its func_1 ROUNDS times in a
 * row — the generated code, whose globals carry over from one call to the next —
 * and then runs the program's own main once, which calls func_1 again and prints
 * the checksum of the final state. A csmith program alone ends within milliseconds
 * or never, and most of the little time it takes goes to the CRC of its globals. */
#define main csmith_main
#include CSMITH_SRC
#undef main

int main(int argc, char *argv[]) {
	(void)argc;
	for (long i = 0; i < ROUNDS; i++)
		(void)func_1();
	return csmith_main(1, argv);
}
