// Package jsonnum carries floating-point results into JSON, which has no NaN and no
// infinity. Every JSON writer of fragprof goes through it, so the choice made for a
// value that does not exist is stated once:
//
//   - Ptr gives null: the schemas written since JSON output began for estimates
//     that may be undefined (a mean of no trials, a probability out of a block that
//     never ran) use it;
//   - OrZero gives 0: the prediction and fit schemas, whose consumers read plain
//     numbers, use it for a quantity that is defined but could not be computed.
package jsonnum

import "math"

// Finite reports whether x is a number JSON can carry (neither NaN nor ±Inf).
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Ptr returns a pointer to x, or nil (JSON null) when x is NaN or infinite.
func Ptr(x float64) *float64 {
	if !Finite(x) {
		return nil
	}
	return &x
}

// OrZero returns x, or 0 when x is NaN or infinite.
func OrZero(x float64) float64 {
	if !Finite(x) {
		return 0
	}
	return x
}
