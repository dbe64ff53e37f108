/* Counts the lines of the file named by argv[1], then runs a loop argv[2]
   times; a stratified corpus test's program, with a numeric input beside. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	if (argc < 3)
		return 2;
	FILE *f = fopen(argv[1], "r");
	if (!f)
		return 1;
	int c, lines = 0;
	while ((c = fgetc(f)) != EOF) {
		if (c == '\n')
			lines++; /* runs once per line */
	}
	fclose(f);
	int k = atoi(argv[2]), work = 0;
	for (int i = 0; i < k; i++)
		work += i; /* runs argv[2] times */
	printf("%d %d\n", lines, work);
	return 0;
}
