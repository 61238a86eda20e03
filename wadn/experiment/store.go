package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/wadn-go/wadn/internal/atomic"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// StoredFiles are the files of a finished run that Store copies: its
// config file, epoch log, result and, last, its record. They are what wadn
// report reads; the weights, checkpoint and lock file stay behind.
var StoredFiles = []string{ConfigFile, trainer.LogFile, ResultFile, RunFile}

// Store copies the StoredFiles of the finished run in dir to a directory
// of the same name under dest, which it creates if need be. It returns
// true when it wrote them and false when that directory held them
// already, byte for byte. It fails, writing nothing, when dir's run has not
// finished, or when the directory under dest holds the run with other
// contents or files that are not a run's.
//
// Each file is written atomically and the record last, so that a Store
// stopped part way leaves a directory without a record, which wadn report
// passes over and the next Store completes.
func Store(dir, dest string) (wrote bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, ResultFile)); errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%s: the run has not finished (no %s)", dir, ResultFile)
	}
	src := make([][]byte, len(StoredFiles))
	for i, name := range StoredFiles {
		if src[i], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			return false, err
		}
	}
	to := filepath.Join(dest, filepath.Base(dir))
	if _, err := os.Stat(filepath.Join(to, RunFile)); err == nil {
		for i, name := range StoredFiles {
			b, err := os.ReadFile(filepath.Join(to, name))
			if err != nil {
				return false, fmt.Errorf("%s holds the run's record but not the run: %w", to, err)
			}
			if !bytes.Equal(b, src[i]) {
				return false, fmt.Errorf("%s holds another %s than %s: stored from another run of the same identity, or changed; move it away to store this one", filepath.Join(to, name), name, dir)
			}
		}
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	// A directory without the record is one a stopped Store left, unless
	// it holds files Store does not write.
	if name, err := foreignFile(to, func(name string) bool { return slices.Contains(StoredFiles, name) }); err != nil {
		return false, err
	} else if name != "" {
		return false, fmt.Errorf("%s holds %s but no %s: not a run stored by wadn; move its files away", to, name, RunFile)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return false, err
	}
	for i, name := range StoredFiles {
		if err := atomic.WriteFile(filepath.Join(to, name), src[i], 0o644); err != nil {
			return false, err
		}
	}
	return true, nil
}
