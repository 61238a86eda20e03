// Package lock takes exclusive advisory locks on directories, so that two
// processes, on one machine or on the hosts of a cluster sharing a file
// system, never write into one run directory at once.
//
// The lock is the file LOCK in the directory. Where the system has flock
// (Linux, the BSDs, macOS) or LockFileEx (Windows) the lock is the kernel's
// and ends with its holder, however it ends; elsewhere it is the file's
// existence, and a holder that dies leaves it behind. The file names its
// holder: process, host and the time it took the lock.
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// File is the name of the lock file in a locked directory.
const File = "LOCK"

// ErrHeld is wrapped by the error of a lock another holder has.
var ErrHeld = errors.New("locked by another process")

// Lock is a held lock; Release gives it up.
type Lock struct {
	f    *os.File
	path string
}

// Try takes the lock of dir at once, or returns an error wrapping ErrHeld
// that names the holder.
func Try(dir string) (*Lock, error) { return take(context.Background(), dir, false) }

// Wait takes the lock of dir, waiting for its holder to release it until ctx
// is done.
func Wait(ctx context.Context, dir string) (*Lock, error) { return take(ctx, dir, true) }

func take(ctx context.Context, dir string, wait bool) (*Lock, error) {
	path := filepath.Join(dir, File)
	for {
		f, err := acquire(path)
		if err == nil {
			l := &Lock{f: f, path: path}
			if err := l.stamp(); err != nil {
				l.Release()
				return nil, err
			}
			return l, nil
		}
		if !errors.Is(err, errBusy) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !wait {
			return nil, fmt.Errorf("%s is %w: %s", dir, ErrHeld, holder(path))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the lock of %s (%s): %w", dir, holder(path), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// errBusy is acquire's error for a lock held elsewhere.
var errBusy = errors.New("busy")

// stamp writes the holder's description into the lock file.
func (l *Lock) stamp() error {
	host, _ := os.Hostname()
	desc := fmt.Sprintf("pid %d on host %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(desc), 0)
	return err
}

// holder returns the description the lock file at path holds.
func holder(path string) string {
	if h := Named(filepath.Dir(path)); h != "" {
		return "held by " + h
	}
	return "holder unknown"
}

// Named returns the holder the lock file of dir names ("pid P on host H
// since T"), or "" when it names none: there is no lock file, or its last
// holder released it. It reads the file and takes no lock, so it never
// stands in a taker's way. Where the lock is the kernel's, a holder that
// died without releasing it is still named, though the lock is free.
func Named(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := release(l.f, l.path)
	l.f = nil
	return err
}
