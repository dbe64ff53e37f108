/* threads.c: two threads hash disjoint halves of a buffer and count byte classes,
 * joined at the end; prints the totals. The threaded program of bench/overhead.sh
 * (fragprof's --atomic counters against its plain ones). Usage: threads [MB]
 * Each job has a cache line of its own: unaligned, the two jobs' class counts
 * shared a line or not as ASLR placed main's stack, and every build ran in
 * 0.42–0.62 s or 0.58–0.99 s by that draw alone. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
	const unsigned char *p;
	size_t n;
	uint64_t hash, classes[4];
} __attribute__((aligned(64)));

static void *work(void *arg) {
	struct job *j = arg;
	uint64_t h = 1469598103934665603ULL;
	for (int round = 0; round < 4; round++)
		for (size_t i = 0; i < j->n; i++) {
			unsigned c = j->p[i];
			h = (h ^ c) * 1099511628211ULL;
			if (c < 64)
				j->classes[0]++;
			else if (c < 128)
				j->classes[1]++;
			else if (c < 192)
				j->classes[2]++;
			else
				j->classes[3]++;
		}
	j->hash = h;
	return 0;
}

int main(int argc, char **argv) {
	size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 24) << 20;
	unsigned char *buf = malloc(n);
	if (!buf)
		return 1;
	uint64_t r = 7;
	for (size_t i = 0; i < n; i++) {
		r = r * 6364136223846793005ULL + 1;
		buf[i] = (unsigned char)(r >> 56);
	}
	struct job jobs[2] = {{buf, n / 2, 0, {0}}, {buf + n / 2, n - n / 2, 0, {0}}};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], 0, work, &jobs[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	printf("%llx %llu %llu %llu %llu\n", (unsigned long long)(jobs[0].hash ^ jobs[1].hash),
	       (unsigned long long)(jobs[0].classes[0] + jobs[1].classes[0]),
	       (unsigned long long)(jobs[0].classes[1] + jobs[1].classes[1]),
	       (unsigned long long)(jobs[0].classes[2] + jobs[1].classes[2]),
	       (unsigned long long)(jobs[0].classes[3] + jobs[1].classes[3]));
	return 0;
}
