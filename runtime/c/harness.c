/* harness.c: what the driver of fragprof freq --func calls to read one trial's values
 * from stdin, in the binary layout of internal/harness (Encode): a scalar is 8
 * bytes (an int64, or the bits of a double); an array its length (u64) then 8 bytes
 * per element; a string its length then its bytes. A short read ends the trial with
 * exit status 65, which fragprof reports. A C++ std::vector is filled like an array
 * (__fragprof_in_vector). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void need(void *p, size_t n) {
	if (fread(p, 1, n, stdin) != n) {
		fputs("fragprof harness: the trial's input stream is short\n", stderr);
		exit(65);
	}
}

int64_t __fragprof_in_i64(void) {
	int64_t v;
	need(&v, 8);
	return v;
}

double __fragprof_in_f64(void) {
	double v;
	need(&v, 8);
	return v;
}

/* store converts one 8-byte source value (int64 or double bits) into an element of
 * size bytes (float when isfloat) at dst. */
static void store(void *dst, int size, int isfloat, int srcfloat, const unsigned char *src) {
	int64_t i;
	double d;
	memcpy(&i, src, 8);
	memcpy(&d, src, 8);
	if (isfloat) {
		double x = srcfloat ? d : (double)i;
		if (size == 4) {
			float f = (float)x;
			memcpy(dst, &f, 4);
		} else
			memcpy(dst, &x, 8);
		return;
	}
	int64_t x = srcfloat ? (int64_t)d : i;
	switch (size) {
	case 1: { int8_t v = (int8_t)x; memcpy(dst, &v, 1); break; }
	case 2: { int16_t v = (int16_t)x; memcpy(dst, &v, 2); break; }
	case 4: { int32_t v = (int32_t)x; memcpy(dst, &v, 4); break; }
	default: memcpy(dst, &x, 8);
	}
}

/* operator new(size_t), present when the program is C++ (libstdc++ linked). */
extern void *_Znwm(unsigned long) __attribute__((weak));

/* read_array reads an array of the trial's stream into fresh memory (operator new's
 * when cxx and the program is C++, so that the program may delete it). */
static char *read_array(int32_t code, int32_t srcfloat, int cxx, uint64_t *len) {
	int size = code & 0xff, isfloat = code >> 8;
	uint64_t n;
	need(&n, 8);
	size_t bytes = n ? n * (size_t)size : 1;
	char *a = cxx && _Znwm ? _Znwm(bytes) : malloc(bytes);
	if (!a) {
		fputs("fragprof harness: out of memory\n", stderr);
		exit(66);
	}
	for (uint64_t k = 0; k < n; k++) {
		unsigned char src[8];
		need(src, 8);
		store(a + k * (size_t)size, size, isfloat, srcfloat, src);
	}
	*len = n;
	return a;
}

/* code is the element size | isfloat << 8. */
void *__fragprof_in_array(int32_t code, int32_t srcfloat) {
	uint64_t n;
	return read_array(code, srcfloat, 0, &n);
}

/* __fragprof_in_vector fills vec, the three pointers of a C++ std::vector (begin,
 * end, end of storage: the layout of libstdc++ and libc++), with a fresh array. */
void __fragprof_in_vector(void *vec, int32_t code, int32_t srcfloat) {
	uint64_t n;
	char *a = read_array(code, srcfloat, 1, &n);
	char *end = a + n * (size_t)(code & 0xff);
	char *p[3] = {a, end, end};
	memcpy(vec, p, sizeof p);
}

void __fragprof_in_array_into(void *dst, int64_t cap, int32_t code, int32_t srcfloat) {
	int size = code & 0xff, isfloat = code >> 8;
	uint64_t n;
	need(&n, 8);
	for (uint64_t k = 0; k < n; k++) {
		unsigned char src[8];
		need(src, 8);
		if ((int64_t)k < cap)
			store((char *)dst + k * (size_t)size, size, isfloat, srcfloat, src);
	}
}

char *__fragprof_in_string(void) {
	uint64_t n;
	need(&n, 8);
	char *s = malloc(n + 1);
	if (!s) {
		fputs("fragprof harness: out of memory\n", stderr);
		exit(66);
	}
	need(s, n);
	s[n] = 0;
	return s;
}
