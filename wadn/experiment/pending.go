package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// Pending is an unfinished run found by a report: its directory holds its
// record but no result, while it trains or since it stopped.
type Pending struct {
	Dir    string
	Record *Record
	Spec   *Spec
	// History is the epoch log as far as its complete lines go: a line
	// being written, or cut short, ends it. Nil when there is no log.
	History []method.EpochLog
	// Logged is when the epoch log was last written (zero: no log).
	Logged time.Time
	// Environment is what the run's directory records of the processes
	// that trained it so far; nil when it records nothing readable.
	Environment []Environment
}

// Epochs returns the number of epochs the run trains in all: its epochs
// setting.
func (p *Pending) Epochs() int { return p.Spec.Train.Epochs }

// Left returns how long the epochs still to train take at the mean
// seconds of the logged epochs; ok is false when no epoch is logged.
func (p *Pending) Left() (left time.Duration, ok bool) {
	if len(p.History) == 0 {
		return 0, false
	}
	var s float64
	for _, h := range p.History {
		s += h.Seconds
	}
	rest := max(0, p.Epochs()-len(p.History))
	return time.Duration(s / float64(len(p.History)) * float64(rest) * float64(time.Second)), true
}

// readPending reads what the directory dir of an unfinished run shows of
// it. Nothing it reads can fail the read: a run being written is read as
// far as it goes.
func readPending(dir string, rec *Record, spec *Spec) *Pending {
	p := &Pending{Dir: dir, Record: rec, Spec: spec}
	path := filepath.Join(dir, trainer.LogFile)
	if b, err := os.ReadFile(path); err == nil {
		p.History = completeLines(b)
		for i := range p.History {
			method.Canonical(spec.Method.Terms, &p.History[i])
		}
		if fi, err := os.Stat(path); err == nil {
			p.Logged = fi.ModTime()
		}
	}
	var envs []Environment
	if ok, err := readJSON(filepath.Join(dir, environmentFile), &envs); ok && err == nil {
		p.Environment = envs
	}
	return p
}

// completeLines decodes the lines of an epoch log up to the first that is
// not complete (no newline yet) or does not decode: non-nil, if empty.
func completeLines(b []byte) []method.EpochLog {
	out := []method.EpochLog{}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		var l method.EpochLog
		if err := json.Unmarshal(b[:i], &l); err != nil {
			return out
		}
		out = append(out, l)
		b = b[i+1:]
	}
}
