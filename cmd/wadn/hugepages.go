package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// hugePages is the state of transparent huge pages where the system
// reports it (Linux). The kernel's setting moves the Digits step by a few
// per cent (docs/performance.md, the twenty-first round), so timings
// record it beside the peak.
type hugePages struct {
	// Mode is the kernel's setting: always, madvise (only memory a
	// program advises gets huge pages; nothing of this program does) or
	// never.
	Mode string `json:"mode"`
	// Bytes is the process's anonymous memory in huge pages
	// (AnonHugePages), Resident its resident memory (Rss), read after the
	// timed runs.
	Bytes    int64 `json:"bytes"`
	Resident int64 `json:"resident_bytes"`
}

const (
	thpModeFile = "/sys/kernel/mm/transparent_hugepage/enabled"
	smapsRollup = "/proc/self/smaps_rollup"
)

// readHugePages returns the state of transparent huge pages, or nil where
// either file cannot be read or parsed (other systems, older kernels).
func readHugePages() *hugePages {
	m, err := os.ReadFile(thpModeFile)
	if err != nil {
		return nil
	}
	mode, err := parseTHPMode(string(m))
	if err != nil {
		return nil
	}
	s, err := os.ReadFile(smapsRollup)
	if err != nil {
		return nil
	}
	huge, rss, err := parseSmapsRollup(string(s))
	if err != nil {
		return nil
	}
	return &hugePages{Mode: mode, Bytes: huge, Resident: rss}
}

// parseTHPMode returns the word in brackets of the kernel's list of modes,
// as "always [madvise] never".
func parseTHPMode(s string) (string, error) {
	var mode string
	for _, w := range strings.Fields(s) {
		if len(w) > 2 && w[0] == '[' && w[len(w)-1] == ']' {
			if mode != "" {
				return "", fmt.Errorf("%q: more than one mode in brackets", s)
			}
			mode = w[1 : len(w)-1]
		}
	}
	if mode == "" {
		return "", fmt.Errorf("%q: no mode in brackets", s)
	}
	return mode, nil
}

// parseSmapsRollup returns the AnonHugePages and Rss of a
// /proc/PID/smaps_rollup, in bytes.
func parseSmapsRollup(s string) (huge, rss int64, err error) {
	var seen int
	for line := range strings.Lines(s) {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "AnonHugePages" && name != "Rss") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("smaps_rollup: %s: want a count of kB, got %q", name, strings.TrimSpace(rest))
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || v < 0 || v > 1<<43 {
			return 0, 0, fmt.Errorf("smaps_rollup: %s: want a count of kB, got %q", name, f[0])
		}
		if name == "Rss" {
			rss, seen = v<<10, seen|1
		} else {
			huge, seen = v<<10, seen|2
		}
	}
	if seen != 3 {
		return 0, 0, errors.New("smaps_rollup: no Rss or no AnonHugePages line")
	}
	return huge, rss, nil
}
