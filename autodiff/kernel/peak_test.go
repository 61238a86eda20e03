package kernel

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFMALoops compares the register-only multiply-add loops with their
// specification.
func TestFMALoops(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		if got, want := fmaLoopGo(n, 1, fmaChainsGo), float32(fmaChainsGo*(fmaChainsGo-1)/2)+float32(fmaChainsGo*n)/2; got != want {
			t.Errorf("fmaLoopGo(%d) = %v, want %v", n, got, want)
		}
		if haveAVX2 {
			if got, want := fmaLoopAVX2(n), fmaLoopGo(n, 8, fmaChainsAVX2); got != want {
				t.Errorf("fmaLoopAVX2(%d) = %v, want %v", n, got, want)
			}
		}
		if haveAVX512 {
			if got, want := fmaLoopAVX512(n), fmaLoopGo(n, 16, fmaChainsAVX512); got != want {
				t.Errorf("fmaLoopAVX512(%d) = %v, want %v", n, got, want)
			}
		}
	}
}

// TestFMAPeak checks that the peak is measured under every implementation
// and that a wider implementation reaches more.
func TestFMAPeak(t *testing.T) {
	rates := map[string]float64{}
	forEachImpl(t, func(t *testing.T) {
		r := FMAPeak(1, 20*time.Millisecond)
		if !(r > 0) {
			t.Fatalf("FMAPeak = %v", r)
		}
		rates[Impl()] = r
	})
	if rates["avx2"] > 0 && rates["avx2"] < rates["go"] {
		t.Errorf("AVX2 peak %.1f GFLOP/s below the Go loop's %.1f", rates["avx2"], rates["go"])
	}
}

// TestAVX512OnlyWithFlag checks the implementation choice against the CPU
// flags the operating system reports: avx512 is offered (and chosen by
// default) exactly when the CPU has AVX-512F, and AVX2 when it has AVX2 and
// FMA.
func TestAVX512OnlyWithFlag(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("reads the CPU flags of /proc/cpuinfo on linux/amd64")
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	var flags []string
	for _, line := range strings.Split(string(info), "\n") {
		if strings.HasPrefix(line, "flags") {
			flags = strings.Fields(line[strings.Index(line, ":")+1:])
			break
		}
	}
	if len(flags) == 0 {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	has := func(f string) bool { return slices.Contains(flags, f) }
	asm := haveAVX2 || !has("avx2") // false only in a purego build on an AVX2 CPU
	wantAVX2 := asm && has("avx2") && has("fma")
	wantAVX512 := wantAVX2 && has("avx512f")
	avail := Available()
	if slices.Contains(avail, "avx512") != wantAVX512 || slices.Contains(avail, "avx2") != wantAVX2 {
		t.Fatalf("available %v with CPU flags avx2=%v fma=%v avx512f=%v", avail, has("avx2"), has("fma"), has("avx512f"))
	}
	if _, err := SetImpl("avx512"); (err == nil) != wantAVX512 {
		t.Errorf("SetImpl(avx512): %v, with avx512f=%v", err, has("avx512f"))
	}
	SetImpl(avail[0])
	if want := avail[0]; Impl() != want {
		t.Errorf("default implementation %s, want %s", Impl(), want)
	}
}

// TestCoreRoundTrip checks that CoreRoundTrip returns 0 on one thread and,
// on two, a positive time below a millisecond (a round trip through
// memory takes well under a microsecond; the goroutines may share a
// thread when the machine is busy, which yields every 16384 waits).
func TestCoreRoundTrip(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	if got := CoreRoundTrip(1000); got != 0 {
		t.Errorf("GOMAXPROCS 1: %v, want 0", got)
	}
	runtime.GOMAXPROCS(2)
	if got := CoreRoundTrip(0); got != 0 {
		t.Errorf("no trips: %v, want 0", got)
	}
	if got := CoreRoundTrip(20000); got <= 0 || got >= time.Millisecond {
		t.Errorf("GOMAXPROCS 2: %v, want in (0, 1ms)", got)
	}
}
