/* interp.c: a bytecode interpreter (a switch in a loop) running a program that sums
 * the primes below N by trial division; prints the sum. A CPU kernel of
 * bench/overhead.sh. Usage: interp [N] (default 40000) */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JZ, JMP, HALT };

typedef struct {
	int op, arg;
} Ins;

static long run(const Ins *code, long *vars) {
	long stack[64];
	int sp = 0, pc = 0;
	for (;;) {
		Ins in = code[pc++];
		switch (in.op) {
		case PUSH: stack[sp++] = in.arg; break;
		case LOAD: stack[sp++] = vars[in.arg]; break;
		case STORE: vars[in.arg] = stack[--sp]; break;
		case ADD: sp--; stack[sp - 1] += stack[sp]; break;
		case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
		case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
		case MOD: sp--; stack[sp - 1] %= stack[sp]; break;
		case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
		case JZ: if (!stack[--sp]) pc = in.arg; break;
		case JMP: pc = in.arg; break;
		case HALT: return vars[3];
		}
	}
}

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 40000;
	/* vars: 0 = n, 1 = i, 2 = d, 3 = sum, 4 = prime; the program:
	 * for (i = 2; i < n; i++) { prime = 1; for (d = 2; d*d < i+1; d++) if (i % d == 0) { prime = 0; break; } if (prime) sum += i; } */
	Ins prog[] = {
		{PUSH, 2}, {STORE, 1},
		/* 2 */ {LOAD, 1}, {LOAD, 0}, {LT, 0}, {JZ, 35},
		/* 6 */ {PUSH, 1}, {STORE, 4}, {PUSH, 2}, {STORE, 2},
		/* 10 */ {LOAD, 2}, {LOAD, 2}, {MUL, 0}, {LOAD, 1}, {PUSH, 1}, {ADD, 0}, {LT, 0}, {JZ, 26},
		/* 18 */ {LOAD, 1}, {LOAD, 2}, {MOD, 0}, {JZ, 24},
		/* 22 */ {JMP, 30}, {HALT, 0},
		/* 24 */ {PUSH, 0}, {STORE, 4},
		/* 26 */ {LOAD, 4}, {JZ, 36}, {JMP, 38}, {HALT, 0},
		/* 30 */ {LOAD, 2}, {PUSH, 1}, {ADD, 0}, {STORE, 2}, {JMP, 10},
		/* 35 */ {HALT, 0},
		/* 36 */ {JMP, 42}, {HALT, 0},
		/* 38 */ {LOAD, 3}, {LOAD, 1}, {ADD, 0}, {STORE, 3},
		/* 42 */ {LOAD, 1}, {PUSH, 1}, {ADD, 0}, {STORE, 1}, {JMP, 2},
	};
	long vars[5] = {n, 0, 0, 0, 0};
	printf("%ld\n", run(prog, vars));
	return 0;
}
