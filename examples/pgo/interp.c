/* interp.c: a small stack-machine interpreter, the kind of program where code layout
 * matters: a dispatch switch with a few hot opcodes and many cold ones, and error
 * checks on every step that never fire. Profile-guided optimisation (fragprof pgo,
 * or clang's -fprofile-instr-use) tells LLVM which opcodes and which side of every
 * check are hot, so it lays the hot path out straight.
 *
 * Usage: interp [N] [PROGRAM]
 *   PROGRAM 0 (default): the sum of the Collatz path lengths of 1..N
 *   PROGRAM 1: the number of primes below N, by trial division
 * It prints the result. Used by bench/edges.sh and the pgo tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op {
	HALT, PUSH, POP, DUP, SWAP, OVER, ADD, SUB, MUL, DIV, MOD, NEG, AND, OR, XOR, SHL,
	SHR, EQ, NE, LT, LE, GT, GE, NOT, JMP, JZ, JNZ, LOAD, STORE, INC, DEC, PRINT,
	CALL, RET, NOP, ROT, ABS, MIN, MAX, SQR, NOPS
};

struct vm {
	long stack[256];
	long mem[64];
	int rstack[64];
	int sp, rsp;
	long steps;
};

static void fail(const char *what, int pc) {
	fprintf(stderr, "interp: %s at pc %d\n", what, pc);
	exit(2);
}

static long run(struct vm *m, const long *code, int len) {
	int pc = 0;
	for (;;) {
		if (pc < 0 || pc >= len)
			fail("pc out of range", pc);
		if (m->sp < 0)
			fail("stack underflow", pc);
		if (m->sp > 250)
			fail("stack overflow", pc);
		m->steps++;
		long op = code[pc++];
		long a, b;
		switch (op) {
		case HALT:
			return m->sp > 0 ? m->stack[m->sp - 1] : 0;
		case PUSH:
			m->stack[m->sp++] = code[pc++];
			break;
		case POP:
			m->sp--;
			break;
		case DUP:
			m->stack[m->sp] = m->stack[m->sp - 1];
			m->sp++;
			break;
		case SWAP:
			a = m->stack[m->sp - 1];
			m->stack[m->sp - 1] = m->stack[m->sp - 2];
			m->stack[m->sp - 2] = a;
			break;
		case OVER:
			m->stack[m->sp] = m->stack[m->sp - 2];
			m->sp++;
			break;
		case ADD: b = m->stack[--m->sp]; m->stack[m->sp - 1] += b; break;
		case SUB: b = m->stack[--m->sp]; m->stack[m->sp - 1] -= b; break;
		case MUL: b = m->stack[--m->sp]; m->stack[m->sp - 1] *= b; break;
		case DIV:
			b = m->stack[--m->sp];
			if (b == 0)
				fail("division by zero", pc);
			m->stack[m->sp - 1] /= b;
			break;
		case MOD:
			b = m->stack[--m->sp];
			if (b == 0)
				fail("division by zero", pc);
			m->stack[m->sp - 1] %= b;
			break;
		case NEG: m->stack[m->sp - 1] = -m->stack[m->sp - 1]; break;
		case AND: b = m->stack[--m->sp]; m->stack[m->sp - 1] &= b; break;
		case OR: b = m->stack[--m->sp]; m->stack[m->sp - 1] |= b; break;
		case XOR: b = m->stack[--m->sp]; m->stack[m->sp - 1] ^= b; break;
		case SHL: b = m->stack[--m->sp]; m->stack[m->sp - 1] <<= b; break;
		case SHR: b = m->stack[--m->sp]; m->stack[m->sp - 1] >>= b; break;
		case EQ: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] == b; break;
		case NE: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] != b; break;
		case LT: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] < b; break;
		case LE: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] <= b; break;
		case GT: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] > b; break;
		case GE: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] >= b; break;
		case NOT: m->stack[m->sp - 1] = !m->stack[m->sp - 1]; break;
		case JMP: pc = (int)code[pc]; break;
		case JZ:
			a = m->stack[--m->sp];
			pc = a == 0 ? (int)code[pc] : pc + 1;
			break;
		case JNZ:
			a = m->stack[--m->sp];
			pc = a != 0 ? (int)code[pc] : pc + 1;
			break;
		case LOAD:
			a = code[pc++];
			if (a < 0 || a >= 64)
				fail("bad address", pc);
			m->stack[m->sp++] = m->mem[a];
			break;
		case STORE:
			a = code[pc++];
			if (a < 0 || a >= 64)
				fail("bad address", pc);
			m->mem[a] = m->stack[--m->sp];
			break;
		case INC: m->stack[m->sp - 1]++; break;
		case DEC: m->stack[m->sp - 1]--; break;
		case PRINT: printf("%ld\n", m->stack[--m->sp]); break;
		case CALL:
			if (m->rsp >= 64)
				fail("call stack overflow", pc);
			m->rstack[m->rsp++] = pc + 1;
			pc = (int)code[pc];
			break;
		case RET:
			if (m->rsp <= 0)
				fail("return without call", pc);
			pc = m->rstack[--m->rsp];
			break;
		case NOP: break;
		case ROT:
			a = m->stack[m->sp - 3];
			m->stack[m->sp - 3] = m->stack[m->sp - 2];
			m->stack[m->sp - 2] = m->stack[m->sp - 1];
			m->stack[m->sp - 1] = a;
			break;
		case ABS: if (m->stack[m->sp - 1] < 0) m->stack[m->sp - 1] = -m->stack[m->sp - 1]; break;
		case MIN: b = m->stack[--m->sp]; if (b < m->stack[m->sp - 1]) m->stack[m->sp - 1] = b; break;
		case MAX: b = m->stack[--m->sp]; if (b > m->stack[m->sp - 1]) m->stack[m->sp - 1] = b; break;
		case SQR: m->stack[m->sp - 1] *= m->stack[m->sp - 1]; break;
		default:
			fail("bad opcode", pc);
		}
	}
}

/* Collatz: mem[0] = n, mem[1] = total, mem[2] = N. */
static const long collatz[] = {
	/*  0 */ PUSH, 1, STORE, 0, PUSH, 0, STORE, 1,
	/*  8 */ LOAD, 0, LOAD, 2, GT, JNZ, 60,          /* while n <= N */
	/* 15 */ LOAD, 0,                               /* x = n */
	/* 17 */ DUP, PUSH, 1, EQ, JNZ, 48,             /* while x != 1 */
	/* 23 */ DUP, PUSH, 1, AND, JZ, 38,             /* odd? */
	/* 29 */ PUSH, 3, MUL, INC, JMP, 41,            /* x = 3x+1 */
	/* 35 */ NOP, NOP, NOP,
	/* 38 */ PUSH, 1, SHR,                          /* x = x/2 */
	/* 41 */ LOAD, 1, INC, STORE, 1, JMP, 17,      /* total++ */
	/* 48 */ POP, LOAD, 0, INC, STORE, 0, JMP, 8,  /* n++ */
	/* 56 */ NOP, NOP, NOP, NOP,
	/* 60 */ LOAD, 1, HALT,
};

/* Primes below N: mem[0] = n, mem[1] = count, mem[2] = N, mem[3] = d. */
static const long primes[] = {
	/*  0 */ PUSH, 2, STORE, 0, PUSH, 0, STORE, 1,
	/*  8 */ LOAD, 0, LOAD, 2, GE, JNZ, 64,         /* while n < N */
	/* 15 */ PUSH, 2, STORE, 3,                    /* d = 2 */
	/* 19 */ LOAD, 3, SQR, LOAD, 0, GT, JNZ, 46,   /* while d*d <= n */
	/* 27 */ LOAD, 0, LOAD, 3, MOD, JZ, 56,        /* n % d == 0: composite */
	/* 34 */ LOAD, 3, INC, STORE, 3, JMP, 19,
	/* 41 */ NOP, NOP, NOP, NOP, NOP,
	/* 46 */ LOAD, 1, INC, STORE, 1,               /* prime */
	/* 51 */ NOP, NOP, NOP, NOP, NOP,
	/* 56 */ LOAD, 0, INC, STORE, 0, JMP, 8,
	/* 63 */ NOP,
	/* 64 */ LOAD, 1, HALT,
};

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 10000;
	int which = argc > 2 ? atoi(argv[2]) : 0;
	struct vm m;
	memset(&m, 0, sizeof m);
	m.mem[2] = n;
	long r = which == 1 ? run(&m, primes, sizeof primes / sizeof primes[0])
	                    : run(&m, collatz, sizeof collatz / sizeof collatz[0]);
	printf("%ld (%ld steps)\n", r, m.steps);
	return 0;
}
