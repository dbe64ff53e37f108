// This file implements the "did you mean" suggestions of error messages.

package dist

import "fmt"

// sprintf is fmt.Sprintf that leaves a format without arguments alone.
func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// aliases maps names that users of other tools write to ours.
var aliases = map[string]string{
	"gauss":       "normal",
	"gaussian":    "normal",
	"norm":        "normal",
	"randint":     "uniform_int",
	"integer":     "uniform_int",
	"uniformint":  "uniform_int",
	"constant":    "const",
	"fixed":       "const",
	"oneof":       "choice",
	"categorical": "choice",
	"discrete":    "choice",
	"exp":         "exponential",
	"expon":       "exponential",
	"binom":       "binomial",
	"coin":        "bernoulli",
	"str":         "string",
	"list":        "array",
	"vector":      "array",
}

// suggest returns the candidate closest to name, or "" if none is close:
// an alias, else the candidate at the smallest optimal-string-alignment
// distance (a transposition counts one edit) provided that distance is at
// most 2 and smaller than name, else the shortest candidate that name is a
// prefix of (name at least 3 characters long).
func suggest(name string, candidates []string) string {
	if a, ok := aliases[name]; ok {
		for _, c := range candidates {
			if c == a {
				return a
			}
		}
	}
	best, bestD := "", 3
	for _, c := range candidates {
		if d := osaDistance(name, c); d < bestD && d < len(name) {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	if len(name) >= 3 {
		for _, c := range candidates {
			if len(c) > len(name) && c[:len(name)] == name && (best == "" || len(c) < len(best)) {
				best = c
			}
		}
	}
	return best
}

// didYouMean returns the hint "did you mean 'x'?" for the suggestion for
// name, or "".
func didYouMean(name string, candidates []string) string {
	if s := suggest(name, candidates); s != "" {
		return "did you mean '" + s + "'?"
	}
	return ""
}

// osaDistance returns the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of adjacent bytes.
func osaDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	// d[i][j] is the distance between a[:i] and b[:j].
	var d [65][65]int
	for i := 0; i <= len(a); i++ {
		d[i][0] = i
	}
	for j := 0; j <= len(b); j++ {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
