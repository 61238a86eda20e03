// Package atomic writes files so that a reader sees the old content or the
// new, never a part, and so that writers never share a temporary file.
package atomic

import (
	"os"
	"path/filepath"
	"strings"
)

// tempPattern returns the os.CreateTemp pattern of path's temporary files:
// hidden, beside it, unique per writer.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// WriteFile writes data to path through a temporary file of its own in the
// same directory, synced and renamed over path. On failure the temporary
// file is removed and path is left as it was.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil && !isChmodUnsupported() {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// IsTemp reports whether name, a file name without directory, is a
// temporary file of WriteFile or of the checkpoint writer (".NAME.tmp-*").
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// RemoveTemps removes the temporary files left in dir by writers that died
// (IsTemp), and returns their names. Call it only while no writer can be
// at work in dir (under its lock).
func RemoveTemps(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if e.Type().IsRegular() && IsTemp(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return removed, err
			}
			removed = append(removed, e.Name())
		}
	}
	return removed, nil
}
