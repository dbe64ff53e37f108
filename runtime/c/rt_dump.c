/* rt_dump.c: the counters dump (layer 3; fp_internal.h lists the layers).
 *
 * Each instrumented translation unit registers a descriptor (its counter array and
 * the metadata blob describing its CFG and counter plan) from a constructor
 * (rt_init.c). At exit (after every atexit handler and destructor of the program)
 * and on fatal signals (rt_signals.c) __fragprof_dump writes all units to the dump
 * named by FRAGPROF_OUT (a path; %p expands to the pid) or FRAGPROF_FD (an open
 * descriptor), or adds them to a fork-server trial's dump. It never writes to the
 * program's stdout or stderr. The dump layout and the dump file are documented in
 * docs/runtime.md. Here too: metadata by reference and the sparse form, with which
 * the fork server (rt_fork.c) answers its client, and the fault record.
 *
 * It calls rt_io.c (the output, the extra channel's hooks, the live pipe) and
 * rt_continuous.c (a continuous run's end); async-signal-safe from __fragprof_dump
 * down: system calls only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fp_internal.h"

/* The fault record: where a fault the kernel raised (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGTRAP from an instruction of the program, not raise or kill) happened. Five
 * little-endian 64-bit words: the program counter, the faulting address (si_addr),
 * the address at which the executable's ELF header is loaded (__ehdr_start: fragprof
 * turns the program counter into a symbol and a line of the binary), si_code, and the
 * stack pointer (a fault next to it is a stack overflow). Kept by rt_signals.c. */
static unsigned char fault_rec[FP_FAULT_SIZE];
static int have_fault;
extern const char __ehdr_start[] __attribute__((weak));

int __fragprof_keep_fault(uint64_t pc, uint64_t addr, int64_t code, uint64_t sp) {
	if (have_fault)
		return 0;
	fp_put64(fault_rec, pc);
	fp_put64(fault_rec + 8, addr);
	fp_put64(fault_rec + 16, (uint64_t)(uintptr_t)__ehdr_start);
	fp_put64(fault_rec + 24, (uint64_t)code);
	fp_put64(fault_rec + 32, sp);
	have_fault = 1;
	return 1;
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

/* A unit of an earlier dump of the same run, found by old_unit_at. */
struct old_unit {
	uint32_t nc, ml;
	const unsigned char *meta;
	const unsigned char *ctr; /* nc little-endian u64s */
};

/* old_unit_at reads the k-th unit of the valid dump d (found by old_valid). */
static struct old_unit old_unit_at(const unsigned char *d, uint32_t k) {
	size_t off = 32;
	struct old_unit o;
	for (uint32_t i = 0;; i++) {
		o.nc = fp_get32(d + off);
		o.ml = fp_get32(d + off + 4);
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
	if (n < 32 || memcmp(d, FP_DUMP_MAGIC, 8) != 0 || fp_get32(d + 8) != 1 || fp_get32(d + 24) != id ||
	    fp_get32(d + 28) & FP_CONTINUOUS || !(fp_get32(d + 28) & FP_FINISHED))
		return 0;
	size_t off = 32;
	uint32_t u = fp_get32(d + 12);
	if (fp_get32(d + 28) & FP_FAULT) {
		if (n < 32 + FP_FAULT_SIZE)
			return 0;
		n -= FP_FAULT_SIZE;
	}
	for (uint32_t i = 0; i < u; i++) {
		if (off + 8 > n)
			return 0;
		uint64_t ml = stored_ml(fp_get32(d + off + 4)), nc = fp_get32(d + off);
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
	if (meta_by_ref || n < 32 || !old_valid(d, n, fp_get32(d + 24), &nu))
		return;
	for (uint32_t i = 0; i < nu; i++) /* every unit in full */
		if (old_unit_at(d, i).ml == REF_ML)
			return;
	nhashes = 0;
	uint32_t k = 0;
	for (struct fp_unit *u = __fragprof_units; u && k < __fragprof_nunits; u = u->next, k++)
		unit_hash(u); /* computed here once, inherited by every trial */
	nknown = nhashes;
	meta_by_ref = 1;
}

/* __fragprof_sparse writes to out (cap bytes) the dump d of n bytes in the sparse
 * form of the fork server's reply (rt_fork.c): the same bytes, except that each
 * unit's counters are replaced by u32 nruns and nruns runs of non-zero counters,
 * each u32 first, u32 length and the counters. A trial of a large program counts in
 * few of its counters (sqlite3: 100,000 counters, 800 KB a dump, of which a trial
 * leaves most at zero). It returns the length written, or 0 when d is not a whole finished
 * dump or its sparse form would not be shorter by a quarter: then d goes as it is. */
size_t __fragprof_sparse(const unsigned char *d, size_t n, unsigned char *out, size_t cap) {
	uint32_t nu;
	if (n < 32 || !old_valid(d, n, fp_get32(d + 24), &nu))
		return 0;
	size_t fault = fp_get32(d + 28) & FP_FAULT ? FP_FAULT_SIZE : 0;
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
			fp_put32(w, k);
			fp_put32(w + 4, e - k);
			PUT(w, 8);
			PUT(u.ctr + (size_t)k * 8, (size_t)(e - k) * 8);
			runs++;
			k = e;
		}
		fp_put32(out + at, runs);
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
	fp_put32(uh, nc);
	fp_put32(uh + 4, ml);
	size_t sml = stored_ml(ml);
	if (__fragprof_buf_put(uh, 8) < 0 || __fragprof_buf_put(meta, sml) < 0)
		return -1;
	size_t pad = (8 - sml % 8) % 8;
	if (pad && __fragprof_buf_put(zeros, pad) < 0)
		return -1;
	if (!b && a)
		return __fragprof_buf_put(a, (size_t)nc * 8);
	if (!b && araw)
		return __fragprof_buf_put(araw, (size_t)nc * 8);
	uint64_t buf[256];
	for (uint32_t i = 0; i < nc;) {
		uint32_t k = 0;
		for (; k < 256 && i < nc; k++, i++) {
			uint64_t v;
			memcpy(&v, b + (size_t)i * 8, 8); /* little-endian host */
			buf[k] = v + a[i];
		}
		if (__fragprof_buf_put(buf, (size_t)k * 8) < 0)
			return -1;
	}
	return 0;
}

/* emit_dump emits the dump (through the output buffer, rt_io.c), identified by id
 * (a dump it adds to keeps its own). With old (a valid dump of the same run, nold
 * units) it adds this process's counts to it: its units in their order, each summed
 * with this process's unit of the same metadata, then this process's units it
 * lacked. At most __fragprof_nunits units of our own: a damaged list (a cycle)
 * cannot make the dump endless. */
static int emit_dump(int sig, const unsigned char *old, const unsigned char *old_end, uint32_t nold, uint32_t id) {
	uint32_t total = nold, k = 0;
	for (struct fp_unit *u = __fragprof_units; u && k < __fragprof_nunits; u = u->next, k++) {
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
		returned = returned && fp_get32(old + 16); /* every process returned from main */
		if (fp_get32(old + 20))
			osig = fp_get32(old + 20); /* a process that died of a signal */
		flags |= FP_MERGED;
		if (fp_get32(old + 28) & FP_FAULT) /* the first fault of the run is kept */
			fault = old_end - FP_FAULT_SIZE;
		flags |= fp_get32(old + 28) & FP_UNWALKED;
	}
	if (__fragprof_unwalked)
		flags |= FP_UNWALKED;
	if (fault)
		flags |= FP_FAULT;
	memcpy(h, FP_DUMP_MAGIC, 8);
	fp_put32(h + 8, 1);
	fp_put32(h + 12, total);
	fp_put32(h + 16, returned);
	fp_put32(h + 20, osig);
	fp_put32(h + 24, old ? fp_get32(old + 24) : id);
	fp_put32(h + 28, flags);
	if (__fragprof_buf_put(h, sizeof h) < 0)
		return -1;
	for (uint32_t i = 0; i < nold; i++) {
		struct old_unit o = old_unit_at(old, i);
		struct fp_unit *mine = 0;
		k = 0;
		for (struct fp_unit *u = __fragprof_units; u && k < __fragprof_nunits && !mine; u = u->next, k++)
			if (same_unit(&o, u))
				mine = u;
		if (write_unit(o.nc, o.meta, o.ml, mine ? mine->counters : 0, mine ? o.ctr : 0, o.ctr) < 0)
			return -1;
	}
	k = 0;
	for (struct fp_unit *u = __fragprof_units; u && k < __fragprof_nunits; u = u->next, k++) {
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
			fp_put64(ref, unit_hash(u));
			bad = write_unit(u->ncounters, ref, REF_ML, u->counters, 0, 0);
		} else
			bad = write_unit(u->ncounters, u->meta, (uint32_t)u->metalen, u->counters, 0, 0);
		if (bad < 0)
			return -1;
	}
	return fault ? __fragprof_buf_put(fault, FP_FAULT_SIZE) : 0;
}

/* dump_merged writes the dump (emit_dump) to fd at its offset, in at most room bytes. */
static int dump_merged(int fd, size_t room, int sig, const unsigned char *old, const unsigned char *old_end,
                       uint32_t nold, uint32_t id) {
	unsigned char first[4096];
	__fragprof_buf_start(fd, room, first, sizeof first);
	int bad = emit_dump(sig, old, old_end, nold, id);
	return __fragprof_buf_flush() < 0 ? -1 : bad;
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

/* file_dump finds the dump in a file of n bytes whose first bytes are at h (the
 * whole header, when n >= FILE_HDR): a dump file, or a bare dump of an older
 * fragprof. It returns 0 when there is none; else 1, with the dump's offset and
 * length and its slot: -1 for a bare dump. */
static int file_dump(const unsigned char *h, size_t n, size_t *at, size_t *len, int *slot, uint64_t *cap) {
	*slot = -1;
	*cap = 0;
	if (n >= FILE_HDR && memcmp(h, file_magic, 8) == 0) {
		uint64_t st = fp_get64(h + 8), c = fp_get64(h + 16), l = st >> 1;
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

/* make_file writes a new dump file (one dump, in slot 0) to tmp (__fragprof_tmp_name). */
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
		fp_put64(h + 8, len << 1);
		fp_put64(h + 16, cap);
		bad = fp_ftruncate(fd, (off_t)(FILE_HDR + 2 * cap)) < 0 || fp_pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h;
	} else
		bad = 1;
	fp_close(fd);
	if (bad)
		fp_unlink(tmp);
	return bad ? -1 : 0;
}

/* write_file writes this process's dump to the regular file path. With merge (the
 * processes of one run share the file), it adds the counts of a dump of the same run
 * found there; any other dump is replaced. The processes take turns under an flock of
 * the file. Into the file's free slot when it is a dump file with room; else a new
 * dump file, written to path.PID.tmp, takes path's place (rt_io.c: without replacing
 * a file another process created meanwhile, or, over an existing one, by exchanging
 * the two names and unlinking the old file). A
 * process that waited for the lock of a file that was meanwhile replaced starts
 * again. Async-signal-safe: system calls only. */
static int write_file(const char *path, int merge, int sig) {
	uint32_t id = merge ? __fragprof_run_id : (uint32_t)fp_getpid();
	const char *tmp = 0;
	for (int attempt = 0; attempt < 16; attempt++) {
		int fd = fp_open(path, O_RDWR | O_CLOEXEC, 0), writable = fd >= 0;
		if (fd < 0 && errno != ENOENT)
			fd = fp_open(path, O_RDONLY | O_CLOEXEC, 0); /* read-only: replaced, as rename allows */
		if (fd < 0) {
			if (errno != ENOENT || make_file((tmp = __fragprof_tmp_name(path)), sig, 0, 0, 0, id) < 0)
				return -1;
			int r = __fragprof_rename_new(tmp, path);
			if (r == 1)
				continue; /* another process of the run created it first: add to it */
			return r;
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
		if (found && merge && oldn >= 32 && fp_get32(dh + 24) == id) {
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
				fp_put64(st, ((uint64_t)(fp_lseek(fd, 0, SEEK_CUR) - at) << 1) | (uint64_t)(1 - slot));
				bad = fp_pwrite(fd, st, 8, 8) == 8 ? 0 : -1;
			} else if (!__fragprof_buf_short())
				slot = -2; /* a write failed: not worth a second try */
		}
		if (bad < 0 && slot != -2 && make_file((tmp = __fragprof_tmp_name(path)), sig, old, old + oldn, nold, id) == 0)
			bad = __fragprof_rename_over(tmp, path);
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
			if (fp_pread(fd, old, (size_t)n, 0) != n || !old_valid(old, (size_t)n, fp_get32(old + 24), &nold)) {
				munmap(m, (size_t)n);
				old = 0; /* damaged: replaced */
				nold = 0;
			}
		}
	}
	int bad = fp_lseek(fd, 0, SEEK_SET) < 0 ? -1 : dump_merged(fd, SIZE_MAX, sig, old, old + n, nold, __fragprof_run_id);
	if (old)
		munmap(old, (size_t)n);
	fl.l_type = F_UNLCK;
	if (locked)
		fcntl(fd, F_SETLK, &fl);
	return bad;
}

/* write_dump writes the dump where it goes; -1 (errno set) when that failed. */
static int write_dump(int sig) {
	if (__fragprof_out_fd >= 0) {
		if (fp_getpid() != __fragprof_owner)
			return 0;
		return __fragprof_trial_fd ? merge_fd(__fragprof_out_fd, sig) : dump_to(__fragprof_out_fd, sig);
	}
	if (!__fragprof_out_path[0])
		return 0;
	const char *path = __fragprof_out_path;
	static char expanded[4096] FP_BULK;
	int has_pid = fp_pct(__fragprof_out_path, 'p') != 0;
	if (has_pid) {
		if (__fragprof_expand(__fragprof_out_path, expanded, sizeof expanded, &has_pid) < 0)
			return -1;
		path = expanded;
	}
	if (!has_pid) {
		/* Every process of the run adds its counts (but a vfork child, whose owner is
		 * its parent). */
		return fp_getpid() == __fragprof_owner ? dump_file(path, 1, sig) : 0;
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

/* __fragprof_dump writes the dump once. sig is the fatal signal, or 0. A limit the
 * program lowered does not stop it: the file size limit (RLIMIT_FSIZE, whose
 * SIGXFSZ would kill a program that writes no file of its own) is raised to its hard
 * limit and SIGXFSZ ignored while the dump is written, and a dump that met the limit
 * of open files (RLIMIT_NOFILE) is written again under its hard limit; the program's
 * limits are then restored. A dump that still fails says why (__fragprof_tell). */
void __fragprof_dump(int sig) {
	if (__fragprof_dumped)
		return;
	__fragprof_dumped = 1;
	if (!__fragprof_cont_on && __fragprof_out_fd < 0 && !__fragprof_out_path[0]) {
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
	__fragprof_flush_extra(sig); /* other subsystems' records first (rt_io.c) */
	int bad = 0, nofile_lifted = 0;
	errno = 0;
	if (__fragprof_cont_on && __fragprof_out_fd < 0)
		__fragprof_cont_finish(sig);
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
		__fragprof_tell("dump-error", err > 0 ? err : EIO);
	else if (__fragprof_forked)
		__fragprof_tell("done", 0);
	errno = saved;
}
