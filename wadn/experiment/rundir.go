package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wadn-go/wadn/internal/atomic"
	"github.com/wadn-go/wadn/internal/lock"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// The files of a run directory. RunFile records the run's identity before
// it trains; ResultFile its result once it has finished. The directory also
// holds the epoch log (trainer.LogFile), the checkpoint (trainer.
// CheckpointFile) while the run is unfinished and its weights (ModelFile)
// once it has finished, and the lock file of package internal/lock.
const (
	RunFile    = "run.json"
	ResultFile = "result.json"
	// ConfigFile is the run as an experiment file: "wadn run --config"
	// runs it again (and finds it finished).
	ConfigFile = "config.json"
	// ModelFile holds a finished run's weights (a checkpoint without the
	// optimiser's state), for wadn export.
	ModelFile = "model.wadn"
)

// Record is what a run directory's RunFile holds.
type Record struct {
	Version  int       `json:"version"`
	Key      string    `json:"key"` // Identity.Key
	Identity *Identity `json:"identity"`
	// DataDir is where the run's data were loaded from ("" for the copy
	// embedded in the binary), to load them again when it resumes; the
	// identity's checksums, not this path, say which data they were.
	DataDir string `json:"data_dir"`
}

// RecordVersion is the version of the Record layout that this package
// writes and reads.
const RecordVersion = 1

// RunResult is what a finished run's ResultFile holds.
type RunResult struct {
	Accuracy    float64       `json:"accuracy"` // target test accuracy after the last epoch, percent
	Alpha       [][]float64   `json:"alpha"`
	TrueAlpha   [][]float64   `json:"true_alpha"`
	Lambda      []float64     `json:"lambda"`
	Epochs      int           `json:"epochs"`
	Environment []Environment `json:"environment"` // one per process that trained a part of the run, in order
}

// readJSON decodes the JSON file at path into v; ok is false when there is
// no such file.
func readJSON(path string, v any) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// readRecord reads the RunFile of dir; ok is false when there is none.
func readRecord(dir string) (rec *Record, ok bool, err error) {
	path := filepath.Join(dir, RunFile)
	rec = new(Record)
	if ok, err = readJSON(path, rec); !ok {
		return nil, false, err
	}
	if rec.Version != RecordVersion || rec.Identity == nil {
		return nil, false, fmt.Errorf("%s: not a run record of version %d", path, RecordVersion)
	}
	if k := rec.Identity.Key(); k != rec.Key {
		return nil, false, fmt.Errorf("%s: its identity has key %s, not the %s it records (the file was edited)", path, k, rec.Key)
	}
	return rec, true, nil
}

// readResult reads the ResultFile of dir; ok is false when there is none.
func readResult(dir string) (res *RunResult, ok bool, err error) {
	res = new(RunResult)
	if ok, err = readJSON(filepath.Join(dir, ResultFile), res); !ok {
		return nil, false, err
	}
	return res, true, nil
}

// eachRun calls fn for every run directory under dir (dir itself, or below
// it at any depth, following symbolic links to directories, each real
// directory once), with the path as reached from dir, the real path, its
// record and its result (nil when unfinished). A directory holding a
// checkpoint but no record is passed with a nil record. A record or a
// result that cannot be read is passed as damaged, with the record when it
// was read: fn decides whether to go on. It does not look inside a run
// directory.
func eachRun(dir string, fn func(at, path string, rec *Record, res *RunResult, damaged error) error) error {
	seen := map[string]bool{}
	var walk func(real, shown string) error
	walk = func(real, shown string) error {
		if seen[real] {
			return nil
		}
		seen[real] = true
		return filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(real, path)
			if err != nil {
				return err
			}
			at := filepath.Join(shown, rel)
			if d.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(path)
				if err != nil {
					return nil // a dangling link is no run
				}
				if fi, err := os.Stat(target); err == nil && fi.IsDir() {
					return walk(target, at)
				}
				return nil
			}
			if !d.IsDir() {
				return nil
			}
			rec, ok, err := readRecord(path)
			if err != nil {
				if err := fn(at, path, nil, nil, err); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			if !ok {
				if _, err := os.Stat(filepath.Join(path, trainer.CheckpointFile)); err == nil {
					if err := fn(at, path, nil, nil, nil); err != nil {
						return err
					}
				}
				return nil
			}
			res, _, err := readResult(path)
			if err := fn(at, path, rec, res, err); err != nil {
				return err
			}
			return filepath.SkipDir
		})
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	return walk(real, dir)
}

// State is how far a run has got, as its directory shows it.
type State struct {
	Dir    string     // the run's directory (it need not exist)
	Result *RunResult // the result, once the run has finished
	// Started says the directory holds the run's record: the run has
	// started, in this process or another.
	Started bool
	Epochs  int       // epochs in the epoch log
	Logged  time.Time // when the epoch log was last written (zero: no log)
	// Holder is the process its lock file names (lock.Named): the one
	// training the run, or one that died doing so.
	Holder string
	// Refused is why running the task would refuse the directory (it holds
	// another run's record, or files but no record), or nil.
	Refused error
}

// State returns the state of s's directory under Out. It loads s's data
// (once per data set and data settings) for the run's identity, which
// names the directory, and takes no lock.
func (rn *Runner) State(s *Spec) (*State, error) {
	id, _, err := rn.identity(s)
	if err != nil {
		return nil, err
	}
	st := &State{Dir: filepath.Join(rn.Out, id.Name())}
	rec, ok, err := readRecord(st.Dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		config, err := marshalJSON(s.File())
		if err != nil {
			return nil, err
		}
		st.Refused = strayFiles(st.Dir, config)
		return st, nil
	}
	if rec.Key != id.Key() {
		st.Refused = otherRun(st.Dir, rec, id)
		return st, nil
	}
	st.Started = true
	if st.Result, _, err = readResult(st.Dir); err != nil {
		return nil, err
	}
	hist, err := ReadHistory(st.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	st.Epochs = len(hist)
	if fi, err := os.Stat(filepath.Join(st.Dir, trainer.LogFile)); err == nil {
		st.Logged = fi.ModTime()
	}
	st.Holder = lock.Named(st.Dir)
	return st, nil
}

// ReadHistory reads the epoch log of a run directory: non-nil, if empty,
// when the file exists.
func ReadHistory(dir string) ([]method.EpochLog, error) {
	path := filepath.Join(dir, trainer.LogFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := []method.EpochLog{}
	dec := json.NewDecoder(f)
	for dec.More() {
		var l method.EpochLog
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, len(out)+1, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// marshalJSON returns v as the files of a run directory hold it: indented
// JSON and a newline.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", " ")
	return append(b, '\n'), err
}

// writeJSON writes v as indented JSON to path atomically.
func writeJSON(path string, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	return atomic.WriteFile(path, b, 0o644)
}

// strayFiles returns an error naming a file of dir, a run's directory
// without a record, that no run of this program would have left there:
// anything but the lock file, writers' temporary files (atomic.IsTemp) and
// a config file holding exactly config, which a run stopped between
// writing its config file and its record leaves behind. A directory that
// does not exist holds none.
func strayFiles(dir string, config []byte) error {
	name, err := foreignFile(dir, func(name string) bool {
		if name != ConfigFile {
			return name == lock.File
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		return err == nil && bytes.Equal(b, config)
	})
	if err != nil || name == "" {
		return err
	}
	return fmt.Errorf("%s holds %s but no %s: not a run directory this program made; move its files away", dir, name, RunFile)
}

// foreignFile returns the first name in dir, in name order, that is
// neither a writer's temporary file (atomic.IsTemp) nor one that known
// accepts; "" when there is none or dir does not exist.
func foreignFile(dir string, known func(name string) bool) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if name := e.Name(); !atomic.IsTemp(name) && !known(name) {
			return name, nil
		}
	}
	return "", nil
}

// describe returns a one-line description of an identity for messages.
func describe(id *Identity) string {
	return fmt.Sprintf("%s %s on %s target %s, seed %d, key %s", id.Method, id.Scenario, id.Dataset, id.Target, id.Seed, id.Key())
}
