package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
)

// TestMemory: the estimate of every data set's default run is modest, and
// large sizes make it large, the part they size named.
func TestMemory(t *testing.T) {
	for _, ds := range dataset.All {
		s, err := NewSpec(ds, ds.Scenarios[0], "wadn")
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.Memory()
		if err != nil {
			t.Fatal(err)
		}
		if tot := m.Total(); tot < 200<<20 || tot > 6<<30 {
			t.Errorf("%s: the default run needs %s, want between 200 MiB and 6 GiB", ds, bytesText(tot))
		}
	}
	for _, tc := range []struct {
		ds       *dataset.Dataset
		set      map[string]string
		atLeast  float64
		largest  string
		settings string
	}{
		{dataset.Amazon, map[string]string{"hidden": "300000", "depth": "1"}, 20 << 30, "the trained values", "hidden"},
		{dataset.Amazon, map[string]string{"hidden": "1000000,10", "depth": "1"}, 90 << 30, "the trained values", "hidden and depth"},
		{dataset.Amazon, map[string]string{"batch": "1000000"}, 10 << 30, "the activations of a step", "batch and hidden"},
		{dataset.Digits, map[string]string{"batch": "100000"}, 100 << 30, "the activations of a step", "batch"},
		{dataset.OfficeCaltech, map[string]string{"eval-batch": "1000000", "hidden": "4096,4096,4096"}, 10 << 30, "the activations of an evaluation batch", "eval-batch and hidden"},
	} {
		s, err := NewSpec(tc.ds, data.UDA, "wadn")
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.set {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		m, err := s.Memory()
		if err != nil {
			t.Fatal(err)
		}
		big := m.Largest()
		if m.Total() < tc.atLeast || !strings.HasPrefix(big.Name, tc.largest) || strings.Join(big.Settings, " and ") != tc.settings {
			t.Errorf("%s %v: %s, largest %q by %q; want at least %s, %q by %q", tc.ds, tc.set, bytesText(m.Total()), big.Name, big.Settings, bytesText(tc.atLeast), tc.largest, tc.settings)
		}
		err = checkMemory(m, 8<<30, "a machine of 8 GiB")
		if err == nil || !strings.Contains(err.Error(), "more than a machine of 8 GiB: "+tc.largest) || !strings.Contains(err.Error(), "sized by "+tc.settings) {
			t.Errorf("%s %v: %v", tc.ds, tc.set, err)
		}
	}
}

func TestCheckMemory(t *testing.T) {
	m := Memory{Parts: []MemoryPart{{"a", 3 << 30, []string{"batch"}}, {"b", 1 << 30, nil}}}
	if err := checkMemory(m, 4<<30, "x"); err != nil {
		t.Errorf("4 GiB in 4 GiB: %v", err)
	}
	err := checkMemory(m, 4<<30-1, "this machine's 4 GiB")
	if want := "the run needs about 4.0 GiB of memory, more than this machine's 4 GiB: a, sized by batch, 3.0 GiB, are most of it"; err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}

func TestMemTotal(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]float64{
		"MemTotal:       24576000 kB\nMemFree: 1 kB\n": 24576000,
		"MemFree: 1 kB\n":   0,
		"MemTotal: lots\n":  0,
		"MemTotal: -5 kB\n": 0,
	} {
		path := filepath.Join(dir, "meminfo")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok := memTotal(path)
		if got != want && ok || ok != (want > 0) {
			t.Errorf("%q: %v, %v; want %v", body, got, ok, want)
		}
	}
	if _, ok := memTotal(filepath.Join(dir, "none")); ok {
		t.Error("a missing file read")
	}
	if b, of := MachineMemory(); b <= 0 || of == "" {
		t.Errorf("MachineMemory: %v, %q", b, of)
	}
}
