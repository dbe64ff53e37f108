/* Counts the lines of the file named by argv[1]; a corpus test's program. */
#include <stdio.h>

int main(int argc, char **argv) {
	if (argc < 2)
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
	printf("%d\n", lines);
	return lines == 0 ? 3 : 0; /* an empty file is an error */
}
