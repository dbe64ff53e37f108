// This file is what the coordinator tells the user while it waits and when a run
// fails: the probe of the run directory before anything is submitted, what the
// tasks wait for, the end of a failed task's output, and the run's failed trials
// judged as freq --max-fail judges them on one machine.

package cluster

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// probe runs one short job that checks, on a node, what every task needs of the run
// directory: that it is the coordinator's directory (a token written here is read
// there: a node-local directory of the same name holds none), that bin/fragprof
// runs, and that the task's user can write there. It returns the cause when not.
func (c *Coordinator) probe(ctx context.Context) error {
	j := c.J
	token := strconv.FormatInt(time.Now().UnixNano(), 36)
	tokFile, okFile := filepath.Join(c.Dir, "probe.token"), filepath.Join(c.Dir, "probe.ok")
	logFile, script := filepath.Join(c.Dir, "probe.log"), filepath.Join(c.Dir, "probe.sh")
	for _, f := range []string{okFile, logFile} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.WriteFile(tokFile, []byte(token+"\n"), 0o644); err != nil {
		return err
	}
	d := shellQuote(c.Dir)
	body := fmt.Sprintf(`#!/bin/sh
# fragprof freq: can a task of the run in %[1]s use its directory?
d=%[1]s
[ "$(cat "$d/probe.token" 2>/dev/null)" = %[2]s ] || { echo "$d on node $(hostname) is not the directory the coordinator writes (its probe.token is missing or another): put the run directory on a file system the nodes share"; exit 3; }
"$d/bin/fragprof" --help >/dev/null || { echo "$d/bin/fragprof does not run on node $(hostname)"; exit 4; }
echo "${SLURMD_NODENAME:-$(hostname -s)} $(id -un)" > "$d/probe.ok.$$" && mv "$d/probe.ok.$$" "$d/probe.ok" || { echo "user $(id -un) on node $(hostname) cannot write in $d"; exit 5; }
`, d, token)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		return err
	}
	id, err := c.Engine.Submit(ctx, Job{Name: j.Name, Script: script, Log: logFile, Tasks: []int{0}, CPUs: 1})
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c.Engine.Cancel(cctx, id)
		}
	}()
	start := time.Now()
	var endedAt time.Time
	for {
		if data, err := os.ReadFile(okFile); err == nil {
			done = true
			for _, f := range []string{okFile, logFile, script, tokFile} {
				os.Remove(f)
			}
			c.localDir(ctx, strings.Fields(string(data)))
			return nil
		}
		active, err := c.Engine.Active(ctx, j.Name, []string{id})
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			c.logf("asking the batch system about the probe job %s: %v (will ask again)", id, err)
		case len(active) > 0:
			endedAt = time.Time{}
			c.wait(ctx, "the probe job "+id+" (does a task see and write "+c.Dir+"?)", start, active)
		case endedAt.IsZero():
			endedAt = time.Now() // ended: its file may take a moment to show
		case time.Since(endedAt) > 2*time.Second:
			done = true
			st := c.Engine.Ended(ctx, id, 0)
			if st == "" {
				st = "ended"
			}
			return fmt.Errorf("the probe job %s, which checks before the tasks are submitted that they can use the run directory, %s: %s",
				id, st, outputTail(logFile, c.Dir))
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(max(100*time.Millisecond, time.Since(start)/20), 10*time.Second)):
		}
	}
}

// sharedFS are the magic numbers (statfs f_type) of the file systems that nodes
// share: NFS, SMB/CIFS, Lustre, GPFS, BeeGFS, CephFS, GlusterFS and others on FUSE,
// 9p, AFS, OrangeFS, PanFS.
var sharedFS = map[int64]bool{0x6969: true, 0xFF534D42: true, 0xFE534D42: true, 0x517B: true, 0x0BD00BD0: true,
	0x47504653: true, 0x19830326: true, 0x00C36400: true, 0x65735546: true, 0x01021997: true, 0x5346414F: true,
	0x20030528: true, 0xAAD7AAEA: true}

// localDir warns when the run directory is on a file system of this machine alone
// and the partition has nodes besides the one the probe ran on (probe: its host and
// user): the probe passed there, and a task on another node would not see the
// directory.
func (c *Coordinator) localDir(ctx context.Context, probe []string) {
	var fs syscall.Statfs_t
	if syscall.Statfs(c.Dir, &fs) != nil || sharedFS[int64(fs.Type)] || len(probe) == 0 {
		return
	}
	nodes, err := c.Engine.Nodes(ctx)
	if err != nil {
		return
	}
	var others []string
	for _, n := range nodes {
		if n != probe[0] {
			others = append(others, n)
		}
	}
	if len(others) > 0 {
		c.logf("warning: %s is on a file system local to one machine (type %#x), and the probe ran on node %s only: a task on %s may not see it; put the run directory on a file system the nodes share",
			c.Dir, fs.Type, probe[0], strings.Join(others[:min(len(others), 3)], ", "))
	}
}

// wait tells what the tasks of what are waiting for, when it matters: as soon as
// something keeps them from running (Engine.Stuck: held, nodes down or drained),
// when their states change after the first half minute, and every five minutes.
func (c *Coordinator) wait(ctx context.Context, what string, since time.Time, active map[TaskRef]string) {
	states := map[string]int{}
	for _, st := range active {
		states[st]++
	}
	if len(states) == 0 {
		return
	}
	stuck := c.Engine.Stuck(ctx, active)
	key := strings.Join(append(slices.Sorted(maps.Keys(states)), stuck...), "\n")
	changed := key != c.waiting
	if c.waitingAt.Before(since) {
		c.waitingAt = since
	}
	if !(len(stuck) > 0 && changed || changed && time.Since(since) > 30*time.Second || time.Since(c.waitingAt) > 5*time.Minute) {
		return
	}
	c.waiting, c.waitingAt = key, time.Now()
	c.logf("%s: waiting %s for %s", what, time.Since(since).Round(time.Second), StateCounts(states))
	for _, s := range stuck {
		c.logf("  %s", s)
	}
}

// StateCounts writes task states and their counts: "3 RUNNING, 2 PENDING (Resources)".
func StateCounts(states map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(states), func(a, b string) int {
		return cmp.Or(cmp.Compare(states[b], states[a]), cmp.Compare(a, b))
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", states[k], k))
	}
	return strings.Join(parts, ", ")
}

// logTail says what a task that ended without a record left in its output file.
func logTail(name string) string {
	return outputTail(name, filepath.Dir(filepath.Dir(name)))
}

// outputTail returns the last lines of a job's output file name, or, when there is
// none, that the node could not write it in dir.
func outputTail(name, dir string) string {
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("it left no output (%s does not exist): the node could not write in %s; the run directory must be on a file system the nodes share, writable by the tasks' user", name, dir)
	}
	if err != nil {
		return err.Error()
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if l := strings.TrimSpace(string(l)); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "its output " + name + " is empty"
	}
	lines = lines[max(0, len(lines)-3):]
	return fmt.Sprintf("its output %s ends: %s", name, strings.Join(lines, " | "))
}
