// This file implements the cache of Student quantiles.

package stopping

import (
	"math"
	"sync"

	"github.com/fragprof/fragprof/internal/stats"
)

// studentExact is the number of degrees of freedom below which Student quantiles are
// computed exactly (and cached).
const studentExact = 1000

type quantileCache struct {
	mu sync.Mutex
	m  map[float64][]float64
}

func newQuantileCache() *quantileCache { return &quantileCache{m: map[float64][]float64{}} }

// get returns t_{(1+γ)/2, ν} for 1 ≤ ν < studentExact (ν = 0 gives +Inf).
func (c *quantileCache) get(gamma float64, nu uint64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	tab, ok := c.m[gamma]
	if !ok {
		tab = make([]float64, studentExact)
		tab[0] = math.Inf(1)
		for i := 1; i < len(tab); i++ {
			tab[i] = stats.StudentQuantile((1+gamma)/2, float64(i))
		}
		c.m[gamma] = tab
	}
	return tab[nu]
}
