// Package datadir locates the benchmark data directory for tests and commands.
//
// The directory is taken, in order, from the WADN_DATA environment variable or,
// for tests and commands run inside the repository, from ../shared/data
// beside the repository root (the directory holding go.mod).
package datadir

import (
	"os"
	"path/filepath"
	"strings"
)

// Env is the environment variable that names the data directory.
const Env = "WADN_DATA"

// Find returns the data directory and true, or "" and false when none exists.
func Find() (string, bool) {
	if d := os.Getenv(Env); d != "" {
		if isDir(d) {
			return d, true
		}
		return "", false
	}
	root, ok := RepoRoot()
	if !ok {
		return "", false
	}
	d := filepath.Join(root, "..", "shared", "data")
	if isDir(d) {
		return filepath.Clean(d), true
	}
	return "", false
}

// RepoRoot walks up from the working directory to the directory holding
// go.mod and returns it.
func RepoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Module is the module path whose repository Default looks beside.
const Module = "github.com/wadn-go/wadn"

// Default returns the data directory of the commands when none is given:
// $WADN_DATA when set (whether or not it exists: a command then names it
// in its error; set and empty, none), else, run inside this module's
// repository, the directory ../shared/data beside its root when there is
// one, as the tests find it; else "".
func Default() string {
	if d, ok := os.LookupEnv(Env); ok {
		return d
	}
	root, ok := RepoRoot()
	if !ok {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !isModule(b, Module) {
		return ""
	}
	if d := filepath.Join(root, "..", "shared", "data"); isDir(d) {
		return filepath.Clean(d)
	}
	return ""
}

// isModule reports whether the go.mod file gomod declares module path.
func isModule(gomod []byte, path string) bool {
	for _, l := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == path {
			return true
		}
	}
	return false
}

// Help describes Default for the commands' help.
const Help = "$" + Env + " when set, else ../shared/data beside this repository's root when run inside it"

// SkipReason is the message tests print when they skip for want of data.
const SkipReason = "no data directory: set " + Env + " or place the shared data at ../shared/data beside the repository root"

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
