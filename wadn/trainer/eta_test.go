package trainer

import (
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
