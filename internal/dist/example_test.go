// This file holds the package's examples.

package dist_test

import (
	"fmt"

	"github.com/fragprof/fragprof/internal/dist"
)

func Example() {
	m, err := dist.Parse(`
n = uniform_int(3, 5)
a = array(n, uniform_int(0, 99))
ask = normal(450, 100) in [100, 800]
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	stdin, err := dist.ParseTemplate(`{ask:%.1f}\n{n}\n{a}\n`, m, dist.BackslashEscapes)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range m.Inputs {
		fmt.Printf("%s: %v\n", in.Name, in.Kind)
	}
	s := m.NewSample()
	var buf []byte
	for trial := range uint64(2) {
		if err := m.DrawInto(s, 1, trial); err != nil {
			fmt.Println(err)
			return
		}
		buf = stdin.Append(buf[:0], s)
		fmt.Printf("trial %d: %q\n", trial, buf)
	}
	// Output:
	// n: int
	// a: int array
	// ask: float
	// trial 0: "536.7\n4\n91 68 11 62\n"
	// trial 1: "495.9\n3\n79 54 44\n"
}

func ExampleParse_error() {
	_, err := dist.Parse("ask = unifrom(1, 2)")
	fmt.Println(err)
	// Output: unknown distribution 'unifrom' at 1:7 (did you mean 'uniform'?)
}
