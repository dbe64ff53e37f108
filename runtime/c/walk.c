/* walk.c: where a fault stopped each activation of the faulting thread.
 *
 * Counters on the chords of a spanning tree give exact counts only where flow is
 * conserved: an activation that a fault stops in block b entered b and never left
 * it. A build at -O0 (internal/instrument/walk.go) gives each block that may fault a
 * stop counter that no code increments, and a table of the unit's functions and of
 * their blocks' addresses; on a fault the kernel raised, this walk follows the
 * faulting thread's frame-pointer chain (the build keeps frame pointers) and
 * increments, for each frame in the unit's code, the stop counter of the block it
 * stopped in: the faulting instruction's block, then the calling block of each
 * caller. It stops at the first frame outside instrumented code: the block that
 * called into that code (the C library, another unit) has a call that may not return,
 * whose virtual edge accounts for the stop already.
 *
 * A frame is trusted only when its block can stop there: the faulting block may
 * fault, a caller's block calls, and the bytes before the return address are a call
 * instruction. Any doubt (a stack overflow, whose fault may come before the frame
 * pointer moved; a frame that cannot be read or does not check out) sets
 * __fragprof_unwalked, and the dump says so: the counts near the fault may then be
 * off by one, and the reader warns. Async-signal-safe: no allocation, no lock, one
 * system call per frame (process_vm_readv, which reads the stack without faulting).
 */
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "fp_internal.h"

#define WALK_SLOT 0x0fffffffu
#define WALK_ABSORBS (1u << 28) /* a virtual edge (or block counters) accounts for a stop here */
#define WALK_FAULTS (1u << 29)  /* an instruction of the block may fault */
#define WALK_CALLS (1u << 30)   /* the block calls a function */
#define WALK_MAX_UNITS 100000   /* a bound on the unit list, in case it is damaged */
#define WALK_MAX_FRAMES 1000000

int __fragprof_unwalked;

/* target returns the address that the relative word at w points at. */
static uintptr_t target(const int32_t *w) { return (uintptr_t)w + (intptr_t)*w; }

/* The function of the last hit, and the addresses [lo, hi) no other function's
 * start falls in: a recursion's frames are found without a search. */
static struct {
	uintptr_t lo, hi;
	const int32_t *rec;
	struct fp_unit *u;
} last;

/* find looks pc up: the function with the greatest start <= pc (unless a unit's
 * sentinel, the end of its code, comes after it), then its block with the greatest
 * offset <= pc - start. It returns 0 when pc is in no unit's code, else 1 with the
 * block's info word and the unit. */
static int find(uintptr_t pc, uint32_t *info, struct fp_unit **unit) {
	if (!(last.rec && pc >= last.lo && pc < last.hi)) {
		uintptr_t best = 0, next = UINTPTR_MAX;
		const int32_t *brec = 0;
		struct fp_unit *bu = 0;
		long n = 0;
		for (struct fp_unit *u = __fragprof_units; u && n < WALK_MAX_UNITS; u = u->next, n++) {
			if (u->version < 2 || !u->walk)
				continue;
			const int32_t *t = u->walk;
			uintptr_t end = target(t + 1);
			if (end <= pc && end >= best)
				best = end, brec = 0; /* past the unit's code */
			else if (end > pc && end < next)
				next = end;
			const int32_t *r = t + 2;
			for (int32_t f = 0; f < t[0]; f++) {
				uintptr_t s = target(r + 1);
				if (s <= pc && s >= best)
					best = s, brec = r, bu = u;
				else if (s > pc && s < next)
					next = s;
				r += 2 + 2 * r[0];
			}
		}
		if (!brec)
			return 0;
		last.lo = best, last.hi = next, last.rec = brec, last.u = bu;
	}
	const int32_t *r = last.rec;
	uintptr_t off = pc - last.lo, boff = 0;
	*info = 0;
	for (int32_t b = 0; b < r[0]; b++) {
		uintptr_t o = (uintptr_t)(uint32_t)r[2 + 2 * b];
		if (o <= off && o >= boff)
			boff = o, *info = (uint32_t)r[3 + 2 * b];
	}
	*unit = last.u;
	return 1;
}

/* call_before reports whether the bytes before the return address r end a call:
 * call rel32, call *%reg, call *disp8(%reg), call *disp32(%reg) or *disp32(%rip). */
static int call_before(uintptr_t r) {
	const unsigned char *p = (const unsigned char *)r;
	if (p[-5] == 0xe8)
		return 1;
	if (p[-2] == 0xff && (p[-1] & 0xf8) == 0xd0)
		return 1; /* also 41 ff d0+r: *%r8..%r15 */
	if (p[-3] == 0xff && (p[-2] & 0xf8) == 0x50 && p[-2] != 0x54)
		return 1;
	if (p[-6] == 0xff && (((p[-5] & 0xf8) == 0x90 && p[-5] != 0x94) || p[-5] == 0x15))
		return 1;
	return 0;
}

/* read16 reads the two words at a without faulting. */
static int read16(uintptr_t a, uintptr_t w[2]) {
	struct iovec local = {w, 16}, remote = {(void *)a, 16};
	return process_vm_readv(fp_getpid(), &local, 1, &remote, 1, 0) == 16;
}

void __fragprof_walk(const void *ucv, uintptr_t addr) {
#if defined(__x86_64__)
	const ucontext_t *uc = ucv;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	for (long k = 0; k < WALK_MAX_FRAMES; k++) {
		struct fp_unit *u;
		uint32_t info;
		if (!find(k == 0 ? pc : pc - 1, &info, &u))
			return; /* outside instrumented code: its caller's block has a virtual edge */
		if (k == 0) {
			/* A fault on the stack's guard page may come from a prologue, before the
			 * frame pointer moved: the chain cannot be trusted. */
			if (addr + (64u << 10) > sp && addr < sp + (64u << 10))
				break;
			if (!(info & (WALK_FAULTS | WALK_ABSORBS)))
				break;
		} else if (!(info & WALK_CALLS) || !call_before(pc))
			break;
		if (info & WALK_SLOT)
			u->counters[(info & WALK_SLOT) - 1]++;
		else if (!(info & WALK_ABSORBS))
			break;
		uintptr_t w[2];
		if (fp < sp || fp & 7 || !read16(fp, w))
			break;
		sp = fp + 16, fp = w[0], pc = w[1];
	}
	__fragprof_unwalked = 1;
#else
	(void)ucv, (void)addr;
#endif
}
