package fingerprint

import (
	"context"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// TestSameEverywhere checks that in the reference mode the fingerprint does
// not depend on the thread count or on the kernel implementation.
func TestSameEverywhere(t *testing.T) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	defer kernel.SetThreads(kernel.SetThreads(1))
	prevImpl := kernel.Impl()
	defer kernel.SetImpl(prevImpl)
	var first *Result
	for _, impl := range kernel.Available() {
		if _, err := kernel.SetImpl(impl); err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			kernel.SetThreads(threads)
			r, err := Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, %d threads: %s (weights %s, losses %s, loss %v, %d steps)", impl, threads, r.Sum(), r.Weights, r.Losses, r.Loss, r.Steps)
			if r.Steps < 24 {
				t.Errorf("%d steps, want a few dozen", r.Steps)
			}
			if first == nil {
				first = r
				continue
			}
			if r.Sum() != first.Sum() {
				t.Errorf("%s with %d threads: fingerprint %s (weights %s, losses %s), want %s (weights %s, losses %s) as %s with %d threads",
					impl, threads, r.Sum(), r.Weights, r.Losses, first.Sum(), first.Weights, first.Losses, first.Kernels, first.Threads)
			}
		}
	}
}

// TestModesDiffer checks that the fingerprint sees the numerics: where the
// default mode runs assembly (fused multiply-adds), its fingerprint differs
// from the reference mode's.
func TestModesDiffer(t *testing.T) {
	if kernel.Impl() == "go" {
		t.Skip("the default mode runs the Go kernels here, which may agree with the reference mode")
	}
	defer numerics.Set(numerics.Get())
	numerics.Set(numerics.Reference)
	ref, err := Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	numerics.Set(numerics.Default)
	def, err := Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ref.Sum() == def.Sum() {
		t.Errorf("the default mode (%s kernels) gives the reference fingerprint %s", def.Kernels, ref.Sum())
	}
	if ref.Numerics != "reference" || def.Numerics != "default" {
		t.Errorf("modes recorded as %q and %q", ref.Numerics, def.Numerics)
	}
}

// wantSum is the reference fingerprint of this revision of the training
// code. It changes when a change to the code changes what training
// computes in the reference mode: then update it here and in
// docs/numerics.md, which a result published with a fingerprint must
// name.
const wantSum = "920460e091ed14979de550df76e5ccfa6b540838fb8fe9fb67e4f74183c080a6"

// TestFingerprintValue pins the reference fingerprint, so that a change of
// what the reference mode computes is noticed, not only a difference
// between platforms.
func TestFingerprintValue(t *testing.T) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	r, err := Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Sum() != wantSum {
		t.Errorf("reference fingerprint %s, want %s: training computes something else now; if that is meant, update wantSum and docs/numerics.md (wadn audit --fingerprint --trace on both revisions shows the first operator that parts)", r.Sum(), wantSum)
	}
}
