/* csmith_loop.c: runs a csmith program's main ROUNDS times in a row, so that
 * bench/overhead.sh can time a csmith program for longer than process start-up.
 * The csmith source is compiled with -Dmain=csmith_main; its globals carry over
 * from one round to the next, as a long-running program's state would. */
#undef main
int csmith_main(int argc, char *argv[]);

int main(int argc, char *argv[]) {
	(void)argc;
	for (int i = 0; i < ROUNDS; i++)
		csmith_main(1, argv);
	return 0;
}
