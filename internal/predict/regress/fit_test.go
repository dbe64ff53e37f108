package regress

import (
	"math"
	"math/rand/v2"
	"testing"
)

// exactProblem returns n rows of three inputs in [1, 10] (runs of 10 rows) and
// y = f(x, z, w).
func exactProblem(n int, f func(x, z, w float64) float64) *Problem {
	r := rand.New(rand.NewPCG(1, 2))
	p := &Problem{Names: []string{"x", "z", "w"}, Cols: make([][]float64, 3)}
	for i := 0; i < n; i++ {
		x, z, w := 1+9*r.Float64(), 1+9*r.Float64(), 1+9*r.Float64()
		p.Cols[0] = append(p.Cols[0], x)
		p.Cols[1] = append(p.Cols[1], z)
		p.Cols[2] = append(p.Cols[2], w)
		p.Y = append(p.Y, f(x, z, w))
		p.Run = append(p.Run, int32(i/10))
	}
	return p
}

// TestPolyExact: least squares recovers exact polynomials. The data are noiseless,
// so the only error is rounding: with columns scaled to [0, 1] and at most 20 terms
// the relative residual of an SVD solve is a few ulps times the condition number
// (~1e4 for these monomials), so 1e-9 relative is generous by three orders.
func TestPolyExact(t *testing.T) {
	cases := []struct {
		name string
		f    func(x, z, w float64) float64
		vars int
	}{
		{"linear", func(x, z, w float64) float64 { return 3 + 2*x }, 1},
		{"quadratic", func(x, z, w float64) float64 { return 1 + 0.5*x*z + z*z }, 2},
		{"cubic", func(x, z, w float64) float64 { return 7 * x * z * w }, 3},
		{"euler step", func(x, z, w float64) float64 { return x + 0.01*z*(w-x) }, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := exactProblem(400, tc.f)
			f := fitPoly(p, DefaultFitOptions)
			if len(f.Vars) != tc.vars {
				t.Errorf("chose %v (%s), want %d variables", f.Vars, f.String(), tc.vars)
			}
			sp := columns{"x", "z", "w"}
			if err := f.Compile(sp); err != nil {
				t.Fatal(err)
			}
			for r := 0; r < p.rows(); r++ {
				got := f.Eval([]float64{p.Cols[0][r], p.Cols[1][r], p.Cols[2][r]})
				if math.Abs(got-p.Y[r]) > 1e-9*math.Abs(p.Y[r]) {
					t.Fatalf("row %d: %s gives %.17g, want %.17g", r, f.String(), got, p.Y[r])
				}
			}
			if f.Fit.R2 < 1-1e-12 {
				t.Errorf("R² = %v", f.Fit.R2)
			}
		})
	}
}

// TestGMDHExact: GMDH recovers a quadratic of two inputs with one neuron, exactly
// (noiseless data: R² within 1e-8 of 1 allows for rounding in the normal equations
// of standardised 6-term neurons, cond ~1e3, squared: ~1e-6 relative at worst on
// the coefficients, far less on the fit). x·z·w needs at least two layers, and is
// not exact: a first-layer neuron of x, z is fitted to x·z·w, so it carries the
// sample's chance correlation of w with x and z (~1/√N relative), which the later
// layers cannot remove; R² ≥ 0.999 and an error within 1% of y's range (1…1000) at
// an interior point are what the method gives (the fit reaches R² ≈ 0.9996).
func TestGMDHExact(t *testing.T) {
	cases := []struct {
		name   string
		f      func(x, z, w float64) float64
		layers int
		r2     float64
	}{
		{"quadratic", func(x, z, w float64) float64 { return 3 + 2*x + 0.5*x*z + z*z }, 1, 1 - 1e-8},
		{"product of three", func(x, z, w float64) float64 { return x * z * w }, 2, 0.999},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := exactProblem(600, tc.f)
			f := fitGMDH(p, DefaultFitOptions)
			if f.Fit.R2 < tc.r2 {
				t.Errorf("%s: R² = %v", f.String(), f.Fit.R2)
			}
			if len(f.Net.Layers) < tc.layers {
				t.Errorf("%d layers, want at least %d", len(f.Net.Layers), tc.layers)
			}
			sp := columns{"x", "z", "w"}
			if err := f.Compile(sp); err != nil {
				t.Fatal(err)
			}
			got := f.Eval([]float64{2, 3, 4})
			if want := tc.f(2, 3, 4); math.Abs(got-want) > 0.01*1000 {
				t.Errorf("f(2,3,4) = %v, want %v", got, want)
			}
		})
	}
}
