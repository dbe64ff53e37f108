package stats

import (
	"math"
	"testing"
)

func TestThresholdsValidate(t *testing.T) {
	if err := DefaultThresholds.Validate(); err != nil {
		t.Fatalf("DefaultThresholds: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Thresholds)
	}{
		{"no precision", func(t *Thresholds) { t.RelEps = 0 }},
		{"negative eps", func(t *Thresholds) { t.Eps = -1 }},
		{"NaN eps", func(t *Thresholds) { t.Eps = math.NaN() }},
		{"gamma 1", func(t *Thresholds) { t.Gamma = 1 }},
		{"gamma 0", func(t *Thresholds) { t.Gamma = 0 }},
		{"n_min 0", func(t *Thresholds) { t.NMin = 0 }},
		{"C0", func(t *Thresholds) { t.C0 = 0 }},
		{"BE limit", func(t *Thresholds) { t.BELimit = 1 }},
		{"moment", func(t *Thresholds) { t.Moment = 9 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := DefaultThresholds
			tc.edit(&th)
			if th.Validate() == nil {
				t.Errorf("Validate accepted %+v", th)
			}
		})
	}
}

func TestStateStrings(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Unconverged.String(), "unconverged"}, {Converged.String(), "converged"},
		{Constant.String(), "constant"}, {Inadequate.String(), "inadequate"},
		{State(9).String(), "State(9)"}, {AbsoluteMoment.String(), "absolute"},
		{SignedMoment.String(), "signed"}, {BEMoment(7).String(), "BEMoment(7)"},
	} {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}
