//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

// TestSignalsStopEveryCommand starts every command on work that takes long
// or never ends (a pipe or a FIFO that nothing writes, a large product, a
// training), sends SIGINT or SIGTERM once it is under way, and checks that
// it ends within a second with exit status 130 or 143, saying it was
// interrupted, without a Go runtime trace. A command without a case fails
// the test.
func TestSignalsStopEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs wadn")
	}
	bin := wadnBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	// A data directory and a run tree whose files are FIFOs: reading them
	// blocks.
	blocked := filepath.Join(dir, "data")
	runs := filepath.Join(dir, "runs", "r")
	served := filepath.Join(dir, "served") // no run yet: wadn serve serves it all the same
	for _, d := range []string{filepath.Join(blocked, "amazon"), runs, served} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(blocked, "amazon", "books_train.svmlight"), filepath.Join(blocked, "SHA256SUMS"), filepath.Join(runs, "run.json")} {
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ckpt := filepath.Join(dir, "a.wadn")
	if err := checkpoint.Save(ckpt, compareFile()); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(dir, "grid.json")
	ten := "[1,2,3,4,5,6,7,8,9,10]"
	if err := os.WriteFile(grid, []byte(fmt.Sprintf(`{"seeds": %s, "lr": %s, "c0": %s, "c2": [1,2,3,4,5,6,7,8,9,10]}`,
		strings.Replace(ten, "10", "0", 1), ten, ten)), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(sweep, []byte(`{"epochs": 50, "seeds": [0, 1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := func(name string) string { return filepath.Join(dir, "out-"+name) }
	cases := []struct {
		name  string
		args  []string
		ready string // a line of stderr that says the work is under way ("": wait a moment)
	}{
		{"audit", []string{"audit"}, ""},
		// 250 GFLOP a product: over a second at any speed here, so the
		// interrupt must not wait for the product (nor for the filling of
		// its operands) to end.
		{"bench", []string{"bench", "matmul", "--m", "5000", "--k", "5000", "--n", "5000", "--runs", "100"}, ""},
		{"compare", []string{"compare", fifo, ckpt}, ""},
		{"data", []string{"data", "verify", "--data", blocked}, ""},
		{"export", []string{"export", fifo, "--out", out("export")}, ""},
		{"import", []string{"import", fifo, "--out", out("import")}, ""},
		{"report", []string{"report", filepath.Dir(runs)}, ""},
		{"run", []string{"run", "--epochs", "50", "--quiet", "--out", out("run")}, "starting in"},
		{"serve", []string{"serve", "--addr", "127.0.0.1:0", served}, "http://"},
		{"solve", []string{"solve"}, ""},
		{"sweep", []string{"sweep", grid, "--list"}, ""},
		{"sweep", []string{"sweep", sweep, "--local", "--quiet", "--out", out("sweep")}, "starting in"},
		{"train", []string{"train", "--domain", "synthgen", "--epochs", "50", "--batch", "16", "--out", out("train")}, "epoch 1/50"},
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.name] = true
	}
	for name := range commands {
		if !covered[name] {
			t.Errorf("command %s has no case: add one that keeps it busy", name)
		}
	}
	for i, tc := range cases {
		sig, code := syscall.SIGINT, 130
		if i%2 == 1 {
			sig, code = syscall.SIGTERM, 143
		}
		t.Run(fmt.Sprintf("%d %s %s", i, tc.name, sig), func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			stdin, err := cmd.StdinPipe() // never written: solve waits on it
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			// stderr is a pipe of the test's own rather than StderrPipe's,
			// which Wait closes as soon as the command ends, before the
			// last lines (the one saying interrupted) may have been read.
			stderr, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stderr.Close()
			cmd.Stderr = w
			cmd.Stdout = io.Discard
			err = cmd.Start()
			w.Close() // the command holds its own copy
			if err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 1000)
			read := make(chan struct{}) // closed at the end of stderr
			var all strings.Builder     // read only once read is closed
			go func() {
				defer close(read)
				defer close(lines)
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					all.WriteString(sc.Text() + "\n")
					select {
					case lines <- sc.Text():
					default: // full: the wait for the ready line is over
					}
				}
			}()
			if tc.ready == "" {
				time.Sleep(300 * time.Millisecond)
			} else {
				deadline := time.After(2 * time.Minute)
			wait:
				for {
					select {
					case l, ok := <-lines:
						if !ok {
							break wait
						}
						if strings.Contains(l, tc.ready) {
							break wait
						}
					case <-deadline:
						t.Fatalf("no %q on stderr in 2 minutes", tc.ready)
					}
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after %s", sig)
			}
			took := time.Since(start)
			select {
			case <-read:
			case <-time.After(10 * time.Second):
				t.Fatalf("stderr still open 10 s after the command ended")
			}
			text := all.String()
			if got := cmd.ProcessState.ExitCode(); got != code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", got, code, text)
			}
			if took > time.Second {
				t.Errorf("took %v after %s, want at most a second", took.Round(time.Millisecond), sig)
			}
			if !strings.Contains(text, "interrupted") || strings.Contains(text, "goroutine ") || strings.Contains(text, "panic") {
				t.Errorf("stderr does not say interrupted, or holds a trace:\n%s", text)
			}
		})
	}
}
