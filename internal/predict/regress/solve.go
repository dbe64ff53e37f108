// This file holds the least-squares solvers the fitting methods share.

package regress

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// solveSym solves the n×n symmetric system A x = b (A row-major, the normal
// equations of a least-squares fit) by LU decomposition with partial pivoting
// (LAPACK's dgetrf and dgetrs, through gonum's lapack64), after adding a ridge of
// 1e-12 of the largest diagonal element so that a rank-deficient design still has a
// solution. A system that is singular even so (an exactly zero pivot, e.g. every
// element zero) has the solution 0. These are the calls gonum/mat's Solve makes, in
// the same order on the same data, so the solution is the same bit for bit; only its
// estimate of the condition number (dgecon), which the fits never read, is left out.
func solveSym(A, b []float64, n int) []float64 {
	dmax := 0.0
	for i := 0; i < n; i++ {
		dmax = math.Max(dmax, math.Abs(A[i*n+i]))
	}
	lu := blas64.General{Rows: n, Cols: n, Stride: n, Data: append([]float64(nil), A[:n*n]...)}
	for i := 0; i < n; i++ {
		lu.Data[i*n+i] += 1e-12 * dmax
	}
	x := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: append([]float64(nil), b[:n]...)}
	pivots := make([]int, n)
	if !lapack64.Getrf(lu, pivots) {
		return make([]float64, n)
	}
	lapack64.Getrs(blas.NoTrans, lu, x, pivots)
	return x.Data
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
