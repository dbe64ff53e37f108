// Command irbench times fragprof's IR step — read (llvmir.Parse), instrument
// (instrument.Module), write (Module.Bytes) — on real C programs: it compiles each
// C file to IR with fragprof's flags (build.IRFlags) by the clang it is given, then
// repeats the step and prints the median wall time, throughput and CPU time. For context it
// also times the whole instrumented build (fragprof's Build: IR, instrument, clang
// -O2, link) against clang -O2 alone on the same file.
//
//	go run ./bench/irbench [-clang clang-16] [-n 10] [-I dir] prog.c...
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/llvmir"
)

func main() {
	clang := flag.String("clang", "clang", "the clang to emit IR and compile with")
	n := flag.Int("n", 10, "repetitions of the IR step")
	builds := flag.Int("builds", 3, "repetitions of the whole builds")
	var incs multiFlag
	flag.Var(&incs, "I", "include directory for the C files (repeatable)")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: irbench [-clang CLANG] [-n N] [-I DIR] FILE.c...")
	}
	tc, err := build.NewToolchain(*clang)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "irbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var cflags []string
	for _, i := range incs {
		cflags = append(cflags, "-I", i)
	}
	cflags = append(cflags, "-w")
	ctx := context.Background()
	fmt.Printf("| file | clang | IR (MB) | functions | read+instrument+write: wall ms (median of %d) | MB/s | CPU ms | instrumented build (s) | clang -O2 (s) |\n", *n)
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, src := range flag.Args() {
		ll := filepath.Join(dir, "in.ll")
		if err := tc.EmitIR(ctx, os.Stderr, src, ll, cflags); err != nil {
			log.Fatal(err)
		}
		ir, err := os.ReadFile(ll)
		if err != nil {
			log.Fatal(err)
		}
		var times, cpus []time.Duration
		funcs := 0
		for i := 0; i < *n; i++ {
			start, startCPU := time.Now(), cpuTime()
			m, err := llvmir.ParseDialect(ll, ir, tc.OpaquePointers(cflags))
			if err != nil {
				log.Fatal(err)
			}
			if _, err := instrument.Module(m, instrument.Options{Source: src}); err != nil {
				log.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "out.ll"), m.Bytes(), 0o644); err != nil {
				log.Fatal(err)
			}
			times = append(times, time.Since(start))
			cpus = append(cpus, cpuTime()-startCPU)
			funcs = len(m.Funcs)
		}
		med := median(times)
		spec := build.Spec{Sources: []string{src}, CFlags: cflags, Opt: "-O2"}
		var fpTimes, plainTimes []time.Duration
		for i := 0; i < *builds; i++ {
			start := time.Now()
			if _, err := tc.Build(ctx, io.Discard, spec, dir, filepath.Join(dir, "prog.fp")); err != nil {
				log.Fatal(err)
			}
			fpTimes = append(fpTimes, time.Since(start))
			start = time.Now()
			args := append(append([]string{"-O2"}, cflags...), src, "-o", filepath.Join(dir, "prog"), "-lm")
			if out, err := exec.Command(tc.Clang, args...).CombinedOutput(); err != nil {
				log.Fatalf("%s %s: %v\n%s", tc.Clang, strings.Join(args, " "), err, out)
			}
			plainTimes = append(plainTimes, time.Since(start))
		}
		fmt.Printf("| %s | %d | %.2f | %d | %.1f | %.1f | %.1f | %.2f | %.2f |\n", filepath.Base(src), tc.Major,
			float64(len(ir))/1e6, funcs, float64(med.Microseconds())/1e3, float64(len(ir))/1e6/med.Seconds(),
			float64(median(cpus).Microseconds())/1e3, median(fpTimes).Seconds(), median(plainTimes).Seconds())
	}
}

// cpuTime returns the CPU time (user and system) this process has used, garbage
// collection included; unlike wall time it does not grow with other processes' load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ts []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
