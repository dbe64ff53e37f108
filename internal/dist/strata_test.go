package dist

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScheduleProportional: the strata of the trials, worked by hand. Sizes 20
// and 60, pilot 10: trials 0–9 go to stratum 0, 10–19 to stratum 1 (the
// pilot); trial 20 to the one furthest below its share of 21, 1 (0.75·21 − 10
// = 5.75 against 0.25·21 − 10 = −4.75); from then on every n trials hold each
// stratum's share within one, and trials 0 … 79 hold each stratum whole, each
// draw k = 0 … N_h − 1 once. Trial 80 + i is trial i of the next epoch: the
// same stratum, its draw + N_h.
func TestScheduleProportional(t *testing.T) {
	s := NewSchedule([]uint64{20, 60}, Proportional)
	seen := [2]map[uint64]bool{{}, {}}
	for i := range uint64(80) {
		h, k, err := s.Stratum(i)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 0, false: 1}[i < 10]; i < 20 && h != want {
			t.Errorf("pilot trial %d: stratum %d, want %d", i, h, want)
		}
		if i == 20 && h != 1 {
			t.Errorf("trial 20: stratum %d, want 1", h)
		}
		if seen[h][k] {
			t.Errorf("trial %d: draw %d of stratum %d twice", i, k, h)
		}
		seen[h][k] = true
		if n := i + 1; n >= 40 {
			c := s.Counts(n)
			if d := float64(c[0]) - float64(n)/4; d > 1 || d < -1 {
				t.Errorf("after %d trials stratum 0 holds %d, want %g ± 1", n, c[0], float64(n)/4)
			}
		}
	}
	if len(seen[0]) != 20 || len(seen[1]) != 60 {
		t.Errorf("trials 0–79 drew %d and %d, want 20 and 60", len(seen[0]), len(seen[1]))
	}
	h0, k0, _ := s.Stratum(5)
	h1, k1, _ := s.Stratum(85)
	if h1 != h0 || k1 != k0+20 {
		t.Errorf("trial 85: (%d, %d), want (%d, %d)", h1, k1, h0, k0+20)
	}
	if got := []uint64{s.RoundStart(0), s.RoundStart(1), s.RoundStart(2), s.RoundStart(3)}; fmt.Sprint(got) != "[0 20 25 32]" {
		t.Errorf("round starts %v, want [0 20 25 32]", got)
	}
}

// TestScheduleNeyman: round 1 (trials 20–24) of strata of 20 and 60 with
// S = 52.2233 and 1.6624: S̄ = (20·52.2233 + 60·1.6624)/80 = 14.3026, the
// shares 20·52.2233 = 1044.47 and 60·max(1.6624, 7.1513) = 429.08, so stratum
// 0's target at trial 20 is 1044.47/1473.54·21 = 14.885, 4.885 above its 10
// draws: stratum 0 (proportional allocation gives stratum 1). A trial of a
// round not planned fails; planning it again changes nothing.
func TestScheduleNeyman(t *testing.T) {
	s := NewSchedule([]uint64{20, 60}, Neyman)
	for i := range uint64(20) {
		if _, _, err := s.Stratum(i); err != nil {
			t.Fatalf("pilot trial %d: %v", i, err)
		}
	}
	if _, _, err := s.Stratum(20); err == nil || !strings.Contains(err.Error(), "round 1") {
		t.Fatalf("trial 20 before round 1 is planned: %v, want an error naming round 1", err)
	}
	if err := s.Plan(1, []float64{52.2233, 1.6624}); err != nil {
		t.Fatal(err)
	}
	if err := s.Plan(1, []float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	if h, _, err := s.Stratum(20); err != nil || h != 0 {
		t.Errorf("trial 20 under Neyman: stratum %d (%v), want 0", h, err)
	}
	if err := s.Plan(3, []float64{1, 1}); err == nil {
		t.Error("planning round 3 before round 2: no error")
	}
}

// stratifiedCorpus writes a corpus of small files in dir small/, large ones in
// large/ and one rare file in rare/.
func stratifiedCorpus(t *testing.T) string {
	dir := t.TempDir()
	write := func(sub string, n, size int) {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		for i := range n {
			os.WriteFile(filepath.Join(dir, sub, fmt.Sprintf("%s%d.txt", sub, i)), []byte(strings.Repeat("x", size+i)), 0o644)
		}
	}
	write("small", 12, 10)
	write("large", 6, 1000)
	write("rare", 1, 5000)
	return dir
}

// TestFileStrata: strata = dir and strata = size(…) divide the files as
// written, trials 0 … N−1 draw every file once, each stratum whole, in the
// order of the schedule, and the same seed draws the same files.
func TestFileStrata(t *testing.T) {
	dir := stratifiedCorpus(t)
	m := mustParse(t, fmt.Sprintf(`f = file(%q; strata = dir)`, dir+"/**/*.txt"))
	st := m.Strata()
	if st == nil || st.Input != "f" || st.Key != "dir" || st.Alloc != Proportional ||
		fmt.Sprint(st.Names, st.Sizes) != "[large rare small] [6 1 12]" {
		t.Fatalf("Strata = %+v", st)
	}
	names := drawAll(t, m, "{f:path}", 3, 19)
	seen := map[string]bool{}
	for i, p := range names {
		if seen[p] {
			t.Errorf("trial %d drew %s again", i, p)
		}
		seen[p] = true
		h, _, _ := st.Schedule.Stratum(uint64(i))
		if want := st.Names[h]; filepath.Base(filepath.Dir(p)) != want {
			t.Errorf("trial %d drew %s, not of its stratum %s", i, p, want)
		}
	}
	if again := drawAll(t, m, "{f:path}", 3, 19); fmt.Sprint(again) != fmt.Sprint(names) {
		t.Error("the same seed drew other files")
	}
	m = mustParse(t, fmt.Sprintf(`f = file(%q; strata = size(100, 2000, 1e6), alloc = neyman)`, dir+"/**/*.txt"))
	st = m.Strata()
	if fmt.Sprint(st.Names, st.Sizes) != "[size in [0, 100) size in [100, 2000) size in [2000, 1000000)] [12 6 1]" || st.Alloc != Neyman {
		t.Fatalf("size strata = %v %v %v", st.Names, st.Sizes, st.Alloc)
	}
}

// TestRowStrata: rows(…; strata = COLUMN) divides the rows by the column's
// values.
func TestRowStrata(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "calls.csv")
	os.WriteFile(csv, []byte("kind:string,n\na,1\nb,2\na,3\nc,4\na,5\n"), 0o644)
	m := mustParse(t, fmt.Sprintf(`r = rows(%q; strata = kind)`, csv))
	st := m.Strata()
	if st == nil || fmt.Sprint(st.Names, st.Sizes) != "[kind = a kind = b kind = c] [3 1 1]" {
		t.Fatalf("Strata = %+v", st)
	}
	s := m.NewSample()
	got := map[int64]bool{}
	for i := range uint64(5) {
		if err := m.DrawInto(s, 1, i); err != nil {
			t.Fatal(err)
		}
		v, _ := s.Get("n")
		got[v.Int] = true
	}
	if len(got) != 5 {
		t.Errorf("trials 0–4 drew rows %v, want each once", got)
	}
}

// TestStrataErrors: a wrong option is an error at its place.
func TestStrataErrors(t *testing.T) {
	dir := stratifiedCorpus(t)
	csv := filepath.Join(dir, "calls.csv")
	os.WriteFile(csv, []byte("kind,n\na,1\n"), 0o644)
	glob := fmt.Sprintf("%q", dir+"/**/*.txt")
	for _, c := range []struct{ text, want string }{
		{`f = file(` + glob + `; strata = name)`, "file strata must be dir or size(…), got input name 'name' at 1:"},
		{`f = file(` + glob + `; alloc = neyman)`, "file has alloc but no strata at 1:"},
		{`f = file(` + glob + `; strata = dir, alloc = optimal)`, "alloc must be proportional or neyman, got input name 'optimal' at 1:"},
		{`f = file(` + glob + `; strata = size(100, 50))`, "size class bound must be an integer above 0 and the bound before it, got 50 at 1:"},
		{`f = file(` + glob + `; weight = size, strata = dir)`, "takes no strata at 1:"},
		{`f = file(` + glob + `; strata = dir, color = red)`, "file takes only the options weight = size, strata and alloc, got color = red"},
		{`r = rows("` + csv + `"; strata = knd)`, "rows strata must name a column of the file, got input name 'knd' at 1:"},
		{`r = rows("` + csv + `"; weight = size)`, "rows takes no option 'weight'"},
	} {
		_, err := Parse(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestTwoStrata: two stratified populations are an error at the second.
func TestTwoStrata(t *testing.T) {
	glob := fmt.Sprintf("%q", stratifiedCorpus(t)+"/**/*.txt")
	_, err := Parse("f = file(" + glob + "; strata = dir)\ng = file(" + glob + "; strata = dir)")
	if err == nil || !strings.Contains(err.Error(), "inputs f and g are both stratified populations at 2:1") {
		t.Errorf("error %v", err)
	}
}

// TestSchedulePin: a trial of a Neyman round, named by TrialID in the run that
// planned it ("21:0:11"), draws the same stratum and draw in a schedule that
// never planned the round, once pinned; a pilot trial is named by its number
// alone and refuses another stratum; a trial not pinned still fails.
func TestSchedulePin(t *testing.T) {
	run := NewSchedule([]uint64{20, 60}, Neyman)
	if err := run.Plan(1, []float64{52.2233, 1.6624}); err != nil {
		t.Fatal(err)
	}
	if got := run.TrialID(21); got != "21:0:11" {
		t.Fatalf("TrialID(21) = %q, want 21:0:11 (trials 20 and 21 go to stratum 0, its draws 10 and 11)", got)
	}
	if got := run.TrialID(3); got != "3" {
		t.Errorf("TrialID(3) = %q, want 3 (a pilot trial)", got)
	}
	replay := NewSchedule([]uint64{20, 60}, Neyman)
	if err := replay.Pin(21, 0, 11); err != nil {
		t.Fatal(err)
	}
	if h, k, err := replay.Stratum(21); err != nil || h != 0 || k != 11 {
		t.Errorf("pinned trial 21: stratum %d draw %d (%v), want 0, 11", h, k, err)
	}
	if _, _, err := replay.Stratum(22); err == nil {
		t.Errorf("trial 22, neither planned nor pinned, has a stratum")
	}
	if err := replay.Pin(3, 1, 0); err == nil || !strings.Contains(err.Error(), "trial 3 is draw 3 of stratum 0") {
		t.Errorf("pinning pilot trial 3 elsewhere: %v, want it named as draw 3 of stratum 0", err)
	}
	if err := replay.Pin(30, 2, 0); err == nil {
		t.Errorf("pinning to stratum 2 of 2 strata: no error")
	}
}
