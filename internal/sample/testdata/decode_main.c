// decode_main.c: runs the in-process sampler's x86-64 decoder over a range of a
// file, linearly, and prints "ADDR LEN KIND TARGET" per instruction (LEN 0: not
// decoded), for TestPreloadDecoder to compare with x/arch's x86asm.
#include "../preload/fragprof_sample.c"
#include <stdio.h>

int main(int argc, char **argv) {
	if (argc != 5)
		return 2;
	FILE *f = fopen(argv[1], "rb");
	long off = strtol(argv[2], 0, 0), size = strtol(argv[3], 0, 0);
	unsigned long addr = strtoul(argv[4], 0, 0);
	static uint8_t buf[1 << 24];
	if (!f || size + 16 > (long)sizeof buf || fseek(f, off, SEEK_SET) != 0 || fread(buf, 1, (size_t)size, f) != (size_t)size)
		return 3;
	for (long i = 0; i < size;) {
		struct insn in;
		if (!decode(buf + i, addr + (uint64_t)i, &in)) {
			printf("%lx 0 0 0\n", addr + (unsigned long)i);
			i++;
			continue;
		}
		printf("%lx %d %d %lx\n", addr + (unsigned long)i, in.len, in.kind, (unsigned long)in.target);
		i += in.len;
	}
	return 0;
}
