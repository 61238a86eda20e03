package trainer

import (
	"slices"
	"testing"
	"time"
)

func TestETA(t *testing.T) {
	tests := []struct {
		name  string
		total int
		steps []time.Duration // how long each step takes
		want  []time.Duration // the estimate after each
	}{
		{"warm-up steps give no estimate", 10,
			[]time.Duration{9 * time.Second, time.Second, time.Second, 2 * time.Second, 4 * time.Second},
			// after step 4: 2 s a step, 6 left; after step 5: 3 s a step, 5 left.
			[]time.Duration{-1, -1, -1, 12 * time.Second, 15 * time.Second}},
		{"the last step leaves nothing", 4,
			[]time.Duration{time.Second, time.Second, time.Second, time.Second},
			[]time.Duration{-1, -1, -1, 0}},
		{"a job shorter than the warm-up", 2,
			[]time.Duration{time.Second, time.Second},
			[]time.Duration{-1, 0}},
		{"a pause counts as etaPause median steps", 100,
			append(slices.Repeat([]time.Duration{time.Second}, etaWarmSteps+etaMinGaps), time.Hour, time.Second),
			// after the pause: 8 gaps of 1 s and one counted as etaPause s
			// over 9 gaps, 88 left; then one more second over 10 gaps, 87 left.
			append(unknown(etaWarmSteps), append(paced(etaMinGaps, 100-etaWarmSteps, time.Second),
				mean((8+etaPause)*time.Second, 9, 88), mean((9+etaPause)*time.Second, 10, 87))...)},
		{"an epoch's evaluation counts in full", 100,
			append(slices.Repeat([]time.Duration{time.Second}, etaWarmSteps+etaMinGaps), 20*time.Second),
			// 8 gaps of 1 s and one of 20 s: 28 s over 9 gaps, 88 left.
			append(unknown(etaWarmSteps), append(paced(etaMinGaps, 100-etaWarmSteps, time.Second),
				mean(28*time.Second, 9, 88))...)},
		{"no gap is shortened before etaMinGaps gaps", 100,
			append(slices.Repeat([]time.Duration{time.Second}, etaWarmSteps+1), time.Hour),
			// 1 s and 1 h: 3601 s over 2 gaps, 95 left.
			append(unknown(etaWarmSteps), 96*time.Second, mean(3601*time.Second, 2, 95))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Unix(0, 0)
			e := newETA(tc.total)
			e.now = func() time.Time { return clock }
			for i, d := range tc.steps {
				clock = clock.Add(d)
				if got := e.step(); got != tc.want[i] {
					t.Errorf("after step %d: %v, want %v", i+1, got, tc.want[i])
				}
			}
		})
	}
}

// TestETARecentPace checks that a long gap is judged against the last
// etaWindow gaps, not the first ones: after the pace goes from 1 s to 10 s
// a step, a gap of etaPause*5 s is within etaPause times the median and
// counts in full (against the first gaps' median, 1 s, it would not).
func TestETARecentPace(t *testing.T) {
	clock := time.Unix(0, 0)
	e := newETA(200)
	e.now = func() time.Time { return clock }
	steps := append(slices.Repeat([]time.Duration{time.Second}, etaWarmSteps+etaWindow),
		slices.Repeat([]time.Duration{10 * time.Second}, etaWindow)...)
	steps = append(steps, etaPause*5*time.Second)
	var got time.Duration
	for _, d := range steps {
		clock = clock.Add(d)
		got = e.step()
	}
	want := mean((etaWindow*11+etaPause*5)*time.Second, 2*etaWindow+1, 200-len(steps))
	if got != want {
		t.Errorf("after the slower pace and a gap of %d s: %v, want %v", etaPause*5, got, want)
	}
}

// unknown returns the n estimates of the warm-up, -1 each.
func unknown(n int) []time.Duration { return slices.Repeat([]time.Duration{-1}, n) }

// paced returns the estimates after n steps of d each that follow the
// warm-up of a job of total steps: d times the steps left.
func paced(n, total int, d time.Duration) []time.Duration {
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = time.Duration(total-1-i) * d
	}
	return s
}

// mean returns the estimate from gaps summing to sum with left steps to go.
func mean(sum time.Duration, gaps, left int) time.Duration {
	return time.Duration(float64(sum) / float64(gaps) * float64(left))
}
