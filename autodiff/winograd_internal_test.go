package autodiff

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// BenchmarkWinoFilter times the filter transform and its adjoint (with two
// partial sums) of the Digits extractor's last layer, 256 x 128 filters.
func BenchmarkWinoFilter(b *testing.B) {
	const f, c = 256, 128
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tile := range []kernel.WinogradTile{kernel.F4x4, kernel.F5x5} {
		pos := tile.Size() * tile.Size()
		w := make([]float32, f*c*9)
		for i := range w {
			w[i] = rng.Float32() - 0.5
		}
		u := make([]float32, pos*winoUStride(f*c))
		dus := [][]float32{make([]float32, pos*winoUStride(f*c)), make([]float32, pos*winoUStride(f*c))}
		for _, du := range dus {
			for i := range du {
				du[i] = rng.Float32() - 0.5
			}
		}
		b.Run(tile.String()+"/forward", func(b *testing.B) {
			for b.Loop() {
				winoFilter(tile, u, w, f, c)
			}
		})
		b.Run(tile.String()+"/adjoint", func(b *testing.B) {
			for b.Loop() {
				winoFilterAdj(tile, w, dus, f*c)
			}
		})
	}
}

// TestConvKeptFilters checks that the input gradient computed from the
// transformed filters a forward pass kept has the bits of the one that
// transforms the filters again, on both tiles, that filters kept for
// another tile are not used, and that those kept are (zeros give a zero
// input gradient).
func TestConvKeptFilters(t *testing.T) {
	const n, c, h, f = 9, 16, 9, 20
	g, ok := newConvGeom(c, h, h, 3, 3, 1, 0)
	if !ok {
		t.Fatal("no geometry")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	fill := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = rng.Float32() - 0.5
		}
		return v
	}
	x, w, dy := fill(n*c*h*h), fill(f*c*9), fill(n*f*g.oh*g.ow)
	for _, tc := range []struct {
		alg  ConvAlgorithm
		keep kernel.WinogradTile // the tile the kept filters are for
		zero bool                // keep zeros instead of the filters' transform
	}{
		{ConvWinograd4, kernel.F4x4, false},
		{ConvWinograd5, kernel.F5x5, false},
		{ConvWinograd5, kernel.F4x4, false},
		{ConvWinograd5, kernel.F5x5, true},
	} {
		prev := SetConvAlgorithm(tc.alg)
		fu := keptFilters{tile: tc.keep, u: make([]float32, tc.keep.Size()*tc.keep.Size()*winoUStride(f*c))}
		want, got := make([]float32, len(x)), make([]float32, len(x))
		if !tc.zero {
			winoFilter(tc.keep, fu.u, w, f, c)
			convBackwardBias(&g, n, f, x, w, dy, want, nil, nil)
		}
		convBackwardKept(&g, n, f, x, w, dy, got, nil, nil, fu)
		SetConvAlgorithm(prev)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v, filters kept for %v: dx[%d] = %v, %v transforming again", tc.alg, tc.keep, i, got[i], want[i])
			}
		}
	}
}

// TestWinoForwardChunks checks that the forward pass has the same bits on
// chunks of one block (forwardChunks) as on the chunks of winoCols, on 1
// and 2 threads, with and without a pooled output, for layers of several
// tiles an image (one-block chunks) and of one (the chunks of winoCols
// either way).
func TestWinoForwardChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	fill := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = rng.Float32() - 0.5
		}
		return v
	}
	for _, sz := range []struct{ n, c, h, f int }{{37, 16, 15, 24}, {21, 16, 7, 20}} {
		g, ok := newConvGeom(sz.c, sz.h, sz.h, 3, 3, 1, 0)
		if !ok {
			t.Fatal("no geometry")
		}
		x, w, b := fill(sz.n*sz.c*sz.h*sz.h), fill(sz.f*sz.c*9), fill(sz.f)
		for _, threads := range []int{1, 2} {
			prev := kernel.SetThreads(threads)
			run := func(blocks bool) (y, pooled []float32, idx []int32) {
				defer func(p bool) { winoForwardBlocks = p }(winoForwardBlocks)
				winoForwardBlocks = blocks
				y = make([]float32, sz.n*sz.f*g.oh*g.ow)
				winoForward(kernel.F5x5, &g, sz.n, sz.f, x, w, b, y, false, nil)
				oh, ow := (g.oh+1)/2, (g.ow+1)/2
				cp := &convPool[float32]{h: g.oh, w: g.ow, k: 2, s: 2, oh: oh, ow: ow, relu: true,
					out: make([]float32, sz.n*sz.f*oh*ow), idx: make([]int32, sz.n*sz.f*oh*ow)}
				winoForward(kernel.F5x5, &g, sz.n, sz.f, x, w, b, nil, false, cp)
				return y, cp.out, cp.idx
			}
			wy, wp, wi := run(false)
			gy, gp, gi := run(true)
			for i := range wy {
				if math.Float32bits(gy[i]) != math.Float32bits(wy[i]) {
					t.Fatalf("%v, %d threads: y[%d] = %v on one-block chunks, %v on winoCols'", sz, threads, i, gy[i], wy[i])
				}
			}
			for i := range wp {
				if math.Float32bits(gp[i]) != math.Float32bits(wp[i]) || gi[i] != wi[i] {
					t.Fatalf("%v, %d threads: pooled [%d] = %v at %d on one-block chunks, %v at %d on winoCols'", sz, threads, i, gp[i], gi[i], wp[i], wi[i])
				}
			}
			kernel.SetThreads(prev)
		}
	}
}

// TestShareOut checks that shareOut calls fn once for every value, with a
// part below min(parts, n), for part counts above and below the threads
// and counts of values below, at and above the runs' sixteen a part.
func TestShareOut(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		prev := kernel.SetThreads(threads)
		for _, parts := range []int{1, 2, 3, 5} {
			for _, n := range []int{0, 1, 2, 7, 31, 32, 33, 49, 160, 1280, 1283} {
				calls := make([]int32, n)
				var bad atomic.Int32
				shareOut(parts, n, func(p, i int) {
					if p < 0 || p >= min(parts, n) {
						bad.Add(1)
					}
					atomic.AddInt32(&calls[i], 1)
				})
				if bad.Load() != 0 {
					t.Errorf("threads %d, parts %d, n %d: %d calls with a part out of [0, %d)", threads, parts, n, bad.Load(), min(parts, n))
				}
				for i, c := range calls {
					if c != 1 {
						t.Errorf("threads %d, parts %d, n %d: value %d had %d calls", threads, parts, n, i, c)
					}
				}
			}
		}
		kernel.SetThreads(prev)
	}
	for _, c := range []struct{ parts, n, want int }{{1, 0, 1}, {2, 49, 1}, {2, 160, 5}, {2, 1280, 40}, {1, 1280, 80}, {0, 64, 4}} {
		if got := shareRun(c.parts, c.n); got != c.want {
			t.Errorf("shareRun(%d, %d) = %d, want %d", c.parts, c.n, got, c.want)
		}
	}
}

// TestWholeRounds checks which chunks of a shared backward pass the threads
// take whole: rounds of one chunk a thread, and with partial sums of the
// filter gradient only when each sum is one thread's.
func TestWholeRounds(t *testing.T) {
	for _, c := range []struct{ chunks, threads, accs, want int }{
		{5, 2, 2, 4}, // the digits' 13x13 layer at 80 images: 2 rounds, the fifth shared
		{1, 2, 2, 0}, // the 5x5 layer's one chunk: shared
		{4, 2, 2, 4}, // rounds only
		{7, 3, 2, 0}, // a sum shared by two threads: no rounds
		{7, 3, 0, 6}, // no filter gradient: any number of threads
		{7, 1, 2, 0}, // one thread
		{3, 4, 0, 0}, // fewer chunks than threads
		{2, 2, 1, 0}, // one partial sum for two threads
		{9, 2, 0, 8}, // no filter gradient, two threads
		{0, 2, 2, 0}, // no images
	} {
		if got := wholeRounds(c.chunks, c.threads, c.accs); got != c.want {
			t.Errorf("wholeRounds(%d chunks, %d threads, %d sums) = %d, want %d", c.chunks, c.threads, c.accs, got, c.want)
		}
	}
	defer func(p bool) { winoRounds = p }(winoRounds)
	winoRounds = false
	if got := wholeRounds(5, 2, 2); got != 0 {
		t.Errorf("with rounds off, wholeRounds(5, 2, 2) = %d, want 0", got)
	}
}

// TestWinoFilterLayout checks winoFilter and winoFilterAdj against the
// kernel's transforms taken one filter at a time (kernel.FilterTransform
// and FilterTransformAdj on a group of one filter), bit for bit, under every
// implementation: for numbers of filters that end a group of four, a block
// of winoFilterBlock, both or neither, with one and two partial sums. The
// rest of u and what lies past dw's filters must stay as they were.
func TestWinoFilterLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const sentinel = 42
	forEachImpl(t, func(t *testing.T) {
		for _, tile := range []kernel.WinogradTile{kernel.F4x4, kernel.F5x5} {
			gm, pos := winoGm(tile), tile.Size()*tile.Size()
			for _, fc := range []int{1, 3, 4, 7, 8, 255, 256, 257, 260, 515} {
				us := winoUStride(fc)
				w := make([]float32, 9*fc+9)
				for i := range w {
					w[i] = float32(rng.NormFloat64())
				}
				u := make([]float32, pos*us)
				for i := range u {
					u[i] = sentinel
				}
				winoFilter(tile, u, w, fc, 1)
				want := make([]float32, pos*us)
				for i := range want {
					want[i] = sentinel
				}
				for i := range fc {
					var g [36]float64
					for e := range 9 {
						g[4*e] = float64(w[9*i+e])
					}
					kernel.FilterTransform(want[i:], us, g[:], 1, gm)
				}
				for i := range u {
					if math.Float32bits(u[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v, %d filters: u[%d] (position %d, filter %d) = %v, want %v", tile, fc, i, i/us, i%us, u[i], want[i])
					}
				}
				for sums := 1; sums <= 2; sums++ {
					dus := make([][]float32, sums)
					for k := range dus {
						dus[k] = make([]float32, pos*us)
						for i := range dus[k] {
							dus[k][i] = float32(rng.NormFloat64())
						}
					}
					dw := make([]float32, 9*fc+9)
					for i := range dw {
						dw[i] = sentinel
					}
					winoFilterAdj(tile, dw, dus, fc)
					for i := range fc {
						var out [36]float32
						at := make([][]float32, sums)
						for k := range dus {
							at[k] = dus[k][i:]
						}
						kernel.FilterTransformAdj(out[:], at, us, 1, gm)
						for e := range 9 {
							if got := dw[9*i+e]; math.Float32bits(got) != math.Float32bits(out[4*e]) {
								t.Fatalf("%v, %d filters, %d sums: filter %d value %d = %v, want %v", tile, fc, sums, i, e, got, out[4*e])
							}
						}
					}
					for i := 9 * fc; i < len(dw); i++ {
						if dw[i] != sentinel {
							t.Fatalf("%v, %d filters, %d sums: dw[%d] = %v past the filters", tile, fc, sums, i, dw[i])
						}
					}
				}
			}
		}
	})
}

// forEachImpl runs f as a subtest under each kernel implementation the
// machine has, restoring the one before.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, impl := range kernel.Available() {
		t.Run(impl, func(t *testing.T) {
			prev, err := kernel.SetImpl(impl)
			if err != nil {
				t.Fatal(err)
			}
			defer kernel.SetImpl(prev)
			f(t)
		})
	}
}

// TestWinoTablesByLayout checks that the lane offsets and pooling windows
// that newWinoGeom and windows take from their caches are those of the
// layout asked for, among layouts that differ from the first in one size
// each: a first round fills the caches, a second reads them.
func TestWinoTablesByLayout(t *testing.T) {
	layouts := []struct {
		name         string
		c, h, w, pad int
		tile         kernel.WinogradTile
		pooled       bool
	}{
		{"digits 13x13", 64, 13, 13, 1, kernel.F5x5, true},
		{"digits 5x5", 128, 5, 5, 1, kernel.F5x5, true},
		{"taller", 64, 14, 13, 1, kernel.F5x5, true},
		{"wider", 64, 13, 14, 1, kernel.F5x5, true},
		{"unpadded", 64, 13, 13, 0, kernel.F5x5, true},
		{"other tile", 64, 13, 13, 1, kernel.F4x4, true},
		{"not pooled", 64, 13, 13, 1, kernel.F5x5, false},
	}
	for round := range 2 {
		for _, l := range layouts {
			g, ok := newConvGeom(l.c, l.h, l.w, 3, 3, 1, l.pad)
			if !ok {
				t.Fatalf("%s: no geometry", l.name)
			}
			wg := newWinoGeom(&g, l.tile)
			want := wg.offsets()
			if !reflect.DeepEqual(wg.inOffs, want.in) || !reflect.DeepEqual(wg.outOffs, want.out) {
				t.Errorf("round %d, %s: the lane offsets are another layout's", round, l.name)
			}
			var cp *convPool[float32]
			if l.pooled {
				cp = &convPool[float32]{k: 2, s: 2, h: g.oh, w: g.ow, oh: (g.oh + 1) / 2, ow: (g.ow + 1) / 2}
			}
			got := wg.windows(cp)
			switch {
			case !l.pooled && got != nil:
				t.Errorf("round %d, %s: windows of an unpooled layer", round, l.name)
			case l.pooled && !reflect.DeepEqual(got, wg.newWindows(cp)):
				t.Errorf("round %d, %s: the pooling windows are another layout's", round, l.name)
			}
		}
	}
}

// TestTableCache checks that a tableCache keeps the tables of the first
// maxCachedTables keys, so that each is computed once, and none beyond.
func TestTableCache(t *testing.T) {
	var c tableCache[int, int]
	builds := map[int]int{}
	get := func(k int) int {
		if v, ok := c.find(k); ok {
			return v
		}
		builds[k]++
		return c.keep(k, 10*k)
	}
	for round := range 3 {
		for k := range maxCachedTables + 2 {
			if v := get(k); v != 10*k {
				t.Fatalf("round %d: get(%d) = %d, want %d", round, k, v, 10*k)
			}
		}
	}
	for k := range maxCachedTables + 2 {
		want := 1
		if k >= maxCachedTables {
			want = 3
		}
		if builds[k] != want {
			t.Errorf("key %d built %d times, want %d", k, builds[k], want)
		}
	}
}
