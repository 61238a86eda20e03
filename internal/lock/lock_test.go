package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestTryExcludes(t *testing.T) {
	dir := t.TempDir()
	if h := Named(dir); h != "" {
		t.Errorf("Named before any lock: %q, want none", h)
	}
	l, err := Try(dir)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if h, want := Named(dir), fmt.Sprintf("pid %d on host %s since ", os.Getpid(), host); !strings.HasPrefix(h, want) {
		t.Errorf("Named while held: %q, want it to begin %q", h, want)
	}
	_, err = Try(dir)
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("second Try: %v, want ErrHeld", err)
	}
	for _, want := range []string{"pid ", host, dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if h := Named(dir); h != "" {
		t.Errorf("Named after Release: %q, want none", h)
	}
	l2, err := Try(dir)
	if err != nil {
		t.Fatalf("Try after Release: %v", err)
	}
	l2.Release()
}

func TestWait(t *testing.T) {
	dir := t.TempDir()
	l, err := Try(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Wait(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on a held lock: %v, want the deadline", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		l.Release()
	}()
	l2, err := Wait(context.Background(), dir)
	if err != nil {
		t.Fatalf("Wait for a lock being released: %v", err)
	}
	l2.Release()
}

// TestHeldAcrossProcesses takes the lock in a child process and checks that
// this one cannot take it until the child ends: the kernel lock, not the
// file, excludes.
func TestHeldAcrossProcesses(t *testing.T) {
	if os.Getenv("LOCK_TEST_CHILD") != "" {
		l, err := Try(os.Getenv("LOCK_TEST_CHILD"))
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Hour) // killed by the parent
		l.Release()
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^TestHeldAcrossProcesses$")
	cmd.Env = append(os.Environ(), "LOCK_TEST_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start a child process:", err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		cmd.Process.Kill()
		t.Fatalf("child did not take the lock: %q %v", buf, err)
	}
	if _, err := Try(dir); !errors.Is(err, ErrHeld) {
		t.Errorf("Try while the child holds the lock: %v, want ErrHeld", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Try(dir)
	if err != nil {
		t.Fatalf("Try after the holder died: %v (a kernel lock ends with its holder)", err)
	}
	l.Release()
}
