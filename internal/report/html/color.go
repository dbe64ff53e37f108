// This file implements the page's colour scales: a sequential heat scale for values
// and a diverging one for differences.

package html

import (
	"fmt"
	"math"
)

// heatStops is ColorBrewer's YlOrRd with 9 classes (Cynthia Brewer, colorbrewer2.org),
// interpolated linearly in RGB.
var heatStops = [][3]float64{
	{0xff, 0xff, 0xcc}, {0xff, 0xed, 0xa0}, {0xfe, 0xd9, 0x76}, {0xfe, 0xb2, 0x4c}, {0xfd, 0x8d, 0x3c},
	{0xfc, 0x4e, 0x2a}, {0xe3, 0x1a, 0x1c}, {0xbd, 0x00, 0x26}, {0x80, 0x00, 0x26},
}

// divStops is the middle five classes of ColorBrewer's 9-class RdBu, reversed: blue
// for less than the base, white for equal, red for more; light enough for black text.
var divStops = [][3]float64{
	{0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde}, {0xf7, 0xf7, 0xf7}, {0xf4, 0xa5, 0x82}, {0xd6, 0x60, 0x4d},
}

const (
	zeroColor     = "#e0e0e0" // a block that never ran
	noValueColor  = "#ffffff" // structure only
	sameColor     = "#f7f7f7" // no significant difference
	darkTextAbove = 0.6       // heat from which labels are drawn in white
)

func interp(stops [][3]float64, t float64) string {
	t = min(max(t, 0), 1)
	x := t * float64(len(stops)-1)
	i := int(math.Floor(x))
	if i >= len(stops)-1 {
		i = len(stops) - 2
	}
	f := x - float64(i)
	a, b := stops[i], stops[i+1]
	c := func(k int) int { return int(math.Round(a[k] + f*(b[k]-a[k]))) }
	return fmt.Sprintf("#%02x%02x%02x", c(0), c(1), c(2))
}

// heatColor is the colour of heat h in [0, 1].
func heatColor(h float64) string { return interp(heatStops, h) }

// diffColor is the colour of a relative change r in [−1, 1], placed by the square root
// of |r| so that changes of a few percent are visible: ±25 % is halfway.
func diffColor(r float64) string {
	t := math.Sqrt(math.Min(math.Abs(r), 1))
	return interp(divStops, (math.Copysign(t, r)+1)/2)
}

// textColor is the colour of text drawn on a block of heat h.
func textColor(h float64) string {
	if h >= darkTextAbove {
		return "#ffffff"
	}
	return "#000000"
}
