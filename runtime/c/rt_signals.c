/* rt_signals.c: how a process ends (layer 4; fp_internal.h lists the layers). A
 * process that exits writes its dump after every atexit handler and destructor of
 * the program; one that calls _exit writes it first; one that a fatal signal kills
 * (Ctrl-C, a crash, a timeout's SIGTERM) writes it in the signal's handler, with the
 * fault record of a fault the kernel raised, and dies of the same signal
 * (docs/runtime.md, "How a program ends"). It calls rt_dump.c and walk.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "fp_internal.h"

/* _exit and _Exit end a process without its exit handlers, so without the dump at
 * exit: the runtime defines them, and the program's calls (a forked child's usual
 * end) write the dump first. A vfork child, which shares its parent's memory and
 * whose owner is its parent, writes none. The C library's own exits (exit(), abort)
 * do not come here in a dynamically linked program; in a static one, exit() does,
 * after the dump. Weak: a program that defines its own _exit keeps it. */
__attribute__((weak)) void _exit(int status) {
	if (fp_getpid() == __fragprof_owner)
		__fragprof_dump(0);
	fp_exit(status);
}
void _Exit(int status) __attribute__((weak, alias("_exit")));

static const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
                            SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ};

/* note_fault keeps the fault record of a fault the kernel raised (rt_dump.c), and
 * counts where the faulting thread's stack stopped (walk.c). */
static void note_fault(int sig, const siginfo_t *si, const void *uc) {
	if (si->si_code <= 0)
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
	if (__fragprof_keep_fault(pc, (uint64_t)(uintptr_t)si->si_addr, (int64_t)si->si_code, sp))
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

/* __fragprof_catch_signals installs on_signal for every fatal signal the program was
 * not started with ignored, on a stack of its own (a stack overflow leaves none). */
void __fragprof_catch_signals(void) {
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

/* Runs after the program's own atexit handlers and destructors. */
__attribute__((destructor(101))) static void at_exit(void) { __fragprof_dump(0); }
