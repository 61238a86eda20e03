package wadn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wadn-go/wadn/data"
)

// tinyExperiment returns a one-epoch source-only experiment on four tiny
// domains, target "t", writing to dir.
func tinyExperiment(t *testing.T, dir string) *Experiment {
	t.Helper()
	var domains []data.Domain
	for i, name := range []string{"a", "b", "c", "t"} {
		tr := tinySparse(name, 40, 0.5, 3*i, uint64(10+i))
		te := tinySparse(name, 20, 0.5, 3*i, uint64(20+i))
		domains = append(domains, data.Domain{Dataset: "amazon", Name: name, Train: tr.Split, Test: te.Split})
	}
	cfg := tinyConfig(t, data.UDA)
	cfg.Epochs = 1
	return &Experiment{
		Dataset: "amazon", Target: "t", Method: "source", Seeds: []uint64{0, 1},
		Config: cfg, Protocol: data.Protocol{Scenario: data.UDA, DropClasses: []int{0}, DropRate: 0.5},
		Domains: domains, OutDir: dir,
	}
}

func TestResumeChecksSettings(t *testing.T) {
	dir := t.TempDir()
	first, err := tinyExperiment(t, dir).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, SettingsFile)); err != nil {
		t.Fatalf("no settings recorded: %v", err)
	}

	// The same settings resume: finished seeds are read back, not retrained.
	e := tinyExperiment(t, dir)
	e.Resume = true
	again, err := e.Run(context.Background())
	if err != nil {
		t.Fatalf("resume with the same settings: %v", err)
	}
	if again.Mean != first.Mean {
		t.Errorf("resumed mean %v, first run %v", again.Mean, first.Mean)
	}

	for _, c := range []struct {
		name, want string
		change     func(e *Experiment)
	}{
		{"config", "Config.LR: recorded 0.5, now 0.25", func(e *Experiment) { e.Config.LR = 0.25 }},
		{"baseline config", "Config.Baseline.Mu", func(e *Experiment) { e.Method, e.Config.Baseline.Mu = "dann", 0.5 }},
		{"protocol", "Pool", func(e *Experiment) { e.Protocol.Pool = true }},
		{"method", "Method", func(e *Experiment) { e.Method = "dann" }},
		{"sources", "Sources", func(e *Experiment) { e.Sources = []string{"a", "b"} }},
	} {
		e := tinyExperiment(t, dir)
		e.Resume = true
		c.change(e)
		_, err := e.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "other settings") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume with another %s: error %v, want one naming %s", c.name, err, c.want)
		}
	}

	// Settings the method does not read resume.
	for _, change := range []func(e *Experiment){
		func(e *Experiment) { e.Config.C0, e.Config.OracleAlpha = 0.5, true },
		func(e *Experiment) { e.Config.Baseline.Mu, e.Config.Baseline.M3SDAOrder = 0.5, 2 },
	} {
		e := tinyExperiment(t, dir)
		e.Resume = true
		change(e)
		if _, err := e.Run(context.Background()); err != nil {
			t.Errorf("resume with a setting source does not read: %v", err)
		}
	}

	// Without --resume the directory is started afresh under the new
	// settings, which a later resume then checks against.
	e = tinyExperiment(t, dir)
	e.Config.LR = 0.25
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Resume = true
	if _, err := e.Run(context.Background()); err != nil {
		t.Errorf("resume after a fresh run with the new settings: %v", err)
	}

	// A directory from before settings were recorded resumes as it is and
	// records them.
	if err := os.Remove(filepath.Join(dir, SettingsFile)); err != nil {
		t.Fatal(err)
	}
	e = tinyExperiment(t, dir)
	e.Resume = true
	if _, err := e.Run(context.Background()); err != nil {
		t.Errorf("resume without recorded settings: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, SettingsFile)); err != nil {
		t.Errorf("settings not recorded on resume: %v", err)
	}
}

// TestCheckpointsRemoved checks that a finished seed's checkpoint is removed
// once its result is written, unless KeepCheckpoints, and that a resume
// reads finished seeds from their results either way.
func TestCheckpointsRemoved(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		e := tinyExperiment(t, dir)
		e.KeepCheckpoints = keep
		first, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range []string{"seed0", "seed1"} {
			if _, err := os.Stat(filepath.Join(dir, seed, ResultFile)); err != nil {
				t.Fatalf("keep %v: %v", keep, err)
			}
			_, err := os.Stat(filepath.Join(dir, seed, CheckpointFile))
			if kept := err == nil; kept != keep {
				t.Errorf("keep %v: %s checkpoint kept %v (%v)", keep, seed, kept, err)
			}
		}
		e = tinyExperiment(t, dir)
		e.Resume = true
		again, err := e.Run(context.Background())
		if err != nil || again.Mean != first.Mean {
			t.Errorf("keep %v: resumed mean %v (error %v), first %v", keep, again.Mean, err, first.Mean)
		}
	}
}

// TestRunJobs checks that seeds trained side by side give what they give
// one after the other, that a failing seed's error is the one returned
// when the seeds beside it are stopped for it, and that a resume then
// completes the experiment with the same results.
func TestRunJobs(t *testing.T) {
	for _, method := range []string{"wadn", "m3sda"} {
		t.Run(method, func(t *testing.T) {
			run := func(dir string, jobs int, resume bool) (*ExperimentResult, error) {
				e := tinyExperiment(t, dir)
				e.Method, e.Seeds, e.Jobs, e.Resume = method, []uint64{0, 1, 2}, jobs, resume
				e.Config.Epochs = 2
				return e.Run(context.Background())
			}
			want, err := run(t.TempDir(), 1, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(t.TempDir(), 3, false)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("3 jobs against 1 (-want +got):\n%s", d)
			}

			dir := t.TempDir()
			bad := filepath.Join(dir, "seed1", ResultFile)
			if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = run(dir, 3, true)
			if err == nil || errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), bad) {
				t.Fatalf("with seed 1's result corrupt: error %v, want one naming %s", err, bad)
			}
			if err := os.Remove(bad); err != nil {
				t.Fatal(err)
			}
			got, err = run(dir, 2, true)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("resumed after the failure (-want +got):\n%s", d)
			}
		})
	}
}

// TestRunJobsInterrupted checks that a cancelled context stops seeds that
// run side by side with ErrInterrupted, starting none of the rest.
func TestRunJobsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := tinyExperiment(t, t.TempDir())
	e.Seeds, e.Jobs = []uint64{0, 1, 2, 3}, 2
	res, err := e.Run(ctx)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("cancelled run returned %v, want ErrInterrupted", err)
	}
	if len(res.Accuracy) != 0 {
		t.Errorf("cancelled run reported accuracies %v", res.Accuracy)
	}
}

func TestRunRefusesRepeatedSeed(t *testing.T) {
	e := tinyExperiment(t, t.TempDir())
	e.Seeds, e.Jobs = []uint64{3, 1, 3}, 2
	if _, err := e.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "seed 3 is given twice") {
		t.Errorf("seeds 3,1,3: error %v, want one naming seed 3", err)
	}
}
