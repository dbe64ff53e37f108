package predict

import (
	"fmt"
	"slices"
)

// PredictValue returns the value of the recorded variable name just after the
// transition from → to, at a state given by name as `model show` prints the
// features ("$n" an input, "err" a variable, "#row" a counter): the arc's data
// formula for name, evaluated as the interpreter evaluates it (a variable the
// arc does not record keeps the value given for it). A value the formula reads
// and the state does not give is an error naming it; so are a checkpoint,
// transition, variable or value the model does not know. It is the C API's
// fp_model_predict_value (runtime/c/fragprof_model.h). A GMDH formula keeps
// scratch space: not for concurrent use on one model.
func (m *Model) PredictValue(from, to, name string, state map[string]float64) (float64, error) {
	sp := m.space
	if sp == nil {
		if err := m.compile(); err != nil {
			return 0, err
		}
		sp = m.space
	}
	node := func(s string) (int, error) {
		for i, n := range m.Nodes {
			if n.Name == s {
				return i, nil
			}
		}
		return 0, fmt.Errorf("the model has no checkpoint %q", s)
	}
	f, err := node(from)
	if err != nil {
		return 0, err
	}
	t, err := node(to)
	if err != nil {
		return 0, err
	}
	ai := -1
	for _, i := range m.outArcs[f] {
		if m.Arcs[i].To == t {
			ai = i
		}
	}
	if ai < 0 {
		return 0, fmt.Errorf("no transition %s → %s was seen in the traces the model was learned from", from, to)
	}
	vk := slices.Index(m.Vars, name)
	if vk < 0 {
		return 0, fmt.Errorf("the model has no recorded variable %q", name)
	}
	st := make([]float64, sp.Len())
	given := make([]bool, sp.Len())
	for k, v := range state {
		i, ok := sp.Index(k)
		if !ok {
			return 0, fmt.Errorf("the model has no value %q (name an input \"$n\", a recorded variable \"err\" or a checkpoint's counter \"#row\")", k)
		}
		st[i], given[i] = v, true
	}
	what := fmt.Sprintf("the value of %s at %s after %s → %s", name, to, from, to)
	vi := sp.VarIndex(vk)
	for k := range m.Arcs[ai].Data {
		d := &m.Arcs[ai].Data[k]
		if d.Var != name {
			continue
		}
		for i := range given {
			if d.Formula.Uses(i) && !given[i] {
				return 0, fmt.Errorf("%s reads %s, which was not given", what, sp.Name(i))
			}
		}
		return d.Formula.Eval(st), nil
	}
	if !given[vi] {
		return 0, fmt.Errorf("%s reads %s, which was not given", what, name)
	}
	return st[vi], nil
}
