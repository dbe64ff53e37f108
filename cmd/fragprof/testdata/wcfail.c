/* Counts the lines of the file named by argv[1], and exits 3 when the file
   starts with 'F': a stratified corpus test's program whose failed trials have
   counts to replay. */
#include <stdio.h>

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	FILE *f = fopen(argv[1], "r");
	if (!f)
		return 1;
	int c, first = EOF, lines = 0;
	while ((c = fgetc(f)) != EOF) {
		if (first == EOF)
			first = c;
		if (c == '\n')
			lines++; /* runs once per line */
	}
	fclose(f);
	printf("%d\n", lines);
	return first == 'F' ? 3 : 0;
}
