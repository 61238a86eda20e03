package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wadn-go/wadn/internal/atomic"
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

// readRecord reads the RunFile of dir; ok is false when there is none.
func readRecord(dir string) (rec *Record, ok bool, err error) {
	path := filepath.Join(dir, RunFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rec = new(Record)
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
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
	path := filepath.Join(dir, ResultFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	res = new(RunResult)
	if err := json.Unmarshal(b, res); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return res, true, nil
}

// ReadHistory reads the epoch log of a run directory.
func ReadHistory(dir string) ([]method.EpochLog, error) {
	path := filepath.Join(dir, trainer.LogFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []method.EpochLog
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

// writeJSON writes v as indented JSON to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return atomic.WriteFile(path, append(b, '\n'), 0o644)
}

// describe returns a one-line description of an identity for messages.
func describe(id *Identity) string {
	return fmt.Sprintf("%s %s on %s target %s, seed %d, key %s", id.Method, id.Scenario, id.Dataset, id.Target, id.Seed, id.Key())
}
