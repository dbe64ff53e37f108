// Package sample traces native Linux x86-64 processes with ptrace: it samples bursts
// of consecutive program counters at a time interval (after Arnold & Grove) and, in
// exact mode, steps every instruction to build the exact dynamic CFG. Decoding uses
// golang.org/x/arch/x86/x86asm on the process's own memory; symbols and lines come
// from the ELF symbol table and DWARF of the mapped files.
//
// All ptrace requests are made by one goroutine locked to its OS thread, which owns
// the tracee; the tracee is never left stopped: on errors, at the end and on
// cancellation every traced thread is detached (or killed when we started it and it
// cannot be detached).
package sample
