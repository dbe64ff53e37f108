/* fragprof runtime: linked into every program built by fragprof.
 *
 * Each instrumented translation unit registers a descriptor (its counter array and
 * the metadata blob describing its CFG and counter plan) from a constructor. At exit
 * (after every atexit handler and destructor of the program) and on fatal signals the
 * runtime writes all units to the dump named by FRAGPROF_OUT (a path; %p expands to
 * the pid) or FRAGPROF_FD (an open descriptor). It never writes to the program's
 * stdout or stderr. The dump layout is documented in docs/runtime.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <pthread.h>

#include "fp_internal.h"

int __fragprof_main_returned;

struct fp_unit *__fragprof_units;
#define units __fragprof_units
static uint32_t nunits;
static int installed;
static volatile sig_atomic_t dumped;
static pid_t owner;
/* FRAGPROF_OUT, copied (a program may write over its environment's strings, as some
 * do to set their process title): into out_short, among the small variables, or
 * when longer into out_long, a page of its own (FP_BULK), which a run given a short
 * path then never touches. out_path is the one in use ("" when none). */
static char out_short[256], out_long[4096] FP_BULK;
static char *out_path = out_short;
static int out_fd = -1;
/* live_fd: the write end of fragprof's live pipe (keep_live), or -1; forked: this
 * process is a forked child of the run (after_fork), which says so there (tell). */
static int live_fd = -1, forked;

/* Dump header flags (offset 28). */
#define FP_CONTINUOUS 1u /* counters live in the file, page-aligned (continuous mode) */
#define FP_FINISHED 2u   /* the runtime completed the dump (at exit or on a signal) */
#define FP_MERGED 4u     /* the counts of several processes of one run, added up */
#define FP_FAULT 8u      /* a fault record (FAULT_SIZE bytes) ends the dump */

/* The fault record: where a fault the kernel raised (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGTRAP from an instruction of the program, not raise or kill) happened. Five
 * little-endian 64-bit words: the program counter, the faulting address (si_addr),
 * the address at which the executable's ELF header is loaded (__ehdr_start: fragprof
 * turns the program counter into a symbol and a line of the binary), si_code, and the
 * stack pointer (a fault next to it is a stack overflow). */
#define FP_UNWALKED 16u /* a fault's stack walk stopped at a frame it could not read (walk.c) */
#define FAULT_SIZE 40
static unsigned char fault_rec[FAULT_SIZE];
static int have_fault;
extern const char __ehdr_start[] __attribute__((weak));

/* The run: a number drawn at random by its first process, with the top bit set so
 * that it is never a process id, which every process of the program (forked, or
 * exec'd with the environment) knows through FRAGPROF_RUN. A dump file of the same
 * run is added to; one of another run is replaced. A process id would not do: a
 * dump left by an earlier run whose first process had the same pid (every run
 * started in a fresh pid namespace, a container, is pid 1) would be added to. */
static uint32_t run_id;
static int run_inherited; /* this process was exec'd by another of the run */
/* merge_children: a forked child counts afresh and adds its counts to the dump
 * (after_fork). trial_fd: out_fd is a fork-server trial's dump (a memfd shared by
 * every process of the trial), to which each process adds its counts (merge_fd). */
static int merge_children, trial_fd;
static void join_run(void);
static void keep_live(void);
static void after_fork(void);

static int cont_on; /* continuous mode is active: see the section at the end */
static void cont_init(void);
static void cont_add(struct fp_unit *u);
static void cont_finish(int sig);

int __fragprof_write_all(int fd, const void *p, size_t n) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = fp_write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The dump's output. Writes go through a buffer, so that a small dump is one system
 * call, and stop short (room_short) rather than pass room bytes: a slot of the dump
 * file is no bigger. The buffer is first the caller's (on its stack, which the
 * process has touched already), then, from the first flush on, ob_big: a dump of a
 * millisecond run fits the first and touches no page of ob_big, which would cost a
 * page fault (FP_BULK). Used by one dump at a time (a process dumps once; the signal
 * that could interrupt a dump finds the default action restored). */
static struct {
	int fd;
	size_t room;
	int room_short;
	unsigned char *buf;
	size_t cap, used;
} ob;
static unsigned char ob_big[1 << 16] FP_BULK;

static void ob_start(int fd, size_t room, unsigned char *first, size_t cap) {
	ob.fd = fd;
	ob.room = room;
	ob.room_short = 0;
	ob.buf = first;
	ob.cap = cap;
	ob.used = 0;
}

static int ob_flush(void) {
	int bad = ob.used ? __fragprof_write_all(ob.fd, ob.buf, ob.used) : 0;
	ob.used = 0;
	return bad;
}

static int emit(const void *p, size_t n) {
	if (n > ob.room) {
		ob.room_short = 1;
		return -1;
	}
	ob.room -= n;
	if (ob.used + n > ob.cap) {
		if (ob_flush() < 0)
			return -1;
		ob.buf = ob_big;
		ob.cap = sizeof ob_big;
	}
	if (n > ob.cap)
		return __fragprof_write_all(ob.fd, p, n);
	memcpy(ob.buf + ob.used, p, n);
	ob.used += n;
	return 0;
}

/* expand copies out_path to dst with %p replaced by the pid (async-signal-safe). */
static int expand(char *dst, size_t cap, int *has_pid) {
	size_t j = 0;
	*has_pid = 0;
	for (size_t i = 0; out_path[i]; i++) {
		if (out_path[i] == '%' && out_path[i + 1] == 'p') {
			char num[24];
			int k = 0;
			unsigned long p = (unsigned long)fp_getpid();
			do {
				num[k++] = (char)('0' + p % 10);
				p /= 10;
			} while (p);
			while (k > 0) {
				if (j + 1 >= cap)
					return -1;
				dst[j++] = num[--k];
			}
			i++;
			*has_pid = 1;
			continue;
		}
		if (j + 1 >= cap)
			return -1;
		dst[j++] = out_path[i];
	}
	dst[j] = 0;
	return 0;
}

static void put32(unsigned char *b, uint32_t v) {
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *b, uint64_t v) {
	put32(b, (uint32_t)v);
	put32(b + 4, (uint32_t)(v >> 32));
}

/* Metadata by reference. A fork server's trials all run the server's program, whose
 * metadata (sqlite3: 5.8 MB) the client has once it has read the first trial's dump:
 * from then on (meta_by_ref, set by __fragprof_meta_sent) a trial writes each of the
 * server's units with the metadata length REF_ML and, in place of the metadata, its
 * 64-bit FNV-1a hash (docs/runtime.md, "Dump layout"). Units the trial's process
 * registered later (dlopen) and exec'd programs write theirs in full. */
#define REF_ML 0xFFFFFFFFu
static int meta_by_ref;
static struct {
	const struct fp_unit *u;
	uint64_t h;
} hashes[1024] FP_BULK; /* the units' hashes, computed once (in the server, before the forks) */
static uint32_t nhashes, nknown; /* hashes[:nknown]: the server's units, known to the client */

/* unit_hash returns the FNV-1a hash of u's metadata. Async-signal-safe. */
static uint64_t unit_hash(const struct fp_unit *u) {
	for (uint32_t i = 0; i < nhashes; i++)
		if (hashes[i].u == u)
			return hashes[i].h;
	uint64_t h = 14695981039346656037ull;
	for (uint64_t i = 0; i < u->metalen; i++)
		h = (h ^ (unsigned char)u->meta[i]) * 1099511628211ull;
	if (nhashes < sizeof hashes / sizeof hashes[0]) {
		hashes[nhashes].u = u;
		hashes[nhashes++].h = h;
	}
	return h;
}

/* stored_ml is the length of a unit's metadata as a dump stores it. */
static uint64_t stored_ml(uint32_t ml) { return ml == REF_ML ? 8 : ml; }

/* known_unit reports whether u is one of the server's units, whose metadata the
 * client has. */
static int known_unit(const struct fp_unit *u) {
	for (uint32_t i = 0; i < nknown; i++)
		if (hashes[i].u == u)
			return 1;
	return 0;
}

/* A unit of an earlier dump of the same run, found by old_units. */
struct old_unit {
	uint32_t nc, ml;
	const unsigned char *meta;
	const unsigned char *ctr; /* nc little-endian u64s */
};

static uint32_t get32(const unsigned char *b) {
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* old_unit_at reads the k-th unit of the valid dump d (found by old_valid). */
static struct old_unit old_unit_at(const unsigned char *d, uint32_t k) {
	size_t off = 32;
	struct old_unit o;
	for (uint32_t i = 0;; i++) {
		o.nc = get32(d + off);
		o.ml = get32(d + off + 4);
		o.meta = d + off + 8;
		size_t ml = stored_ml(o.ml), pad = (8 - ml % 8) % 8;
		o.ctr = d + off + 8 + ml + pad;
		if (i == k)
			return o;
		off += 8 + ml + pad + (size_t)o.nc * 8;
	}
}

/* old_valid reports whether the n bytes at d are a whole finished ordinary dump of
 * run id, and returns its number of units. */
static int old_valid(const unsigned char *d, size_t n, uint32_t id, uint32_t *nu) {
	if (n < 32 || memcmp(d, "FPDUMP\0\1", 8) != 0 || get32(d + 8) != 1 || get32(d + 24) != id ||
	    get32(d + 28) & FP_CONTINUOUS || !(get32(d + 28) & FP_FINISHED))
		return 0;
	size_t off = 32;
	uint32_t u = get32(d + 12);
	if (get32(d + 28) & FP_FAULT) {
		if (n < 32 + FAULT_SIZE)
			return 0;
		n -= FAULT_SIZE;
	}
	for (uint32_t i = 0; i < u; i++) {
		if (off + 8 > n)
			return 0;
		uint64_t ml = stored_ml(get32(d + off + 4)), nc = get32(d + off);
		uint64_t need = 8 + ml + (8 - ml % 8) % 8 + nc * 8;
		if (need > n - off)
			return 0;
		off += need;
	}
	*nu = u;
	return off == n;
}

void __fragprof_meta_sent(const unsigned char *d, size_t n) {
	uint32_t nu;
	if (meta_by_ref || n < 32 || !old_valid(d, n, get32(d + 24), &nu))
		return;
	for (uint32_t i = 0; i < nu; i++) /* every unit in full */
		if (old_unit_at(d, i).ml == REF_ML)
			return;
	nhashes = 0;
	uint32_t k = 0;
	for (struct fp_unit *u = units; u && k < nunits; u = u->next, k++)
		unit_hash(u); /* computed here once, inherited by every trial */
	nknown = nhashes;
	meta_by_ref = 1;
}

/* __fragprof_sparse writes to out (cap bytes) the dump d of n bytes in the sparse
 * form of the fork server's reply (forkserver.c): the same bytes, except that each
 * unit's counters are replaced by u32 nruns and nruns runs of non-zero counters,
 * each u32 first, u32 length and the counters. A trial of a large program counts in
 * few of its counters (sqlite3: 100,000 counters, 800 KB a dump, of which a trial
 * leaves most at zero). It returns the length written, or 0 when d is not a whole finished
 * dump or its sparse form would not be shorter by a quarter: then d goes as it is. */
size_t __fragprof_sparse(const unsigned char *d, size_t n, unsigned char *out, size_t cap) {
	uint32_t nu;
	if (n < 32 || !old_valid(d, n, get32(d + 24), &nu))
		return 0;
	size_t fault = get32(d + 28) & FP_FAULT ? FAULT_SIZE : 0;
	if (cap > n - n / 4)
		cap = n - n / 4;
#define PUT(p, k)                                                                                                      \
	do {                                                                                                               \
		if (o + (k) > cap)                                                                                             \
			return 0;                                                                                                  \
		memcpy(out + o, (p), (k));                                                                                     \
		o += (k);                                                                                                      \
	} while (0)
	size_t o = 0;
	PUT(d, 32);
	for (uint32_t i = 0; i < nu; i++) {
		struct old_unit u = old_unit_at(d, i);
		/* the unit's header and metadata, padded, as they are */
		PUT(u.meta - 8, (size_t)(u.ctr - (u.meta - 8)));
		size_t at = o;
		uint32_t runs = 0;
		unsigned char w[8];
		PUT(w, 4);
		for (uint32_t k = 0; k < u.nc;) {
			uint64_t v;
			memcpy(&v, u.ctr + (size_t)k * 8, 8);
			if (!v) {
				k++;
				continue;
			}
			uint32_t e = k + 1;
			for (; e < u.nc; e++) {
				memcpy(&v, u.ctr + (size_t)e * 8, 8);
				if (!v)
					break;
			}
			put32(w, k);
			put32(w + 4, e - k);
			PUT(w, 8);
			PUT(u.ctr + (size_t)k * 8, (size_t)(e - k) * 8);
			runs++;
			k = e;
		}
		put32(out + at, runs);
	}
	if (fault)
		PUT(d + n - fault, fault);
#undef PUT
	return o;
}

static int same_unit(const struct old_unit *o, const struct fp_unit *u) {
	if (o->ml == REF_ML) {
		uint64_t h = 0;
		for (int i = 7; i >= 0; i--)
			h = h << 8 | o->meta[i];
		return o->nc == u->ncounters && h == unit_hash(u);
	}
	return o->nc == u->ncounters && o->ml == u->metalen && memcmp(o->meta, u->meta, o->ml) == 0;
}

/* write_unit writes one unit: its metadata and counters a (or, when b is set, the
 * sums of a and the little-endian counters at b). */
static int write_unit(uint32_t nc, const void *meta, uint32_t ml, const uint64_t *a, const unsigned char *b,
                      const unsigned char *araw) {
	static const char zeros[8];
	unsigned char uh[8];
	put32(uh, nc);
	put32(uh + 4, ml);
	size_t sml = stored_ml(ml);
	if (emit(uh, 8) < 0 || emit(meta, sml) < 0)
		return -1;
	size_t pad = (8 - sml % 8) % 8;
	if (pad && emit(zeros, pad) < 0)
		return -1;
	if (!b && a)
		return emit(a, (size_t)nc * 8);
	if (!b && araw)
		return emit(araw, (size_t)nc * 8);
	uint64_t buf[256];
	for (uint32_t i = 0; i < nc;) {
		uint32_t k = 0;
		for (; k < 256 && i < nc; k++, i++) {
			uint64_t v;
			memcpy(&v, b + (size_t)i * 8, 8); /* little-endian host */
			buf[k] = v + a[i];
		}
		if (emit(buf, (size_t)k * 8) < 0)
			return -1;
	}
	return 0;
}

/* emit_dump emits the dump (through ob), identified by id (a dump it adds to keeps its
 * own). With old (a valid dump of the same run, nold
 * units) it adds this process's counts to it: its units in their order, each
 * summed with this process's unit of the same metadata, then this process's units
 * it lacked. At most nunits units of our own: a damaged list (a cycle) cannot make
 * the dump endless. */
static int emit_dump(int sig, const unsigned char *old, const unsigned char *old_end, uint32_t nold, uint32_t id) {
	uint32_t total = nold, k = 0;
	for (struct fp_unit *u = units; u && k < nunits; u = u->next, k++) {
		int found = 0;
		for (uint32_t i = 0; i < nold && !found; i++) {
			struct old_unit o = old_unit_at(old, i);
			found = same_unit(&o, u);
		}
		total += !found;
	}
	unsigned char h[32];
	uint32_t returned = (uint32_t)__fragprof_main_returned, osig = (uint32_t)sig, flags = FP_FINISHED;
	const unsigned char *fault = have_fault ? fault_rec : 0;
	if (old) {
		returned = returned && get32(old + 16); /* every process returned from main */
		if (get32(old + 20))
			osig = get32(old + 20); /* a process that died of a signal */
		flags |= FP_MERGED;
		if (get32(old + 28) & FP_FAULT) /* the first fault of the run is kept */
			fault = old_end - FAULT_SIZE;
		flags |= get32(old + 28) & FP_UNWALKED;
	}
	if (__fragprof_unwalked)
		flags |= FP_UNWALKED;
	if (fault)
		flags |= FP_FAULT;
	memcpy(h, "FPDUMP\0\1", 8);
	put32(h + 8, 1);
	put32(h + 12, total);
	put32(h + 16, returned);
	put32(h + 20, osig);
	put32(h + 24, old ? get32(old + 24) : id);
	put32(h + 28, flags);
	if (emit(h, sizeof h) < 0)
		return -1;
	for (uint32_t i = 0; i < nold; i++) {
		struct old_unit o = old_unit_at(old, i);
		struct fp_unit *mine = 0;
		k = 0;
		for (struct fp_unit *u = units; u && k < nunits && !mine; u = u->next, k++)
			if (same_unit(&o, u))
				mine = u;
		if (write_unit(o.nc, o.meta, o.ml, mine ? mine->counters : 0, mine ? o.ctr : 0, o.ctr) < 0)
			return -1;
	}
	k = 0;
	for (struct fp_unit *u = units; u && k < nunits; u = u->next, k++) {
		int found = 0;
		for (uint32_t i = 0; i < nold && !found; i++) {
			struct old_unit o = old_unit_at(old, i);
			found = same_unit(&o, u);
		}
		if (found)
			continue;
		int bad;
		if (meta_by_ref && known_unit(u)) {
			unsigned char ref[8];
			put64(ref, unit_hash(u));
			bad = write_unit(u->ncounters, ref, REF_ML, u->counters, 0, 0);
		} else
			bad = write_unit(u->ncounters, u->meta, (uint32_t)u->metalen, u->counters, 0, 0);
		if (bad < 0)
			return -1;
	}
	return fault ? emit(fault, FAULT_SIZE) : 0;
}

/* dump_merged writes the dump (emit_dump) to fd at its offset, in at most room bytes. */
static int dump_merged(int fd, size_t room, int sig, const unsigned char *old, const unsigned char *old_end,
                       uint32_t nold, uint32_t id) {
	unsigned char first[4096];
	ob_start(fd, room, first, sizeof first);
	int bad = emit_dump(sig, old, old_end, nold, id);
	return ob_flush() < 0 ? -1 : bad;
}

static int dump_to(int fd, int sig) { return dump_merged(fd, SIZE_MAX, sig, 0, 0, 0, (uint32_t)fp_getpid()); }

/* The dump file (docs/runtime.md, "Dump file"): a 64-byte header and two slots of
 * cap bytes each, at 64 and 64 + cap, each of which can hold a dump. The header's
 * state word (offset 8) names the slot that holds the file's dump, in its low bit,
 * and that dump's length, in the other 63. A new dump is written into the other slot
 * and the state word, one aligned 8-byte write, then switches slots: a reader (or a
 * process killed in the middle of writing) sees the old dump or the new one, and a
 * run writes over the file in place, with no file created, renamed or removed (a
 * temporary file and a rename made most of the 157 us that a 0.6 ms run of newton
 * cost more than its plain build). */
#define FILE_HDR 64
static const char file_magic[8] = {'F', 'P', 'D', 'U', 'M', 'P', 0, 2};

static uint64_t get64(const unsigned char *b) { return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32; }

/* file_dump finds the dump in a file of n bytes whose first bytes are at h (the
 * whole header, when n >= FILE_HDR): a dump file, or a bare dump of an older
 * fragprof. It returns 0 when there is none; else 1, with the dump's offset and
 * length and its slot: -1 for a bare dump. */
static int file_dump(const unsigned char *h, size_t n, size_t *at, size_t *len, int *slot, uint64_t *cap) {
	*slot = -1;
	*cap = 0;
	if (n >= FILE_HDR && memcmp(h, file_magic, 8) == 0) {
		uint64_t st = get64(h + 8), c = get64(h + 16), l = st >> 1;
		if (c > n || 2 * c > n - FILE_HDR || l > c)
			return 0;
		*slot = (int)(st & 1);
		*cap = c;
		*len = (size_t)l;
		*at = FILE_HDR + (size_t)((st & 1) * c);
		return 1;
	}
	*at = 0;
	*len = n;
	return 1;
}

/* make_file writes a new dump file (one dump, in slot 0) to tmp (tmp_name). */
static int make_file(const char *tmp, int sig, const unsigned char *old, const unsigned char *old_end,
                     uint32_t nold, uint32_t id) {
	if (!tmp)
		return -1; /* the name was too long */
	int fd = fp_open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int bad = fp_lseek(fd, FILE_HDR, SEEK_SET) < 0 || dump_merged(fd, SIZE_MAX, sig, old, old_end, nold, id) < 0;
	off_t end = bad ? 0 : fp_lseek(fd, 0, SEEK_CUR);
	if (!bad && end > FILE_HDR) {
		/* Room for the processes and programs of a run that add units: half again. */
		uint64_t len = (uint64_t)end - FILE_HDR, cap = (len + len / 2 + 63) & ~(uint64_t)63;
		unsigned char h[FILE_HDR] = {0};
		memcpy(h, file_magic, 8);
		put64(h + 8, len << 1);
		put64(h + 16, cap);
		bad = fp_ftruncate(fd, (off_t)(FILE_HDR + 2 * cap)) < 0 || fp_pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h;
	} else
		bad = 1;
	fp_close(fd);
	if (bad)
		fp_unlink(tmp);
	return bad ? -1 : 0;
}

/* put_dec writes v in decimal at dst (at most 20 bytes) and returns the length. */
static size_t put_dec(char *dst, unsigned long v) {
	char num[24];
	size_t d = 0, n = 0;
	do {
		num[d++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (d > 0)
		dst[n++] = num[--d];
	return n;
}

/* tmp_name returns path.PID.tmp, the name a new dump file is written under, or 0 if
 * it is too long. Built only when needed: a run that writes in place touches no page
 * for it (a process dumps once). */
static const char *tmp_name(const char *path) {
	static char tmp[4200] FP_BULK;
	size_t n = strlen(path), j = n;
	if (n + 30 > sizeof tmp)
		return 0;
	memcpy(tmp, path, n);
	tmp[j++] = '.';
	j += put_dec(tmp + j, (unsigned long)fp_getpid());
	memcpy(tmp + j, ".tmp", 5);
	return tmp;
}

/* write_file writes this process's dump to the regular file path. With merge (the
 * processes of one run share the file), it adds the counts of a dump of the same run
 * found there; any other dump is replaced. The processes take turns under an flock of
 * the file. Into the file's free slot when it is a dump file with room; else a new
 * dump file, written to path.PID.tmp, takes path's place (renameat2: without replacing
 * a file another process created meanwhile, or, over an existing one, by exchanging
 * the two names and unlinking the old file, as a plain rename over an existing file
 * makes ext4 write the new file back inside the rename, 7.6 ms in one strace). A
 * process that waited for the lock of a file that was meanwhile replaced starts
 * again. Async-signal-safe: system calls only. */
static int write_file(const char *path, int merge, int sig) {
	uint32_t id = merge ? run_id : (uint32_t)fp_getpid();
	const char *tmp = 0;
	for (int attempt = 0; attempt < 16; attempt++) {
		int fd = fp_open(path, O_RDWR | O_CLOEXEC, 0), writable = fd >= 0;
		if (fd < 0 && errno != ENOENT)
			fd = fp_open(path, O_RDONLY | O_CLOEXEC, 0); /* read-only: replaced, as rename allows */
		if (fd < 0) {
			if (errno != ENOENT || make_file((tmp = tmp_name(path)), sig, 0, 0, 0, id) < 0)
				return -1;
#ifdef SYS_renameat2
			if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 1 /* RENAME_NOREPLACE */) == 0)
				return 0;
			if (errno == EEXIST) {
				fp_unlink(tmp);
				continue; /* another process of the run created it first: add to it */
			}
#endif
			return rename(tmp, path);
		}
		while (fp_flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
		struct stat fst, pst;
		if (fp_fstat(fd, &fst) < 0 || fp_stat(path, &pst) < 0 || fst.st_ino != pst.st_ino || fst.st_dev != pst.st_dev) {
			fp_close(fd); /* replaced while we waited */
			continue;
		}
		/* The file's header and the first 32 bytes of its dump come first, onto the
		 * stack; the whole dump is read only when it is of this run, to be added to.
		 * A run that replaces another's dump (every run but the later processes of
		 * one) so touches no page of a buffer of its own (FP_BULK). */
		const unsigned char *f = 0, *old = 0;
		size_t fn = (size_t)fst.st_size, oldn = 0, doff = 0; /* doff: where the dump is in the file */
		uint32_t nold = 0;
		int slot = -1;
		uint64_t cap = 0;
		unsigned char head[FILE_HDR + 32], dh[32];
		size_t hn = fn < sizeof head ? fn : sizeof head;
		int found = hn >= 32 && fp_pread(fd, head, hn, 0) == (ssize_t)hn && file_dump(head, fn, &doff, &oldn, &slot, &cap);
		if (found && doff + 32 <= hn)
			memcpy(dh, head + doff, 32);
		else if (found)
			found = oldn >= 32 && fp_pread(fd, dh, 32, (off_t)doff) == 32;
		static unsigned char small[1 << 16] FP_BULK; /* a small dump is read, a large file mapped */
		int mapped = 0;
		if (found && merge && oldn >= 32 && get32(dh + 24) == id) {
			if (oldn <= sizeof small) {
				f = fp_pread(fd, small, oldn, (off_t)doff) == (ssize_t)oldn ? small : 0;
			} else {
				void *m = mmap(0, fn, PROT_READ, MAP_SHARED, fd, 0);
				f = m == MAP_FAILED ? 0 : (const unsigned char *)m + doff;
				mapped = f != 0;
			}
			if (f && old_valid(f, oldn, id, &nold))
				old = f;
			else
				nold = 0; /* damaged: replaced */
		}
		int bad = -1;
		if (slot >= 0 && writable) {
			/* In place: the free slot, then the state word. */
			off_t at = (off_t)(FILE_HDR + (uint64_t)(1 - slot) * cap);
			if (fp_lseek(fd, at, SEEK_SET) == at && dump_merged(fd, (size_t)cap, sig, old, old + oldn, nold, id) == 0) {
				unsigned char st[8];
				put64(st, ((uint64_t)(fp_lseek(fd, 0, SEEK_CUR) - at) << 1) | (uint64_t)(1 - slot));
				bad = fp_pwrite(fd, st, 8, 8) == 8 ? 0 : -1;
			} else if (!ob.room_short)
				slot = -2; /* a write failed: not worth a second try */
		}
		if (bad < 0 && slot != -2 && make_file((tmp = tmp_name(path)), sig, old, old + oldn, nold, id) == 0) {
#ifdef SYS_renameat2
			if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 2 /* RENAME_EXCHANGE */) == 0)
				bad = fp_unlink(tmp);
			else
#endif
				bad = rename(tmp, path);
		}
		if (mapped)
			munmap((void *)(f - doff), fn);
		fp_close(fd); /* releases the flock */
		return bad;
	}
	return -1;
}

/* dump_file writes this process's dump to path: a dump file (write_file), or, when
 * path is not a regular file (/dev/null, a FIFO, a terminal), written to as it is: a
 * rename over it would replace the device with a file. With merge, every process of
 * the run adds its counts. Async-signal-safe. */
static int dump_file(const char *path, int merge, int sig) {
	struct stat pst;
	if (fp_stat(path, &pst) == 0 && !S_ISREG(pst.st_mode)) {
		int fd = fp_open(path, O_WRONLY | O_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		int bad = dump_to(fd, sig);
		fp_close(fd);
		return bad;
	}
	return write_file(path, merge, sig);
}

/* merge_fd adds this process's counts to a fork-server trial's dump: the memfd fd,
 * shared by every process of the trial (forked, or exec'd: FRAGPROF_TRIAL_FD), whose
 * length is its shared offset. The processes take turns under a POSIX record lock
 * (owned by the process, unlike flock, whose lock belongs to the shared open file
 * and so excludes nobody; released if the process dies); each reads what is there,
 * rewinds and writes the sums. The fork server reads the dump once the last process
 * of the trial has ended. Async-signal-safe: system calls only. */
static int merge_fd(int fd, int sig) {
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	int locked;
	while (!(locked = fcntl(fd, F_SETLKW, &fl) == 0) && errno == EINTR)
		;
	off_t n = fp_lseek(fd, 0, SEEK_CUR);
	unsigned char *old = 0;
	uint32_t nold = 0;
	if (n >= 32) {
		void *m = mmap(0, (size_t)n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			old = m;
			if (fp_pread(fd, old, (size_t)n, 0) != n || !old_valid(old, (size_t)n, get32(old + 24), &nold)) {
				munmap(m, (size_t)n);
				old = 0; /* damaged: replaced */
				nold = 0;
			}
		}
	}
	int bad = fp_lseek(fd, 0, SEEK_SET) < 0 ? -1 : dump_merged(fd, SIZE_MAX, sig, old, old + n, nold, run_id);
	if (old)
		munmap(old, (size_t)n);
	fl.l_type = F_UNLCK;
	if (locked)
		fcntl(fd, F_SETLK, &fl);
	return bad;
}

/* write_dump writes the dump where it goes; -1 (errno set) when that failed. */
static int write_dump(int sig) {
	if (out_fd >= 0) {
		if (fp_getpid() != owner)
			return 0;
		return trial_fd ? merge_fd(out_fd, sig) : dump_to(out_fd, sig);
	}
	if (!out_path[0])
		return 0;
	const char *path = out_path;
	static char expanded[4096] FP_BULK;
	int has_pid = fp_pct(out_path, 'p') != 0;
	if (has_pid) {
		if (expand(expanded, sizeof expanded, &has_pid) < 0)
			return -1;
		path = expanded;
	}
	if (!has_pid) {
		/* Every process of the run adds its counts (but a vfork child, whose owner is
		 * its parent). */
		return fp_getpid() == owner ? dump_file(path, 1, sig) : 0;
	}
	return dump_file(path, 0, sig);
}

/* fp_prlimit is prlimit(0, res, set, old), without binding it. */
static int fp_prlimit(int res, const struct rlimit *set, struct rlimit *old) {
	return (int)syscall(SYS_prlimit64, 0, res, set, old);
}

/* lift raises the soft limit res to its hard limit, keeping the old one in *old; it
 * reports whether it changed the limit. */
static int lift(int res, struct rlimit *old) {
	struct rlimit up;
	if (fp_prlimit(res, 0, old) < 0 || old->rlim_cur >= old->rlim_max)
		return 0;
	up.rlim_cur = up.rlim_max = old->rlim_max;
	return fp_prlimit(res, &up, 0) == 0;
}

/* tell writes a line "WORD PID[ ERRNO]" to fragprof's live pipe (keep_live), which
 * internal/runner reads: "fork PID" from a forked child as it starts, "done PID" from
 * a forked child that wrote its counts, "dump-error PID ERRNO" from a process that
 * could not (err, when not 0, is the errno met). So fragprof knows whose counts are missing,
 * and why. One write below PIPE_BUF: whole among other processes' lines. */
static void tell(const char *word, int err) {
	if (live_fd < 0)
		return;
	char line[64];
	size_t n = 0;
	while (*word)
		line[n++] = *word++;
	line[n++] = ' ';
	n += put_dec(line + n, (unsigned long)fp_getpid());
	if (err) {
		line[n++] = ' ';
		n += put_dec(line + n, (unsigned long)err);
	}
	line[n++] = '\n';
	fp_write(live_fd, line, n);
}

/* __fragprof_dump writes the dump once. sig is the fatal signal, or 0. A limit the
 * program lowered does not stop it: the file size limit (RLIMIT_FSIZE, whose
 * SIGXFSZ would kill a program that writes no file of its own) is raised to its hard
 * limit and SIGXFSZ ignored while the dump is written, and a dump that met the limit
 * of open files (RLIMIT_NOFILE) is written again under its hard limit; the program's
 * limits are then restored. A dump that still fails says why (tell). */
void __fragprof_dump(int sig) {
	if (dumped)
		return;
	dumped = 1;
	if (!cont_on && out_fd < 0 && !out_path[0]) {
		__fragprof_flush_extra(sig);
		return;
	}
	int saved = errno;
	struct rlimit fsize = {RLIM_INFINITY, RLIM_INFINITY}, nofile;
	struct sigaction xfsz, ign;
	int fsize_lifted = lift(RLIMIT_FSIZE, &fsize), ignored = 0;
	if (fsize.rlim_max != RLIM_INFINITY) {
		memset(&ign, 0, sizeof ign);
		ign.sa_handler = SIG_IGN;
		ignored = sigaction(SIGXFSZ, &ign, &xfsz) == 0;
	}
	__fragprof_flush_extra(sig); /* other subsystems' records first (extra.c) */
	int bad = 0, nofile_lifted = 0;
	errno = 0;
	if (cont_on && out_fd < 0)
		cont_finish(sig);
	else if ((bad = write_dump(sig)) < 0 && (errno == EMFILE || errno == ENFILE) &&
	         (nofile_lifted = lift(RLIMIT_NOFILE, &nofile))) {
		errno = 0;
		bad = write_dump(sig);
	}
	int err = errno;
	if (nofile_lifted)
		fp_prlimit(RLIMIT_NOFILE, &nofile, 0);
	if (fsize_lifted)
		fp_prlimit(RLIMIT_FSIZE, &fsize, 0);
	if (ignored)
		sigaction(SIGXFSZ, &xfsz, 0);
	if (bad < 0)
		tell("dump-error", err > 0 ? err : EIO);
	else if (forked)
		tell("done", 0);
	errno = saved;
}

/* _exit and _Exit end a process without its exit handlers, so without the dump at
 * exit: the runtime defines them, and the program's calls (a forked child's usual
 * end) write the dump first. A vfork child, which shares its parent's memory and
 * whose owner is its parent, writes none. The C library's own exits (exit(), abort)
 * do not come here in a dynamically linked program; in a static one, exit() does,
 * after the dump. Weak: a program that defines its own _exit keeps it. */
__attribute__((weak)) void _exit(int status) {
	if (fp_getpid() == owner)
		__fragprof_dump(0);
	fp_exit(status);
}
void _Exit(int status) __attribute__((weak, alias("_exit")));

static const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
                            SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ};

/* note_fault keeps the fault record of a fault the kernel raised. */
static void note_fault(int sig, const siginfo_t *si, const void *uc) {
	if (si->si_code <= 0 || have_fault)
		return; /* sent by a process (kill, raise, sigqueue), not raised by an instruction */
	uint64_t pc = 0, sp = 0;
	if (sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE && sig != SIGTRAP)
		return;
#if defined(__x86_64__)
	pc = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	sp = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	pc = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.pc;
	sp = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.sp;
#else
	(void)uc;
#endif
	put64(fault_rec, pc);
	put64(fault_rec + 8, (uint64_t)(uintptr_t)si->si_addr);
	put64(fault_rec + 16, (uint64_t)(uintptr_t)__ehdr_start);
	put64(fault_rec + 24, (uint64_t)(int64_t)si->si_code);
	put64(fault_rec + 32, sp);
	have_fault = 1;
	__fragprof_walk(uc, (uintptr_t)si->si_addr);
}

/* on_signal writes the dump once (a second signal, or a fault inside the dump, finds
 * the default action restored by SA_RESETHAND) and dies of the same signal: the
 * default action is restored, the signal unblocked and raised again. A fault
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL) that raise cannot end re-executes its instruction
 * on return and meets the default action. */
static void on_signal(int sig, siginfo_t *si, void *uc) {
	int saved = errno;
	note_fault(sig, si, uc);
	__fragprof_dump(sig);
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, 0);
	raise(sig);
	errno = saved;
}

static void install(void) {
	if (fp_getenv("FRAGPROF_BIND_NOW")) {
		/* fragprof bound this process's symbols at load (internal/runner.BindNow): its
		 * children are the program's business */
		unsetenv("LD_BIND_NOW");
		unsetenv("FRAGPROF_BIND_NOW");
	}
	owner = fp_getpid();
	const char *fd = fp_getenv("FRAGPROF_FD");
	const char *path = fp_getenv("FRAGPROF_OUT");
	const char *ctl = fp_getenv("FRAGPROF_CTL");
	const char *tfd = fp_getenv("FRAGPROF_TRIAL_FD");
	int tn;
	unsigned long long ino;
	struct stat st;
	if (tfd && !(ctl && *ctl) && sscanf(tfd, "%d:%llu", &tn, &ino) == 2 && fp_fstat(tn, &st) == 0 &&
	    (unsigned long long)st.st_ino == ino) {
		/* exec'd by a process of a fork-server trial: add to the trial's dump */
		out_fd = tn;
		trial_fd = merge_children = 1;
	} else if (fd && *fd)
		out_fd = atoi(fd);
	else if (path) {
		size_t n = 0; /* a path too long for out_long counts nowhere, as none */
		while (path[n] && n + 1 < sizeof out_long)
			n++;
		if (!path[n]) {
			out_path = n < sizeof out_short ? out_short : out_long;
			for (size_t i = 0; i <= n; i++)
				out_path[i] = path[i];
		}
	}
	if (out_fd < 0 && !out_path[0] && !(ctl && *ctl))
		return; /* nobody asked for counts: stay out of the program's way */
	if (out_path[0] && !(ctl && *ctl)) {
		join_run();
		keep_live();
	}
	if (!(ctl && *ctl))
		cont_init(); /* continuous mode, if asked for (section at the end); never
		              * under the fork server, whose trials dump to their own memfd */
	if ((out_path[0] && !(ctl && *ctl)) || trial_fd) {
		/* In continuous mode cont_after_fork, registered first, runs first: it turns
		 * a child into an ordinary process of the run, adding to PATH.forks. */
		merge_children = !cont_on;
		pthread_atfork(0, 0, after_fork);
	}
	static char altstack[1 << 16] FP_BULK;
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	fp_sigaltstack(&ss, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND; /* sa_mask: empty (memset) */
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction old;
		if (sigaction(fatal[i], &sa, &old) == 0 && old.sa_handler == SIG_IGN)
			sigaction(fatal[i], &old, 0); /* the program was started with it ignored: keep that */
	}
}

/* zero_counters zeroes every unit's counters, writing only the pages (512 counters)
 * that hold a count. A forked process shares its parent's pages until it writes to
 * them: a trial forked from the fork server, whose counters are zero unless its
 * program ran code before the fork, then copies only the counter pages it counts in,
 * not every one (reading costs no copy). With resident_only, a page that no process
 * has touched (not resident: mincore) is zero and left unread: reading it would map
 * it, and a trial forked afterwards would pay a second fault (copying the zero page)
 * on its first count there, not one. */
static void zero_counters(int resident_only) {
	static unsigned char res[256];
	uint32_t k = 0;
	for (struct fp_unit *u = units; u && k < nunits; u = u->next, k++)
		for (uint64_t i = 0; i < u->ncounters; i += 512) {
			uint64_t n = u->ncounters - i < 512 ? u->ncounters - i : 512, any = 0;
			if (resident_only && (uintptr_t)u->counters % 4096 == 0) {
				/* mincore a run of pages at once: res[(i / 512) % 256] */
				uint64_t pg = i / 512;
				if (pg % 256 == 0) {
					uint64_t left = (u->ncounters - i + 511) / 512;
					if (mincore(u->counters + i, (size_t)(left < 256 ? left : 256) * 4096, res) < 0)
						memset(res, 1, sizeof res); /* unknown: read them */
				}
				if (!(res[pg % 256] & 1))
					continue;
			}
			for (uint64_t j = 0; j < n; j++)
				any |= u->counters[i + j];
			if (any)
				memset(u->counters + i, 0, (size_t)n * 8);
		}
}

/* after_fork starts a forked child's counts afresh (the parent's so far are the
 * parent's to write): at its end the child adds its own to the run's dump. */
static void after_fork(void) {
	if (cont_on || !merge_children)
		return; /* continuous mode: cont_after_fork; the fork server: its trials */
	zero_counters(0);
	__fragprof_main_returned = 0;
	dumped = 0;
	owner = fp_getpid();
	forked = 1;
	tell("fork", 0);
}

/* keep_live moves the write end of fragprof's "live" pipe (FRAGPROF_LIVE_FD, set by
 * internal/runner for the run's first process) out of the program's way, to a high
 * descriptor that every process of the run inherits: fragprof reads its end of file
 * when the last of them has ended, and then reads the dump. */
static void keep_live(void) {
	const char *l = fp_getenv("FRAGPROF_LIVE_FD");
	if (!l || !*l)
		return;
	int fd = atoi(l);
	unsetenv("FRAGPROF_LIVE_FD"); /* an exec'd program inherits the high descriptor */
	if (fcntl(fd, F_GETFD) < 0)
		return;
	struct rlimit rl;
	int lo = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64 && rl.rlim_cur <= 1 << 20 ? (int)rl.rlim_cur - 32 : 0;
	int hi = lo > fd ? fcntl(fd, F_DUPFD, lo) : -1;
	if (hi >= 0)
		fp_close(fd);
	live_fd = hi >= 0 ? hi : fd;
}

/* join_run sets run_id: the run's, inherited through FRAGPROF_RUN, or a new one
 * when this process is the first. */
static void join_run(void) {
	const char *r = fp_getenv("FRAGPROF_RUN");
	if (r && *r) {
		run_id = (uint32_t)strtoul(r, 0, 10);
		run_inherited = 1;
		return;
	}
	if (fp_getrandom(&run_id, sizeof run_id, GRND_NONBLOCK) != sizeof run_id) {
		struct timespec ts; /* no entropy yet (early boot): the clock and the pid */
		clock_gettime(CLOCK_REALTIME, &ts);
		run_id = (uint32_t)ts.tv_nsec * 2654435761u ^ (uint32_t)ts.tv_sec ^ (uint32_t)fp_getpid() << 8;
	}
	run_id |= 0x80000000u;
	static char env[32] = "FRAGPROF_RUN=";
	char num[12];
	int d = 0;
	for (uint32_t v = run_id; v; v /= 10)
		num[d++] = (char)('0' + v % 10);
	for (int i = 0; d > 0; i++)
		env[13 + i] = num[--d];
	putenv(env); /* no copy: env stays the variable's storage */
}

/* __fragprof_before_exec is called before every exec call of instrumented code: the
 * process image is about to be replaced, so its counts so far are written (in the
 * ordinary mode, added to the run's dump). */
void __fragprof_before_exec(void) {
	/* Not in a vfork child (owner is its parent): it shares the parent's counters,
	 * which the parent writes at its end. */
	if ((!out_path[0] && !trial_fd) || cont_on || dumped || fp_getpid() != owner)
		return;
	int saved = errno;
	__fragprof_dump(0);
	errno = saved;
}

/* __fragprof_after_exec runs when the exec failed: the counts so far are written, so
 * the process counts afresh and adds the rest at its end. */
void __fragprof_after_exec(void) {
	if ((!out_path[0] && !trial_fd) || cont_on || !dumped || fp_getpid() != owner)
		return;
	int saved = errno;
	after_fork();
	errno = saved;
}

void __fragprof_reset_for_child(int fd, int zero) {
	if (zero)
		zero_counters(0);
	__fragprof_main_returned = 0;
	out_fd = fd;
	out_path[0] = 0;
	owner = fp_getpid();
	run_id = (uint32_t)owner;
	dumped = 0;
	trial_fd = merge_children = 1;
}

/* count_threads returns the number of threads of this process (/proc/self/task), or
 * 0 when it cannot tell. */
static int count_threads(void) {
	int fd = fp_open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0), n = 0;
	if (fd < 0)
		return 0;
	char buf[4096];
	long r;
	while ((r = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long off = 0; off < r;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, 2);
			const char *name = buf + off + 19;
			n += name[0] != '.';
			off += reclen;
		}
	fp_close(fd);
	return r < 0 ? 0 : n;
}

int __fragprof_serve_trials(void) {
	pthread_atfork(0, 0, after_fork);
	/* The counts of the program's constructors are no trial's. The server runs no
	 * code of the program from here on, so its counters stay zero and every trial
	 * it forks starts from zero without reading them: zeroing them in each trial read
	 * every counter page (sqlite3: 200 pages, a fault each) and was a tenth of a
	 * trial's time. Unless a thread of the program's still runs (started by a
	 * constructor): then its counts are zeroed in every trial, as they were. */
	zero_counters(1);
	return count_threads() != 1;
}

void __fragprof_register(struct fp_unit *u) {
	/* An exchange, not a test: the runtime's first access to the page of its small
	 * variables is then a write, one page fault, where a read maps the zero page and
	 * the first write faults again. */
	if (!__atomic_exchange_n(&installed, 1, __ATOMIC_RELAXED))
		install();
	for (struct fp_unit *v = units; v; v = v->next)
		if (v == u)
			return; /* registered twice (its constructor ran again): keep the list a list */
	u->next = units;
	units = u;
	nunits++;
	if (cont_on)
		cont_add(u);
}

/* Runs after the program's own atexit handlers and destructors. */
__attribute__((destructor(101))) static void at_exit(void) { __fragprof_dump(0); }

/* ------------------------------------------------------------------------------------
 * Continuous mode. Like LLVM's continuous mode (%c in LLVM_PROFILE_FILE), the
 * counters live in the dump file itself: each unit's counter array (page-aligned and a
 * whole number of pages long, as fragprof's instrumentation lays it out) is replaced
 * by a shared mapping of its place in the file, so every increment lands in the page
 * cache at once and the counts survive SIGKILL, _exit() and crashes of the runtime.
 *
 * Asked for by FRAGPROF_CONTINUOUS=1, or by %c anywhere in FRAGPROF_OUT (removed from
 * the name). Needs FRAGPROF_OUT (not FRAGPROF_FD). The file has the dump layout with
 * header flag FP_CONTINUOUS: after each unit's metadata, padding to the next page, then
 * the counter pages. FP_FINISHED is set, with the exit signal and whether main
 * returned, when the program ends through the runtime; a file without it comes from a
 * program that was killed. If any unit cannot be mapped, continuous mode is abandoned
 * and the ordinary dump at exit replaces the file.
 *
 * After fork() the child stops sharing the parent's pages: with %p in the name it
 * gets a file of its own and counts afresh; without %p it counts afresh in private
 * memory and, at its end, adds its counts to PATH.forks, the ordinary dump of the
 * run's other processes (dump_file), which a program built by fragprof that a
 * process of the run execs adds to as well. fragprof adds PATH.forks to PATH.
 *
 * Entry points used by the rest of the runtime: cont_init (from install), cont_add
 * (from __fragprof_register), cont_finish (from __fragprof_dump).
 * ------------------------------------------------------------------------------------ */

static int cont_fd = -1;
static off_t cont_end;      /* size of the file so far */
static uint32_t cont_units; /* units in the file */

static long cont_page(void) { return sysconf(_SC_PAGESIZE); }

static off_t cont_round(off_t n) {
	long pg = cont_page();
	return (n + pg - 1) / pg * pg;
}

static int cont_pwrite(const void *p, size_t n, off_t off) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = fp_pwrite(cont_fd, c, n, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* cont_create opens a fresh continuous file and writes its header. */
static int cont_create(void) {
	char path[4096];
	int has_pid;
	if (expand(path, sizeof path, &has_pid) < 0)
		return -1;
	int fd = fp_open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	cont_fd = fd;
	unsigned char h[32];
	memset(h, 0, sizeof h);
	memcpy(h, "FPDUMP\0\1", 8);
	put32(h + 8, 1);
	put32(h + 24, (uint32_t)fp_getpid());
	put32(h + 28, FP_CONTINUOUS);
	cont_end = sizeof h;
	cont_units = 0;
	return cont_pwrite(h, sizeof h, 0);
}

/* cont_map appends unit u to the file and maps its counters there. */
static int cont_map(struct fp_unit *u) {
	size_t bytes = (size_t)u->ncounters * 8;
	long pg = cont_page();
	size_t span = (bytes + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	if (bytes == 0)
		span = 0;
	if (span && (uintptr_t)u->counters % (uintptr_t)pg != 0)
		return -1; /* not laid out for mapping (built by an older fragprof) */
	unsigned char uh[8];
	put32(uh, u->ncounters);
	put32(uh + 4, (uint32_t)u->metalen);
	off_t off = cont_end;
	if (cont_pwrite(uh, 8, off) < 0 || cont_pwrite(u->meta, u->metalen, off + 8) < 0)
		return -1;
	off_t data = cont_round(off + 8 + (off_t)u->metalen);
	if (fp_ftruncate(cont_fd, data + (off_t)span) < 0)
		return -1;
	if (span) {
		/* Counts made before the mapping (constructors run earlier) go first. */
		if (cont_pwrite(u->counters, bytes, data) < 0)
			return -1;
		void *m = mmap(u->counters, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, cont_fd, data);
		if (m == MAP_FAILED)
			return -1;
	}
	cont_end = data + (off_t)span;
	cont_units++;
	unsigned char n[4];
	put32(n, cont_units);
	return cont_pwrite(n, 4, 12);
}

/* cont_abandon leaves continuous mode; the ordinary dump at exit takes over. */
static void cont_abandon(void) {
	cont_on = 0;
	merge_children = 1; /* the ordinary mode's rule for forked children */
	if (cont_fd >= 0)
		fp_close(cont_fd);
	cont_fd = -1;
}

/* cont_forks makes this process an ordinary one of the run, counting afresh and
 * adding its counts at its end to PATH.forks (a forked child, or a program exec'd by
 * a process of the run); with no room for the name, it writes nothing. */
static void cont_forks(void) {
	size_t n = strlen(out_path);
	if (n + sizeof ".forks" > sizeof out_long) {
		owner = 0;
		return;
	}
	if (out_path == out_short && n + sizeof ".forks" > sizeof out_short) {
		memcpy(out_long, out_short, n);
		out_path = out_long;
	}
	memcpy(out_path + n, ".forks", sizeof ".forks");
	__fragprof_main_returned = 0;
	dumped = 0;
	owner = fp_getpid();
	merge_children = 1;
}

static void cont_after_fork(void) {
	if (!cont_on)
		return;
	int has_pid = fp_pct(out_path, 'p') != 0;
	/* Stop sharing: copy the counters into private memory at the same address. */
	for (struct fp_unit *u = units; u; u = u->next) {
		size_t bytes = (size_t)u->ncounters * 8;
		long pg = cont_page();
		size_t span = (bytes + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
		if (!span)
			continue;
		uint64_t *copy = mmap(0, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy == MAP_FAILED)
			continue;
		/* Zero: the child counts afresh, as in the ordinary mode (after_fork). */
		if (mremap(copy, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, u->counters) == MAP_FAILED)
			munmap(copy, span);
	}
	fp_close(cont_fd);
	cont_fd = -1;
	if (!has_pid) {
		/* The parent owns the file: the child adds its counts to PATH.forks. */
		cont_on = 0;
		cont_forks();
		return;
	}
	__fragprof_main_returned = 0;
	dumped = 0;
	owner = fp_getpid();
	if (cont_create() < 0) {
		cont_abandon();
		return;
	}
	for (struct fp_unit *u = units; u; u = u->next)
		if (cont_map(u) < 0) {
			cont_abandon();
			return;
		}
}

static void cont_init(void) {
	const char *c = fp_getenv("FRAGPROF_CONTINUOUS");
	int want = c && c[0] == '1' && !c[1];
	char *pc = fp_pct(out_path, 'c');
	if (pc) {
		memmove(pc, pc + 2, strlen(pc + 2) + 1);
		want = 1;
	}
	if (!want || out_fd >= 0 || !out_path[0])
		return;
	if (run_inherited && !fp_pct(out_path, 'p')) {
		cont_forks(); /* exec'd by a process of a continuous run: the file is not ours */
		return;
	}
	if (cont_create() < 0) {
		cont_abandon();
		return;
	}
	cont_on = 1;
	pthread_atfork(0, 0, cont_after_fork);
}

static void cont_add(struct fp_unit *u) {
	if (cont_map(u) < 0)
		cont_abandon();
}

/* cont_finish records how the program ended (async-signal-safe). */
static void cont_finish(int sig) {
	if (fp_getpid() != owner && !fp_pct(out_path, 'p'))
		return;
	unsigned char h[12];
	put32(h, (uint32_t)__fragprof_main_returned);
	put32(h + 4, (uint32_t)sig);
	put32(h + 8, FP_CONTINUOUS | FP_FINISHED | (__fragprof_unwalked ? FP_UNWALKED : 0));
	cont_pwrite(h, 4, 16);
	cont_pwrite(h + 4, 4, 20);
	cont_pwrite(h + 8, 4, 28);
}
