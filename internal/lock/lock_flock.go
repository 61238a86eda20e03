//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package lock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// acquire opens path and takes its flock, or returns errBusy.
func acquire(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, err
	}
	return f, nil
}

// release empties the lock file and closes it, which ends the flock. The
// file stays: removing it could race with a waiter that has it open.
func release(f *os.File, path string) error {
	f.Truncate(0)
	return f.Close()
}
