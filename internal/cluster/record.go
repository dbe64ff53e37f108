// This file is the task's side: the share of a round's trials a task runs, and the
// record it writes when it ran all of them.

package cluster

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/profile"
)

// ShareSize returns how many of the trials from ≤ t < to shard i of k runs: those
// with t − from ≡ i (mod k).
func ShareSize(from, to, i, k uint64) uint64 {
	if k == 0 || to <= from+i {
		return 0
	}
	return (to - from - i + k - 1) / k
}

// A Record is what a task reports when it ran its whole share: the trials whose
// counts are in its profile and the trials left out (timeouts, crashes).
type Record struct {
	From     uint64    `json:"from"`
	To       uint64    `json:"to"`
	Shard    uint64    `json:"shard"`
	Shards   uint64    `json:"shards"`
	Trials   uint64    `json:"trials"` // in the profile
	Failures []Failure `json:"failures"`
	// Causes tallies the failures by cause ("signal SIGABRT", "timeout"), each with
	// its first trial.
	Causes  []Cause `json:"causes,omitempty"`
	Elapsed float64 `json:"elapsed_s"`
	Host    string  `json:"host"`
}

// Failure is a trial left out.
type Failure struct {
	Trial  uint64 `json:"trial"`
	Reason string `json:"reason"`
	Exit   int    `json:"exit"`
}

// Cause is one cause of failure in a task's share: how many trials it took, and the
// first.
type Cause struct {
	Cause  string `json:"cause"`
	Trials uint64 `json:"trials"`
	First  uint64 `json:"first"`
}

// WriteRecord writes the record of a task's run of trials from..to, shard/shards,
// atomically, after its profile was written. A run that did not do its whole share
// (interrupted) gets no record but an error: its partial profile must never be
// merged. A share whose every trial failed has a record and no profile.
func WriteRecord(name string, from, to, shard, shards uint64, res *montecarlo.Result) error {
	want := ShareSize(from, to, shard, shards)
	done := res.Trials + uint64(len(res.Failures))
	if done != want {
		return fmt.Errorf("the task ran %d of its %d trials (%s): no record written, its profile will not be used", done, want, res.Stopped)
	}
	host, _ := os.Hostname()
	r := Record{From: from, To: to, Shard: shard, Shards: shards, Trials: res.Trials,
		Failures: []Failure{}, Elapsed: res.Elapsed.Seconds(), Host: host}
	for _, f := range res.Failures {
		r.Failures = append(r.Failures, Failure{f.Trial, f.Reason, f.Exit})
	}
	for _, c := range res.Causes {
		r.Causes = append(r.Causes, Cause{c.Cause, c.Trials, c.First})
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(name, append(data, '\n'))
}

// readShare reads and checks a task's record and profile against the share it was
// given: a missing record is (nil, nil, nil); anything inconsistent is an error.
func readShare(recFile, profFile string, from, to, shard, shards uint64) (*Record, *profile.Profile, error) {
	r, err := readRecord(recFile)
	if r == nil || err != nil {
		return nil, nil, err
	}
	if r.From != from || r.To != to || r.Shard != shard || r.Shards != shards {
		return nil, nil, fmt.Errorf("%s: the record is of trials %d:%d shard %d/%d, not %d:%d shard %d/%d",
			recFile, r.From, r.To, r.Shard, r.Shards, from, to, shard, shards)
	}
	if n := r.Trials + uint64(len(r.Failures)); n != ShareSize(from, to, shard, shards) {
		return nil, nil, fmt.Errorf("%s: %d trials recorded for a share of %d", recFile, n, ShareSize(from, to, shard, shards))
	}
	var p *profile.Profile
	if r.Trials > 0 {
		if p, err = profile.ParseFile(profFile); err != nil {
			return nil, nil, err
		}
		if !p.HasStats() || uint64(p.Runs) != r.Trials {
			return nil, nil, fmt.Errorf("%s: %d runs with statistics=%v, the record says %d trials", profFile, p.Runs, p.HasStats(), r.Trials)
		}
	}
	return r, p, nil
}

// readRecord reads a task's record; a missing record is (nil, nil).
func readRecord(name string) (*Record, error) {
	data, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &Record{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return r, nil
}
