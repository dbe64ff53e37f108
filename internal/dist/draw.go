// This file implements drawing one trial's values: Sample, Draw and
// DrawInto.

package dist

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Sample holds the values of one trial. Values[k] is the value of
// Model.Inputs[k]. A Sample is reused from trial to trial by DrawInto,
// which keeps the storage of arrays and strings; it is not safe for
// concurrent use, so each worker keeps its own.
type Sample struct {
	Seed   uint64  // the seed of the last draw
	Trial  uint64  // the trial number of the last draw
	Values []Value // Values[k] is the value of Model.Inputs[k]

	model       *Model
	pcg, subPCG rand.PCG
	rng, subRng *rand.Rand
	cur         int         // index of the input being drawn
	key         uint64      // its stream key
	unit        int         // trials per Latin hypercube unit (SetUnit); ≤ 1: independent
	perm        []int       // the current unit's permutation (latin.go)
	perms       []permCache // per input: its population's permutation (population.go)
	sperms      []permCache // per stratum: its permutation (strata.go)
}

// NewSample returns an empty Sample for m's values, to be filled by DrawInto.
func (m *Model) NewSample() *Sample {
	s := &Sample{model: m, Values: make([]Value, len(m.Inputs))}
	s.rng = rand.New(&s.pcg)
	s.subRng = rand.New(&s.subPCG)
	for k, in := range m.Inputs {
		s.Values[k].Kind = in.Kind
	}
	return s
}

// Draw returns the values of trial number trial under seed. They depend on
// (seed, trial) and the model only: drawing the same trial again, on any
// worker, in any order, gives the same values. The error, rare, reports an
// array or string length drawn outside [0, MaxLen].
func (m *Model) Draw(seed, trial uint64) (*Sample, error) {
	s := m.NewSample()
	return s, m.DrawInto(s, seed, trial)
}

// DrawInto is Draw into s, a Sample made by m.NewSample, reusing its
// storage: in steady state it allocates nothing.
func (m *Model) DrawInto(s *Sample, seed, trial uint64) error {
	if s.model != m {
		panic("dist: DrawInto with a Sample of another Model")
	}
	s.Seed, s.Trial = seed, trial
	for _, k := range m.order {
		s.cur, s.key = k, m.keys[k]
		seedStream(&s.pcg, seed, trial, s.key)
		if err := m.gens[k].draw(s, &s.Values[k]); err != nil {
			return err
		}
	}
	return nil
}

// RedrawInto draws again, into s (a Sample of m already drawn), the inputs named in
// names and every input that reads one of them, from the streams of (seed, trial);
// the other inputs keep the values s holds. It gives a trial's repetitions new
// nuisance data (another random array for the same size) while the inputs a model
// is asked about stay as drawn; the values depend only on (seed, trial), s's other
// values and the model. An unknown name is an error.
func (m *Model) RedrawInto(s *Sample, seed, trial uint64, names []string) error {
	if s.model != m {
		panic("dist: RedrawInto with a Sample of another Model")
	}
	redraw := make([]bool, len(m.Inputs))
	for _, n := range names {
		k, ok := m.index[n]
		if !ok {
			return fmt.Errorf("no input named %q", n)
		}
		redraw[k] = true
	}
	for _, k := range m.order { // dependencies come first
		for _, d := range m.Inputs[k].Deps {
			if redraw[m.index[d]] {
				redraw[k] = true
			}
		}
	}
	for _, k := range m.order {
		if !redraw[k] {
			continue
		}
		s.cur, s.key = k, m.keys[k]
		seedStream(&s.pcg, seed, trial, s.key)
		if err := m.gens[k].draw(s, &s.Values[k]); err != nil {
			return err
		}
	}
	return nil
}

// Model returns the model s draws from.
func (s *Sample) Model() *Model { return s.model }

// Get returns the value of the named input.
func (s *Sample) Get(name string) (Value, bool) {
	k, ok := s.model.index[name]
	if !ok {
		return Value{}, false
	}
	return s.Values[k], true
}

// String returns the values one per line, "name = value", in definition
// order: the inputs of the trial, for a report or a replay. A file() input
// shows the file's path and size rather than its contents.
func (s *Sample) String() string {
	var b strings.Builder
	for k, in := range s.model.Inputs {
		b.WriteString(in.Name)
		b.WriteString(" = ")
		if g, ok := s.model.gens[k].(*fileGen); ok {
			v := s.Values[k]
			b.WriteString(sprintf("file %q (%d bytes)", g.paths[v.Int], len(v.Bytes)))
		} else {
			b.WriteString(s.Values[k].String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
