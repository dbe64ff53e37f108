// deep.c: a call chain main → top → mid → leaf for the call-stack tests.
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long leaf(unsigned long x, long n) { for (long i = 0; i < n; i++) x = x * 6364136223846793005UL + (x >> 7); return x; }
__attribute__((noinline)) unsigned long mid(unsigned long x, long n) { return leaf(x, n) ^ leaf(x + 1, n / 2); }
__attribute__((noinline)) unsigned long top(unsigned long x, long n) { return mid(x, n) + 1; }
int main(int argc, char **argv) { long n = argc > 1 ? atol(argv[1]) : 100000000; printf("%lu\n", top(3, n)); return 0; }
