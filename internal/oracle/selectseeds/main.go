// Command selectseeds chooses the csmith seeds of the oracle's corpus: it walks the
// seeds from -from upwards, generates each program with oracle.CsmithOptions, builds
// it with gcc -O0 and keeps it if it prints csmith's checksum within -limit; a seed
// whose program runs longer (csmith does not promise termination) is replaced by the
// next. It writes the list, with the seeds it replaced, to -o.
//
//	go run ./internal/oracle/selectseeds -n 32 -o internal/oracle/testdata/csmith-seeds.txt
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fragprof/fragprof/internal/oracle"
)

func main() {
	n := flag.Int("n", 32, "number of seeds to keep")
	from := flag.Int("from", 1, "first seed to try")
	limit := flag.Duration("limit", 500*time.Millisecond, "longest run kept (gcc -O0)")
	out := flag.String("o", "", "output file (default stdout)")
	flag.Parse()
	cache, err := os.MkdirTemp("", "selectseeds")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cache)
	csmith, err := exec.LookPath("csmith")
	if err != nil {
		log.Fatalf("csmith: %v; install with %s", err, oracle.InstallHint)
	}
	version, err := oracle.CsmithVersion(csmith)
	if err != nil {
		log.Fatal(err)
	}
	var kept []int
	var replaced []string
	for seed := *from; len(kept) < *n; seed++ {
		why, err := try(csmith, cache, seed, *limit)
		if err != nil {
			log.Fatal(err)
		}
		if why != "" {
			replaced = append(replaced, fmt.Sprintf("%d (%s)", seed, why))
			continue
		}
		kept = append(kept, seed)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# csmith seeds of the oracle corpus, chosen by internal/oracle/selectseeds\n")
	fmt.Fprintf(&b, "# (%s, options: %s;\n", version, strings.Join(oracle.CsmithOptions, " "))
	fmt.Fprintf(&b, "# kept when gcc -O0's build printed its checksum within %v).\n", *limit)
	if len(replaced) > 0 {
		fmt.Fprintf(&b, "# Replaced: %s.\n", strings.Join(replaced, ", "))
	}
	for _, s := range kept {
		fmt.Fprintf(&b, "%d\n", s)
	}
	if *out == "" {
		fmt.Print(b.String())
		return
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}

// try returns why seed's program is not kept, or "".
func try(csmith, cache string, seed int, limit time.Duration) (string, error) {
	p, err := oracle.CsmithProgram(csmith, cache, seed)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, fmt.Sprintf("seed%d", seed))
	args := append(append([]string{"-O0"}, p.CFlags...), p.Source, "-o", bin)
	if msg, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc on seed %d: %v\n%s", seed, err, msg)
	}
	// Ten times the limit tells a slow program from a stuck one in the log.
	ctx, cancel := context.WithTimeout(context.Background(), 10*limit)
	defer cancel()
	start := time.Now()
	stdout, err := exec.CommandContext(ctx, bin).Output()
	took := time.Since(start)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("no end within %v", 10*limit), nil
	case err != nil:
		return fmt.Sprintf("failed: %v", err), nil
	case took > limit:
		return fmt.Sprintf("ran %v", took.Round(time.Millisecond)), nil
	case !bytes.HasPrefix(stdout, []byte("checksum = ")):
		return "printed no checksum", nil
	}
	return "", nil
}
