package main

import (
	"runtime"
	"testing"
)

func TestParseTHPMode(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"always [madvise] never\n", "madvise", true},
		{"[always] madvise never", "always", true},
		{"always madvise [never]\n", "never", true},
		{"always defer defer+madvise [madvise] never\n", "madvise", true},
		{"always madvise never\n", "", false},
		{"[always] [madvise] never", "", false},
		{"[] madvise", "", false},
		{"", "", false},
	} {
		got, err := parseTHPMode(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseTHPMode(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseSmapsRollup(t *testing.T) {
	const real = `55a4c6a00000-7ffd3a5f5000 ---p 00000000 00:00 0                          [rollup]
Rss:              169660 kB
Pss:              169204 kB
Pss_Anon:         163804 kB
Shared_Clean:        500 kB
Anonymous:        163804 kB
AnonHugePages:    131072 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Swap:                  0 kB
Locked:                0 kB
`
	for _, c := range []struct {
		name      string
		in        string
		huge, rss int64
		ok        bool
	}{
		{"a real file", real, 131072 << 10, 169660 << 10, true},
		{"no huge pages", "Rss: 12 kB\nAnonHugePages: 0 kB\n", 0, 12 << 10, true},
		{"no Rss", "AnonHugePages: 0 kB\n", 0, 0, false},
		{"no AnonHugePages", "Rss: 12 kB\n", 0, 0, false},
		{"another unit", "Rss: 12 MB\nAnonHugePages: 0 kB\n", 0, 0, false},
		{"not a number", "Rss: twelve kB\nAnonHugePages: 0 kB\n", 0, 0, false},
		{"negative", "Rss: -12 kB\nAnonHugePages: 0 kB\n", 0, 0, false},
		{"empty", "", 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			huge, rss, err := parseSmapsRollup(c.in)
			if (err == nil) != c.ok || huge != c.huge || rss != c.rss {
				t.Errorf("got %d, %d, %v; want %d, %d, ok %v", huge, rss, err, c.huge, c.rss, c.ok)
			}
		})
	}
}

// TestReadHugePages reads this process's state where the system has the
// files: a mode, and resident memory that holds the huge pages.
func TestReadHugePages(t *testing.T) {
	h := readHugePages()
	if h == nil {
		if runtime.GOOS == "linux" {
			t.Logf("no %s or %s here", thpModeFile, smapsRollup)
		}
		t.Skip("the system reports no transparent huge pages")
	}
	switch h.Mode {
	case "always", "madvise", "never":
	default:
		t.Errorf("mode %q", h.Mode)
	}
	if h.Resident <= 0 || h.Bytes < 0 || h.Bytes > h.Resident {
		t.Errorf("%d bytes in huge pages of %d resident", h.Bytes, h.Resident)
	}
}
