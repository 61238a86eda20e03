//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package lock

import (
	"errors"
	"io/fs"
	"os"
)

// acquire creates path, which must not exist, or returns errBusy. A holder
// that dies leaves the file behind: its description then names the process
// to look for before removing the file by hand.
func acquire(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, errBusy
	}
	return f, err
}

// release closes and removes the lock file.
func release(f *os.File, path string) error {
	f.Close()
	return os.Remove(path)
}
