package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/profile"
	pprof "github.com/google/pprof/profile"
)

// TestExportPprofOldProfile: a profile written before calls were recorded (format
// 1.1) exports to pprof as before, one single-frame sample per executed block.
func TestExportPprofOldProfile(t *testing.T) {
	src := filepath.Join("testdata", "small-v1.1.fpp")
	pb := filepath.Join(t.TempDir(), "old.pb.gz")
	if _, stderr, code := cli(t, "", "export", src, "--format", "pprof", "-o", pb); code != 0 {
		t.Fatalf("export pprof: exit %d\n%s", code, stderr)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pp, err := pprof.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseFile(src)
	if err != nil {
		t.Fatal(err)
	}
	executed := 0
	for _, c := range p.Counts {
		for _, n := range c.Blocks {
			if n > 0 {
				executed++
			}
		}
	}
	if len(pp.Sample) != executed {
		t.Errorf("%d samples for %d executed blocks", len(pp.Sample), executed)
	}
	for _, s := range pp.Sample {
		if len(s.Location) != 1 {
			t.Errorf("a sample with %d frames", len(s.Location))
		}
	}
}
