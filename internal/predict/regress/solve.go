// This file holds the least-squares solvers the fitting methods share.

package regress

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// solveSym solves the n×n symmetric system A x = b (A row-major, overwritten) by
// Gaussian elimination with partial pivoting, after adding a ridge of 1e-12 of the
// largest diagonal element so that a rank-deficient design still has a solution.
func solveSym(A, b []float64, n int) []float64 {
	M := make([]float64, n*(n+1))
	dmax := 0.0
	for i := 0; i < n; i++ {
		dmax = math.Max(dmax, math.Abs(A[i*n+i]))
	}
	ridge := 1e-12 * dmax
	for i := 0; i < n; i++ {
		copy(M[i*(n+1):i*(n+1)+n], A[i*n:i*n+n])
		M[i*(n+1)+i] += ridge
		M[i*(n+1)+n] = b[i]
	}
	w := n + 1
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(M[r*w+c]) > math.Abs(M[p*w+c]) {
				p = r
			}
		}
		if p != c {
			for j := 0; j < w; j++ {
				M[c*w+j], M[p*w+j] = M[p*w+j], M[c*w+j]
			}
		}
		piv := M[c*w+c]
		if piv == 0 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := M[r*w+c] / piv
			if f == 0 {
				continue
			}
			for j := c; j < w; j++ {
				M[r*w+j] -= f * M[c*w+j]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := M[i*w+n]
		for j := i + 1; j < n; j++ {
			s -= M[i*w+j] * x[j]
		}
		if M[i*w+i] != 0 {
			x[i] = s / M[i*w+i]
		}
	}
	return x
}

// lstsq solves min ‖A c − y‖ for the design of terms over s's columns by a thin SVD
// (gonum/mat), with singular values below 1e-13 of the largest treated as zero.
func lstsq(s *scaled, terms [][]int) ([]float64, error) {
	n, T := len(s.y), len(terms)
	A := mat.NewDense(n, T, nil)
	row := make([]float64, T)
	y := s.y
	if s.sw != nil {
		y = make([]float64, n)
	}
	for r := 0; r < n; r++ {
		phi(row, s.cols, r, terms)
		if s.sw != nil {
			for i := range row {
				row[i] *= s.sw[r]
			}
			y[r] = s.y[r] * s.sw[r]
		}
		A.SetRow(r, row)
	}
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, fmt.Errorf("SVD did not converge")
	}
	rank := svd.Rank(1e-13)
	if rank == 0 {
		return make([]float64, T), nil
	}
	var x mat.VecDense
	svd.SolveVecTo(&x, mat.NewVecDense(n, y), rank)
	out := make([]float64, T)
	for i := range out {
		out[i] = x.AtVec(i)
	}
	return out, nil
}
