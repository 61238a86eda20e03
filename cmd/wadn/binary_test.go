package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binary builds wadn once for the tests that run it as a process, in a
// directory removed by TestMain.
var binary = struct {
	once sync.Once
	dir  string
	path string
	err  error
}{}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// wadnBinary returns the path of a wadn built from this package.
func wadnBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "wadn-bin"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "wadn")
		if out, err := exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}
