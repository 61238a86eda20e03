package autodiff

import (
	"strings"
	"testing"
)

func TestSetTrace(t *testing.T) {
	run := func() string {
		var b strings.Builder
		SetTrace(&b)
		defer SetTrace(nil)
		x := New([]float64{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
		y := SumAll(Tanh(MatMul(x, x, false, false)))
		y.Backward()
		return b.String()
	}
	first := run()
	lines := strings.Split(strings.TrimSpace(first), "\n")
	// MatMul, Tanh, Sum forward; the backward functions' own operators
	// (Sum's Reshape and BroadcastTo, MatMul's two products) each before
	// the gradients they return.
	want := []string{"op 1 MatMul [2 2] ", "op 2 Tanh [2 2] ", "op 3 Sum [] ",
		"op 4 Reshape [1 1] ", "op 5 BroadcastTo [2 2] ", "op 6 Sum backward [2 2] ", "op 7 Tanh backward [2 2] ",
		"op 8 MatMul [2 2] ", "op 9 MatMul [2 2] ", "op 10 MatMul backward [2 2] ", "op 11 MatMul backward [2 2] "}
	if len(lines) != len(want) {
		t.Fatalf("trace:\n%s\nwant %d lines", first, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || len(lines[i]) != len(w)+16 {
			t.Errorf("line %d: %q, want %q and 16 hex digits", i+1, lines[i], w)
		}
	}
	if again := run(); again != first {
		t.Errorf("the same computation traced twice:\n%s\nthen\n%s", first, again)
	}
	var b strings.Builder
	SetTrace(&b)
	SetTrace(nil)
	Tanh(New([]float64{1}, 1))
	if b.Len() != 0 {
		t.Errorf("traced after SetTrace(nil): %q", b.String())
	}
}
