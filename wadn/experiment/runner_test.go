package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/lock"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// smallSpecs returns the specs of method on the embedded Amazon reviews,
// small: 100 reviews drawn per domain, 50 to test, the MLP [32 16 8], one
// epoch, at the given seeds, with settings set.
func smallSpecs(t *testing.T, methodName string, seeds []uint64, set map[string]string) []*Spec {
	t.Helper()
	p := &Plan{Methods: []string{methodName}, Seeds: seeds}
	for k, v := range map[string]string{"train-size": "100", "test-size": "50", "hidden": "32,16,8", "epochs": "1"} {
		p.Set(k, v)
	}
	for k, v := range set {
		p.Set(k, v)
	}
	specs, err := p.Specs()
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// accuracies returns the outcomes' accuracies.
func accuracies(outs []*Outcome) []float64 {
	var a []float64
	for _, o := range outs {
		a = append(a, o.Result.Accuracy)
	}
	return a
}

// TestRunDirectoriesByIdentity checks that runs of other settings go to
// their own directories, never mixing, and that a run found finished is
// reused, not trained again.
func TestRunDirectoriesByIdentity(t *testing.T) {
	out := t.TempDir()
	rn := &Runner{Out: out}
	a, err := rn.Run(context.Background(), smallSpecs(t, "wadn", []uint64{0, 1}, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, err := rn.Run(context.Background(), smallSpecs(t, "wadn", []uint64{0}, map[string]string{"c0": "0.05"}))
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Dir == b[0].Dir || a[0].Dir == a[1].Dir {
		t.Fatalf("run directories %s, %s, %s: want three", a[0].Dir, a[1].Dir, b[0].Dir)
	}
	again, err := rn.Run(context.Background(), smallSpecs(t, "wadn", []uint64{0, 1}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range again {
		if !o.Reused || o.Dir != a[i].Dir || o.Result.Accuracy != a[i].Result.Accuracy {
			t.Errorf("seed %d again: reused %v in %s with %v, want the first run's %s %v", i, o.Reused, o.Dir, o.Result.Accuracy, a[i].Dir, a[i].Result.Accuracy)
		}
	}
	rep, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range rep.Rows {
		labels = append(labels, fmt.Sprint(r.Name(), " ", r.Seeds))
	}
	want := []string{
		"wadn [epochs 1, train-size 100, test-size 50, hidden 32,16,8] [0 1]",
		"wadn [epochs 1, train-size 100, test-size 50, hidden 32,16,8, c0 0.05] [0]",
	}
	if d := cmp.Diff(want, labels); d != "" {
		t.Errorf("report rows (-want +got):\n%s", d)
	}
}

// TestRunRefusesForeignDirectory checks that a directory holding another
// run's record, or files without a record, is never written into.
func TestRunRefusesForeignDirectory(t *testing.T) {
	out := t.TempDir()
	rn := &Runner{Out: out}
	first, err := rn.Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil))
	if err != nil {
		t.Fatal(err)
	}
	dir := first[0].Dir
	// Another identity written into its record: the key no longer matches.
	rec, _, err := readRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec.Identity.Seed = 7
	if err := writeJSON(filepath.Join(dir, RunFile), rec); err != nil {
		t.Fatal(err)
	}
	if _, err := rn.Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil)); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Errorf("edited record: %v, want a refusal", err)
	}
	// A consistent record of another run under this run's name.
	rec.Key = rec.Identity.Key()
	if err := writeJSON(filepath.Join(dir, RunFile), rec); err != nil {
		t.Fatal(err)
	}
	_, err = rn.Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil))
	if err == nil || !strings.Contains(err.Error(), "seed 7") || !strings.Contains(err.Error(), "seed 0") {
		t.Errorf("another run's record: %v, want a refusal naming both runs", err)
	}
	// A checkpoint without a record: its identity is unknown.
	if err := os.Remove(filepath.Join(dir, RunFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, trainer.CheckpointFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rn.Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil)); err == nil || !strings.Contains(err.Error(), "no "+RunFile) {
		t.Errorf("files without a record: %v, want a refusal", err)
	}
	if _, _, err := Unfinished(out); err == nil || !strings.Contains(err.Error(), "holds a checkpoint but no "+RunFile) {
		t.Errorf("resuming a checkpoint without a record: %v, want a refusal", err)
	}
}

// TestRunLocked checks that a run whose directory another holder has locked
// is refused at once, naming the holder, or waits for it with Wait.
func TestRunLocked(t *testing.T) {
	out := t.TempDir()
	specs := smallSpecs(t, "source", []uint64{0}, nil)
	rn := &Runner{Out: out}
	domains, err := rn.Domains(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	id, err := specs[0].Identity(domains)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, id.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := lock.Try(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rn.Run(context.Background(), specs); !errors.Is(err, lock.ErrHeld) || !strings.Contains(err.Error(), "pid") {
		t.Errorf("locked run directory: %v, want ErrHeld naming the holder", err)
	}
	rn.Wait = true
	done := make(chan error, 1)
	go func() {
		_, err := rn.Run(context.Background(), specs)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Wait did not wait: %v", err)
	default:
	}
	l.Release()
	if err := <-done; err != nil {
		t.Errorf("after the holder let go: %v", err)
	}
}

// TestRunCleansTemps checks that the temporary files a killed writer left
// are removed when a run starts in the directory.
func TestRunCleansTemps(t *testing.T) {
	out := t.TempDir()
	rn := &Runner{Out: out}
	first, err := rn.Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil))
	if err != nil {
		t.Fatal(err)
	}
	dir := first[0].Dir
	left := []string{".checkpoint.wadn.tmp-123", ".result.json.tmp-9"}
	for _, n := range left {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("part"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rn.Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil)); err != nil {
		t.Fatal(err)
	}
	for _, n := range left {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%s left in place", n)
		}
	}
}

// TestResumeUnfinished interrupts runs, finds them with Unfinished, which
// needs nothing but the directory, and continues them to the results of
// uninterrupted runs.
func TestResumeUnfinished(t *testing.T) {
	set := map[string]string{"epochs": "2", "c0": "0.05"}
	want, err := (&Runner{}).Run(context.Background(), smallSpecs(t, "wadn", []uint64{0, 1}, set))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	rn := &Runner{Out: out, Jobs: 2}
	// The first report of each run waits until the other run has reported
	// too, and the second first report cancels: both runs are interrupted
	// after their first step (of 8), however the two are scheduled.
	var mu sync.Mutex // the runs report from their goroutines
	started := map[uint64]bool{}
	both := make(chan struct{})
	rn.Progress = func(s *Spec, _ method.Progress) {
		mu.Lock()
		first := !started[s.Seed]
		started[s.Seed] = true
		n := len(started)
		mu.Unlock()
		if !first {
			return
		}
		if n == 2 {
			cancel()
			close(both)
			return
		}
		select {
		case <-both:
		case <-time.After(2 * time.Minute):
			t.Errorf("seed %d: the other run did not start within 2 minutes", s.Seed)
		}
	}
	if _, err := rn.Run(ctx, smallSpecs(t, "wadn", []uint64{0, 1}, set)); !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("interrupted runs: %v", err)
	}
	envFiles, err := filepath.Glob(filepath.Join(out, "*", environmentFile))
	if err != nil || len(envFiles) != 2 {
		t.Fatalf("environment files of the interrupted runs: %q, %v", envFiles, err)
	}
	for _, f := range envFiles {
		var envs []Environment
		if b, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		} else if err := json.Unmarshal(b, &envs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(envs) != 1 || envs[0].Interrupted == nil || envs[0].Finished != nil || envs[0].Interrupted.Before(envs[0].Started) {
			t.Errorf("%s: %+v, want one environment, interrupted after it started and not finished", f, envs)
		}
	}
	specs, dirs, err := Unfinished(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || dirs[0] != "" {
		t.Fatalf("%d unfinished runs, data %q", len(specs), dirs)
	}
	for _, s := range specs {
		if l := s.Label(); l != "epochs 2, train-size 100, test-size 50, hidden 32,16,8, c0 0.05" {
			t.Errorf("recorded settings %q", l)
		}
	}
	got, err := (&Runner{Out: out}).Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	bySeed := map[uint64]float64{}
	for _, o := range got {
		bySeed[o.Spec.Seed] = o.Result.Accuracy
		envs := o.Result.Environment
		if len(envs) != 2 || envs[0].Interrupted == nil || envs[0].Finished != nil ||
			envs[1].Interrupted != nil || envs[1].Finished == nil || envs[1].Finished.Before(envs[1].Started) {
			t.Errorf("seed %d resumed: environments %+v, want the interrupted process's, then the finishing one's", o.Spec.Seed, envs)
		}
	}
	for _, o := range want {
		if envs := o.Result.Environment; len(envs) != 1 || envs[0].Finished == nil || envs[0].Interrupted != nil || envs[0].FromEpoch != 0 {
			t.Errorf("seed %d uninterrupted: environments %+v, want one, finished", o.Spec.Seed, envs)
		}
		if bySeed[o.Spec.Seed] != o.Result.Accuracy {
			t.Errorf("seed %d resumed: %v, uninterrupted %v", o.Spec.Seed, bySeed[o.Spec.Seed], o.Result.Accuracy)
		}
	}
	if specs, _, _ := Unfinished(out); len(specs) != 0 {
		t.Errorf("%d runs still unfinished", len(specs))
	}
}

// TestState follows one run's directory through State: not started,
// interrupted after its first epoch, locked by a process, finished; and a
// directory that holds another run's record, which State and Run refuse.
func TestState(t *testing.T) {
	specs := smallSpecs(t, "source", []uint64{0, 1}, map[string]string{"epochs": "2"})
	out := t.TempDir()
	rn := &Runner{Out: out}
	state := func() *State {
		t.Helper()
		st, err := rn.State(specs[0])
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := state()
	if st.Started || st.Result != nil || st.Epochs != 0 || filepath.Dir(st.Dir) != out {
		t.Fatalf("before the run: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rn.Progress = func(_ *Spec, p method.Progress) {
		if p.Epoch == 2 {
			cancel()
		}
	}
	if _, err := rn.Run(ctx, specs[:1]); !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	rn.Progress = nil
	st = state()
	if !st.Started || st.Result != nil || st.Epochs != 1 || st.Logged.IsZero() || st.Holder != "" {
		t.Fatalf("interrupted in epoch 2: %+v", st)
	}
	l, err := lock.Try(st.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := state().Holder; !strings.HasPrefix(h, fmt.Sprintf("pid %d on host ", os.Getpid())) {
		t.Errorf("locked: holder %q, want this process", h)
	}
	l.Release()
	outs, err := rn.Run(context.Background(), specs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if st = state(); st.Result == nil || st.Result.Accuracy != outs[0].Result.Accuracy || st.Epochs != 2 || st.Dir != outs[0].Dir {
		t.Fatalf("finished: %+v, want the outcome's result (%v) and 2 epochs in %s", st, outs[0].Result.Accuracy, outs[0].Dir)
	}
	other, err := rn.State(specs[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(other.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join(st.Dir, RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other.Dir, RunFile), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := rn.State(specs[1]); err != nil || st.Refused == nil || !strings.Contains(st.Refused.Error(), "another run's directory") {
		t.Errorf("a directory holding seed 0's record as seed 1's: refused %v, error %v", st.Refused, err)
	}
	if _, err := rn.Run(context.Background(), specs[1:]); err == nil || !strings.Contains(err.Error(), "another run's directory") {
		t.Errorf("running seed 1 in a directory holding seed 0's record: %v", err)
	}
}

// TestStrayFiles checks which files a run's directory may hold before its
// record: a run stopped between writing its config file and its record
// goes on, while any other file, or a config file of other bytes, makes
// Run refuse the directory and State say so.
func TestStrayFiles(t *testing.T) {
	spec := smallSpecs(t, "source", []uint64{0}, map[string]string{"epochs": "1"})[0]
	config, err := marshalJSON(spec.File())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		files map[string][]byte
		stray string // the file named in the refusal; "" when the run goes on
	}{
		{"empty", nil, ""},
		{"lock and temporary file", map[string][]byte{lock.File: nil, "." + RunFile + ".tmp-123": []byte("{")}, ""},
		{"own config", map[string][]byte{ConfigFile: config}, ""},
		{"other config", map[string][]byte{ConfigFile: append([]byte(" "), config...)}, ConfigFile},
		{"foreign file", map[string][]byte{ConfigFile: config, "notes.txt": []byte("mine")}, "notes.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rn := &Runner{Out: t.TempDir()}
			st, err := rn.State(spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(st.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, b := range c.files {
				if err := os.WriteFile(filepath.Join(st.Dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if st, err = rn.State(spec); err != nil || st.Started {
				t.Fatalf("state: %+v, %v", st, err)
			}
			_, runErr := rn.Run(context.Background(), []*Spec{spec})
			if c.stray == "" {
				if st.Refused != nil || runErr != nil {
					t.Fatalf("refused %v, run error %v; want the run to go on", st.Refused, runErr)
				}
				if st, err := rn.State(spec); err != nil || st.Result == nil {
					t.Errorf("after the run: %+v, %v", st, err)
				}
				return
			}
			want := "holds " + c.stray + " but no " + RunFile
			if st.Refused == nil || !strings.Contains(st.Refused.Error(), want) {
				t.Errorf("state refused %v, want %q", st.Refused, want)
			}
			if runErr == nil || !strings.Contains(runErr.Error(), want) {
				t.Errorf("run error %v, want %q", runErr, want)
			}
		})
	}
}

// TestCheckpointsRemoved checks that a finished run keeps its checkpoint
// only when asked to, and its weights otherwise: the checkpoint's tensors
// without the optimiser's state.
func TestCheckpointsRemoved(t *testing.T) {
	for _, keep := range []bool{false, true} {
		outs, err := (&Runner{Out: t.TempDir(), KeepCheckpoints: keep}).Run(context.Background(), smallSpecs(t, "source", []uint64{0}, nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(filepath.Join(outs[0].Dir, trainer.CheckpointFile))
		if kept := err == nil; kept != keep {
			t.Errorf("keep %v: checkpoint kept %v (%v)", keep, kept, err)
		}
		if !keep {
			m, err := checkpoint.Load(filepath.Join(outs[0].Dir, ModelFile))
			if err != nil || len(m.Tensors) == 0 || len(m.Optim) != 0 {
				t.Errorf("weights: %v (%d tensors, %d of the optimiser)", err, len(m.Tensors), len(m.Optim))
			}
		}
		if _, err := os.Stat(filepath.Join(outs[0].Dir, ResultFile)); err != nil {
			t.Errorf("keep %v: %v", keep, err)
		}
	}
}

// TestModelFileKeepsAverage checks that a finished run that evaluated the
// average of its weights keeps that average as its weights, and that
// useAverages refuses an average of no parameter.
func TestModelFileKeepsAverage(t *testing.T) {
	spec := func() []*Spec { return smallSpecs(t, "source", []uint64{0}, map[string]string{"average": "0.9"}) }
	kept, err := (&Runner{Out: t.TempDir(), KeepCheckpoints: true}).Run(context.Background(), spec())
	if err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoint.Load(filepath.Join(kept[0].Dir, trainer.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	outs, err := (&Runner{Out: t.TempDir()}).Run(context.Background(), spec())
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.Load(filepath.Join(outs[0].Dir, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]checkpoint.Tensor{}
	for _, x := range m.Tensors {
		byName[x.Name] = x
	}
	averages := 0
	for _, x := range ck.Tensors {
		name, ok := nets.IsAverage(x.Name)
		if !ok {
			continue
		}
		averages++
		if _, left := byName[x.Name]; left {
			t.Errorf("the weights keep %s", x.Name)
		}
		if got, ok := byName[name]; !ok || !cmp.Equal(got.F32, x.F32) {
			t.Errorf("the weights' %s is not the checkpoint's %s", name, x.Name)
		}
	}
	if averages == 0 {
		t.Fatal("the checkpoint of a run with average 0.9 holds no averages")
	}
	if len(m.Tensors) != len(ck.Tensors)-averages {
		t.Errorf("the weights hold %d tensors, want the checkpoint's %d less %d averages", len(m.Tensors), len(ck.Tensors), averages)
	}
	bad := &checkpoint.File{Tensors: []checkpoint.Tensor{{Name: nets.AveragePrefix + "extractor.x", Shape: []int{1}, F32: []float32{1}}}}
	if err := useAverages(bad); err == nil || !strings.Contains(err.Error(), "extractor.x") {
		t.Errorf("an average of no parameter: %v, want an error naming it", err)
	}
}

// TestRunJobs checks that runs trained side by side give what they give
// one after the other, and that a failing run's error is the one returned
// when the runs beside it are stopped for it.
func TestRunJobs(t *testing.T) {
	for _, m := range []string{"wadn", "m3sda"} {
		t.Run(m, func(t *testing.T) {
			specs := smallSpecs(t, m, []uint64{0, 1, 2}, nil)
			want, err := (&Runner{Out: t.TempDir()}).Run(context.Background(), specs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := (&Runner{Out: t.TempDir(), Jobs: 3}).Run(context.Background(), smallSpecs(t, m, []uint64{0, 1, 2}, nil))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(accuracies(want), accuracies(got)); d != "" {
				t.Errorf("3 jobs against 1 (-want +got):\n%s", d)
			}
			out := t.TempDir()
			bad := filepath.Join(out, filepath.Base(want[1].Dir), ResultFile)
			if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(filepath.Join(filepath.Dir(bad), RunFile), mustRecord(t, want[1].Dir)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = (&Runner{Out: out, Jobs: 3}).Run(context.Background(), smallSpecs(t, m, []uint64{0, 1, 2}, nil))
			if err == nil || errors.Is(err, trainer.ErrInterrupted) || !strings.Contains(err.Error(), bad) {
				t.Fatalf("with seed 1's result corrupt: error %v, want one naming %s", err, bad)
			}
		})
	}
}

func mustRecord(t *testing.T, dir string) *Record {
	t.Helper()
	rec, ok, err := readRecord(dir)
	if err != nil || !ok {
		t.Fatalf("%s: %v %v", dir, ok, err)
	}
	return rec
}

// TestRunJobsInterrupted checks that a cancelled context stops runs side by
// side with ErrInterrupted, starting none of the rest.
func TestRunJobsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	outs, err := (&Runner{Out: t.TempDir(), Jobs: 2}).Run(ctx, smallSpecs(t, "source", []uint64{0, 1, 2, 3}, nil))
	if !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("cancelled run returned %v, want ErrInterrupted", err)
	}
	if len(outs) != 0 {
		t.Errorf("cancelled run reported %d outcomes", len(outs))
	}
}

func TestPlanRefusesRepeatedSeed(t *testing.T) {
	p := &Plan{}
	if err := p.Set("seeds", "3,1,3"); err == nil || !strings.Contains(err.Error(), "seed 3 is given twice") {
		t.Errorf("seeds 3,1,3: error %v, want one naming seed 3", err)
	}
}

// TestSpecOfIdentity checks that a run's recorded identity gives back its
// spec: the same settings, label and identity.
func TestSpecOfIdentity(t *testing.T) {
	for _, set := range []map[string]string{nil, {"c0": "0.05", "explicit": "code", "c1": "max", "hidden": "8,4", "depth": "1"}} {
		s := smallSpecs(t, "wadn", []uint64{4}, set)[0]
		domains := fixtureDomains()
		id, err := s.Identity(domains)
		if err != nil {
			t.Fatal(err)
		}
		back, err := SpecOf(id)
		if err != nil {
			t.Fatal(err)
		}
		if back.Label() != s.Label() || !cmp.Equal(back.Values(), s.Values()) {
			t.Errorf("spec %q read back as %q", s.Label(), back.Label())
		}
		if id2, err := back.Identity(domains); err != nil || id2.Key() != id.Key() {
			t.Errorf("identity %s read back as %v (%v)", id.Key(), id2, err)
		}
	}
	if _, err := NewSpec(dataset.Amazon, data.Partial, "wadn"); err == nil {
		t.Error("amazon in the partial scenario accepted")
	}
}

// TestIdentityOfLaterSettings checks that a setting added after runs were
// recorded leaves their identities valid: at the value every run had
// before it existed it is not recorded, and a record without it reads back
// as that value, not as a data set's other default. lambda-distance was
// both (its zero), shift 0.5 and label-fraction 0.1; a shift of 0 (its zero)
// is recorded.
func TestIdentityOfLaterSettings(t *testing.T) {
	for _, tc := range []struct {
		ds       *dataset.Dataset
		scenario data.Scenario
		method   string
		name     string
		value    string // after the defaults
		recorded bool
	}{
		{dataset.Amazon, data.UDA, "wadn", "lambda-distance", "both", false},
		{dataset.Digits, data.UDA, "wadn", "lambda-distance", "explicit", true},
		{dataset.Digits, data.UDA, "wadn", "lambda-distance", "both", false},
		{dataset.Amazon, data.UDA, "wadn", "shift", "0.5", false},
		{dataset.Amazon, data.UDA, "source", "shift", "0", true},
		{dataset.Digits, data.Limited, "wadn", "shift", "0.8", true},
		{dataset.Digits, data.Limited, "wadn", "label-fraction", "0.1", false},
		{dataset.Digits, data.Limited, "source", "label-fraction", "0.01", true},
		{dataset.OfficeCaltech, data.Limited, "wadn", "label-fraction", "0.05", true},
	} {
		s, err := NewSpec(tc.ds, tc.scenario, tc.method)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Set(tc.name, tc.value); err != nil {
			t.Fatal(err)
		}
		id := &Identity{Dataset: tc.ds.Name, Target: s.Target, Scenario: tc.scenario.String(), Method: tc.method,
			Settings: settings.Recorded(s.Fields())}
		if _, ok := id.Settings[tc.name]; ok != tc.recorded {
			t.Errorf("%s, %s %s: recorded %v, want %v", tc.ds.Name, tc.name, tc.value, ok, tc.recorded)
		}
		back, err := SpecOf(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Values()[tc.name]; got != tc.value {
			t.Errorf("%s, %s %s: read back as %s", tc.ds.Name, tc.name, tc.value, got)
		}
	}
}

// TestRunKeepGoing checks that with KeepGoing a failing run stops none
// beside it: the others finish, the failed one has no outcome, and the
// error names it.
func TestRunKeepGoing(t *testing.T) {
	want, err := (&Runner{Out: t.TempDir()}).Run(context.Background(), smallSpecs(t, "source", []uint64{0, 1, 2}, nil))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	bad := filepath.Join(out, filepath.Base(want[0].Dir), ResultFile)
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(filepath.Dir(bad), RunFile), mustRecord(t, want[0].Dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []int{1, 2} {
		outs, err := (&Runner{Out: out, Jobs: jobs, KeepGoing: true}).Run(context.Background(), smallSpecs(t, "source", []uint64{0, 1, 2}, nil))
		var re *RunError
		if !errors.As(err, &re) || re.Spec.Seed != 0 || !strings.Contains(err.Error(), bad) || errors.Is(err, trainer.ErrInterrupted) {
			t.Fatalf("%d jobs: error %v, want seed 0's naming %s", jobs, err, bad)
		}
		if len(outs) != 3 || outs[0] != nil || outs[1] == nil || outs[2] == nil {
			t.Fatalf("%d jobs: outcomes %v, want none for seed 0 and both others", jobs, outs)
		}
		for i := 1; i < 3; i++ {
			if outs[i].Result.Accuracy != want[i].Result.Accuracy {
				t.Errorf("%d jobs: seed %d: %v, want %v", jobs, i, outs[i].Result.Accuracy, want[i].Result.Accuracy)
			}
		}
	}
}
