package kernel_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// regionsFromA runs n regions from one call line, and one from another.
func regionsFromA(n int) {
	for range n {
		kernel.Parallel(2, func(int) {})
	}
	kernel.Parallel(2, func(int) {})
}

// regionsFromB runs one region.
func regionsFromB() { kernel.Parallel(2, func(int) {}) }

// TestProfileRegionsSites checks that ProfileRegions names each region's
// site by the functions that called Parallel: regions called from
// different lines of one function share its site, regions called from
// different functions do not, the first function named is the one that
// called Parallel, and every region's recording is counted in Cost.
func TestProfileRegionsSites(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	const prefix = "autodiff/kernel_test."
	want := map[string]int64{prefix + "regionsFromA": 5, prefix + "regionsFromB": 1}
	kernel.ProfileRegions(true)
	regionsFromA(2)
	regionsFromB()
	regionsFromA(1) // the same stacks again
	r := kernel.ProfileRegions(false)
	got := map[string]int64{}
	for _, s := range r.Sites {
		name, _, _ := strings.Cut(s.Name, " < ")
		got[name] += s.Regions
	}
	if len(r.Sites) != len(want) || len(got) != len(want) {
		t.Fatalf("sites %+v, want one for each of %v", r.Sites, want)
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("site %s: %d regions, want %d (sites %+v)", name, got[name], n, r.Sites)
		}
	}
	if r.Regions != 6 || !(r.Cost > 0) {
		t.Errorf("%d regions recorded at a cost of %g s, want 6 at a positive cost", r.Regions, r.Cost)
	}
}
