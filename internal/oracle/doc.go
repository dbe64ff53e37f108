// Package oracle checks fragprof's exact counts against independent oracles: gcc's
// own coverage instrumentation (gcc --coverage, read back with gcov --json-format)
// and the uninstrumented program's output. It is test-focused: the package holds
// the readers and the comparison (gcov's JSON, gcc's .gcno notes file, the example
// headers, the csmith corpus), and its tests run them on real programs built by real
// compilers: every examples/*.c and the csmith programs of testdata/csmith-seeds.txt,
// with clang 14 and clang 19, at -O0 and -O2; and the C++ programs examples/*.cpp and
// the CMake/Make project testdata/cxx/project against g++ --coverage.
//
// # The comparison
//
// gcov reports one count per source line, fragprof one count per basic block (with
// the source lines each block holds). The two are counts of the same code only on
// some lines, so Compare checks:
//
//   - on every line that both tools attribute to a single basic block, the counts
//     are equal;
//   - on every line both tools report, "executed or not" agrees (count > 0 for
//     gcov; some block holding the line has count > 0 for fragprof);
//   - every function both report has the same call count.
//
// A line is single-block on fragprof's side when exactly one block of the file's
// functions lists it among its Lines.
//
// On gcov's side the JSON does not say. gcc 12's line object carries only
// line_number, count, unexecuted_block, function_name and (with -b) the conditional
// arcs leaving the blocks that end on the line, and its count is not a block count:
// for a line that ends some blocks, gcov sums the arcs entering those blocks from
// other lines and adds the loops lying wholly on the line; otherwise it sums the
// counts of all blocks holding the line (gcov.cc, add_line_counts and
// accumulate_line_info). Neither "branches == []" nor "unexecuted_block == false"
// proves a line single-block: a for header's init and increment blocks carry no
// branch, and a line split by a call is two blocks that ran equally often. So the
// oracle reads the block → lines table and the arcs from gcc's notes file (.gcno,
// the file gcov itself reads; ReadNotes) and applies gcov's rule to it
// (Notes.SingleBlockLines): the gcc blocks holding the line must lie in one
// straight-line chain — gcc ends a block after every call that may not return, so
// one basic block in the usual sense, and one of clang's, is a chain of gcc blocks
// each entered only from the one before — and gcov's sum over them must reduce to
// the chain's count.
//
// The gcc build adds -fstack-reuse=none. Without it gcc ends every scope with
// "clobber" statements for the scope's locals that carry the location of one of the
// scope's lines but sit on the paths that leave the scope, so gcov reports a
// "return x;" whose branch never ran as executed (and even counts it).
//
// A line that holds nothing but a label (LabelLines) is left out of the
// executed-or-not check: gcc gives it to the block that falls into the label, clang
// to the block the label starts, which a goto may enter alone.
//
// A run that does not return from main (exit() from a nested call) leaves, in every
// function on the stack, one block entered but not finished: fragprof counts block
// entries, gcov the call-free pieces gcc ends at each call, so the code after the
// call that never returned ran once for fragprof and never for gcov. For such runs
// Compare accepts fragprof's count being one above gcov's, and a line executed for
// fragprof only if its blocks ran at most once. A run killed by a signal leaves no
// gcov data at all (gcov writes its counts at exit), so only fragprof's own checks
// apply to it.
//
// # Running
//
// go test -tags integration ./internal/oracle runs everything (about two minutes on
// two cores; without the tag only the tests that need no compiler run); -short
// leaves out the csmith corpus. $FRAGPROF_ORACLE_SEEDS names another seed list for a
// longer soak (make one with go run ./internal/oracle/selectseeds); csmith's
// programs are cached under the user cache directory, or $FRAGPROF_ORACLE_CACHE.
// A missing tool fails the tests with the command that installs it.
package oracle
