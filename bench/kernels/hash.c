/* hash.c: FNV-1a and a multiply-xorshift hash over a generated text, and an
 * open-addressing hash table counting its words; prints the distinct words, the
 * most frequent count and a checksum. A CPU kernel of bench/overhead.sh.
 * Usage: hash [MB] (default 16) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(const char *s, size_t n) {
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t mix(uint64_t x) {
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

int main(int argc, char **argv) {
	size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 16;
	size_t n = mb << 20;
	char *text = malloc(n);
	if (!text)
		return 1;
	uint64_t r = 12345;
	/* Words drawn from a vocabulary of 40000 (word w spells w in base 7, letters
	 * a-g), separated by one or two spaces. */
	for (size_t i = 0; i < n;) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned w = (unsigned)(r >> 33) % 40000;
		do
			text[i++] = (char)('a' + w % 7);
		while ((w /= 7) && i < n);
		for (unsigned s = (unsigned)(r >> 62) % 2 + 1; s > 0 && i < n; s--)
			text[i++] = ' ';
	}
	size_t cap = 1 << 17;
	uint64_t *keys = calloc(cap, sizeof *keys);
	uint32_t *cnt = calloc(cap, sizeof *cnt);
	if (!keys || !cnt)
		return 1;
	size_t distinct = 0, i = 0;
	uint64_t check = 0;
	while (i < n) {
		while (i < n && text[i] == ' ')
			i++;
		size_t j = i;
		while (j < n && text[j] != ' ')
			j++;
		if (j > i) {
			uint64_t h = fnv(text + i, j - i) | 1;
			size_t slot = mix(h) & (cap - 1);
			while (keys[slot] && keys[slot] != h)
				slot = (slot + 1) & (cap - 1);
			if (!keys[slot]) {
				keys[slot] = h;
				distinct++;
			}
			cnt[slot]++;
			check += mix(h + cnt[slot]);
		}
		i = j;
	}
	uint32_t most = 0;
	for (size_t s = 0; s < cap; s++)
		if (cnt[s] > most)
			most = cnt[s];
	printf("%zu %u %llu\n", distinct, most, (unsigned long long)check);
	return 0;
}
