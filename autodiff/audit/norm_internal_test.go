package audit

import (
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
)

// TestNormHessianCheckFails: the zero-row check passes Norm and fails the
// norms without PyTorch's subgradient: RowNorm(x, 1e-10), whose second
// derivative at zero is I/1e-5, and RowNorm(x, 0), which gives NaN.
func TestNormHessianCheckFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		norm  func(*Tensor) *Tensor
		pass  bool
		error string
	}{
		{"Norm", autodiff.Norm[float64], true, ""},
		{"RowNorm eps=1e-10", func(x *Tensor) *Tensor { return autodiff.RowNorm(x, 1e-10) }, false, ""},
		{"RowNorm eps=0", func(x *Tensor) *Tensor { return autodiff.RowNorm(x, 0) }, false, "NaN"},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			e, _, err := normHessianRun(tc.norm, seed)
			if tc.pass != (err == nil && e <= 1e-12) {
				t.Errorf("%s seed %d: error %.3g, %v; want pass = %v", tc.name, seed, e, err, tc.pass)
			}
			if tc.error != "" && (err == nil || !strings.Contains(err.Error(), tc.error)) {
				t.Errorf("%s seed %d: %v, want an error saying %q", tc.name, seed, err, tc.error)
			}
		}
	}
}
