// This file is the run directory, which is the journal of a run:
//
//	DIR/journal.json        the run's settings, its rounds, their jobs and tasks
//	DIR/bin/fragprof, prog  the executables every task runs (copied once)
//	DIR/inputs.toml         the input model file, when there is one
//	DIR/rNNN/job.sS.sh      the script of round NNN's S-th submission
//	DIR/rNNN/tI.sS.log      task I's output in that submission
//	DIR/rNNN/tI.sS.fpp      its profile, and tI.sS.json its record (written last,
//	                        only when the task ran its whole share)
//	DIR/rNNN/merged.fpp     every trial of rounds 1..NNN, merged
//
// journal.json is rewritten atomically after every change, before the change is
// acted on where that matters (a round is planned before it is submitted).

package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/stats"
)

// Spec is everything a run needs, kept in the journal so that Resume needs only the
// directory.
type Spec struct {
	Engine string `json:"engine"`
	Slurm  *Slurm `json:"slurm,omitempty"`
	// TaskArgs are the freq flags every task gets besides --binary, --shard,
	// --trial-range and --profile: the inputs, the seed, isolation, timeouts, --jobs.
	TaskArgs []string `json:"task_args"`
	Counters int      `json:"counters"` // of the instrumented binary; 0: unknown
	// Rule and Thresholds are the stopping rule, by its name (stopping.Names), and
	// its settings: Open's Judge is made from them.
	Rule       string           `json:"rule"`
	Thresholds stats.Thresholds `json:"thresholds"`
	MaxTrials  uint64           `json:"max_trials"`
	Tasks      int              `json:"tasks"`        // K, the tasks of a round
	CPUs       int              `json:"cpus"`         // per task
	Attempts   int              `json:"max_attempts"` // per task and round
	// MaxFail stops the run when more than this fraction of its trials failed,
	// counted from the 100th trial on, as freq --max-fail does on one machine
	// (0: 0.1; 1: never). The tasks run their whole shares whatever fails: the
	// coordinator judges the failures of the whole run.
	MaxFail float64 `json:"max_fail,omitempty"`
	// Report holds how the caller reports the result (its flags), for Resume.
	Report map[string]string `json:"report,omitempty"`
	// Exhaustive runs trials 0 … MaxTrials−1, every member of a finite
	// population of MaxTrials once, in one round, whatever the rule says before.
	Exhaustive bool `json:"exhaustive,omitempty"`
}

// Journal is the state of a run.
type Journal struct {
	Version int       `json:"version"`
	Name    string    `json:"name"` // the job name of every submission
	Started time.Time `json:"started"`
	Spec    Spec      `json:"spec"`
	Rounds  []*Round  `json:"rounds"`
	// Stopped says why the run ended; "" while it runs.
	Stopped string `json:"stopped,omitempty"`
}

// A Round is trials From ≤ t < To, shared by len(Tasks) tasks: task i runs trials
// From+i, From+i+K, ... .
type Round struct {
	From   uint64        `json:"from"`
	To     uint64        `json:"to"`
	Tasks  []*Task       `json:"tasks"`
	Jobs   []*Submission `json:"jobs"`
	Merged bool          `json:"merged"` // rNNN/merged.fpp holds every trial up to To
}

// A Submission is one job of a round.
type Submission struct {
	Seq   int       `json:"seq"`
	ID    string    `json:"id"`
	Tasks []int     `json:"tasks"`
	At    time.Time `json:"at"`
}

// A Task is one share of a round.
type Task struct {
	// Seq is the submission that runs or ran it last (-1: none yet, or to be
	// submitted again); Attempts counts its submissions, at most Allowed (0:
	// Spec.Attempts; a resumed run grants a task that had used them up as many again).
	Seq      int  `json:"seq"`
	Attempts int  `json:"attempts"`
	Allowed  int  `json:"allowed,omitempty"`
	Accepted bool `json:"accepted"`         // its record and profile of submission Seq are the round's
	Failed   int  `json:"failed,omitempty"` // the failed trials its accepted record lists
	// Errors says why earlier attempts were not accepted.
	Errors []string `json:"errors,omitempty"`

	endedAt time.Time // when it was first seen ended without a record (not kept)
}

const journalVersion = 1

func journalPath(dir string) string { return filepath.Join(dir, "journal.json") }

func roundDir(dir string, r int) string { return filepath.Join(dir, fmt.Sprintf("r%03d", r+1)) }

func taskFile(dir string, r, task, seq int, ext string) string {
	return filepath.Join(roundDir(dir, r), fmt.Sprintf("t%d.s%d.%s", task, seq, ext))
}

func mergedFile(dir string, r int) string { return filepath.Join(roundDir(dir, r), "merged.fpp") }

// ReadJournal reads DIR/journal.json.
func ReadJournal(dir string) (*Journal, error) {
	data, err := os.ReadFile(journalPath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a run directory of fragprof freq --engine (no journal.json)", dir)
	}
	if err != nil {
		return nil, err
	}
	j := &Journal{}
	if err := json.Unmarshal(data, j); err != nil {
		return nil, fmt.Errorf("%s: %v", journalPath(dir), err)
	}
	if j.Version != journalVersion {
		return nil, fmt.Errorf("%s: journal version %d, this fragprof reads %d", journalPath(dir), j.Version, journalVersion)
	}
	return j, nil
}

func (j *Journal) save(dir string) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(journalPath(dir), append(data, '\n'))
}

// lock takes DIR/lock for this process: two coordinators of one run would submit
// its tasks twice. The lock ends with the process.
func lock(dir string) (io.Closer, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: another fragprof coordinates this run (the lock is held): %v", dir, err)
	}
	return f, nil
}

// copyExecutable copies an executable into the run directory, so that every task
// runs the same bytes however the original changes.
func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(dst, data); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755)
}
