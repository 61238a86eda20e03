package method

import "math"

// Argmax returns the index of the largest element of v, the first of equal
// ones.
func Argmax(v []float32) int {
	best := 0
	for j := 1; j < len(v); j++ {
		if v[j] > v[best] {
			best = j
		}
	}
	return best
}

// Histogram returns the count of each class 0..k-1 among the labels y.
func Histogram(y []int, k int) []float64 {
	h := make([]float64, k)
	for _, c := range y {
		h[c]++
	}
	return h
}

// Normalise returns v divided by its sum; a vector summing to zero becomes
// uniform.
func Normalise(v []float64) []float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	out := make([]float64, len(v))
	for i, x := range v {
		if s > 0 {
			out[i] = x / s
		} else {
			out[i] = 1 / float64(len(v))
		}
	}
	return out
}

// F32s converts v to float32.
func F32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func meanAbsDiff(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(len(a))
}
