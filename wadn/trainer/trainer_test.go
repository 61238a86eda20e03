package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// line is the toy job's epoch log line.
type line struct {
	Epoch int     `json:"epoch"`
	Loss  float64 `json:"loss"`
	W     float32 `json:"w"`
	Steps int     `json:"-"`
}

// toy fits w to noisy targets: each step draws its target from the loop's
// generator, so that only the reseeding makes a resumed run repeat.
type toy struct {
	w     *autodiff.Tensor[float32]
	ps    []nn.Param[float32]
	opt   optim.Optimizer[float32]
	rng   *rand.Rand
	state struct {
		Sum float64 `json:"sum"`
	}
	steps int
	buf   []optim.Param[float32]
}

func newToy(t *testing.T, opt optim.Optimizer[float32], pcg *rand.PCG) *toy {
	j := &toy{w: autodiff.New([]float32{0}, 1).SetRequiresGrad(true), opt: opt, rng: rand.New(pcg)}
	j.ps = []nn.Param[float32]{{Name: "w", Tensor: j.w}}
	return j
}

func (j *toy) Step(epoch, step int) error {
	target := float32(3 + j.rng.NormFloat64())
	loss := autodiff.Square(autodiff.AddScalar(j.w, -target))
	j.state.Sum += float64(loss.Item())
	var err error
	j.buf, err = Update(j.opt, autodiff.SumAll(loss), j.ps, j.buf)
	j.steps++
	return err
}

func (j *toy) EndEpoch(epoch int, t Timing) (line, error) {
	l := line{Epoch: epoch, Loss: j.state.Sum, W: j.w.Data()[0], Steps: t.Steps}
	j.state.Sum = 0
	return l, nil
}

// loop returns a loop of the toy job with any optimiser.
func loop(t *testing.T, opt optim.Optimizer[float32], dir string) (*Loop[line], *toy) {
	pcg := rand.NewPCG(0, 0)
	j := newToy(t, opt, pcg)
	return &Loop[line]{Job: j, Epochs: 3, Steps: 4, Params: j.ps, Optimizer: opt, State: &j.state,
		Identity: "toy", Rand: pcg, Seed: 7, Dir: dir}, j
}

func optimizers(t *testing.T) map[string]func() optim.Optimizer[float32] {
	return map[string]func() optim.Optimizer[float32]{
		"adadelta": func() optim.Optimizer[float32] {
			o, err := optim.NewAdadelta[float32](optim.AdadeltaConfig{LR: 1})
			if err != nil {
				t.Fatal(err)
			}
			return o
		},
		"sgd": func() optim.Optimizer[float32] {
			o, err := optim.NewSGD[float32](optim.SGDConfig{LR: 0.1, Momentum: 0.9})
			if err != nil {
				t.Fatal(err)
			}
			return o
		},
	}
}

// TestResumeAfterEveryStep interrupts the toy job after every step in turn,
// with each optimiser, and checks that the resumed run ends where an
// uninterrupted one does, to the bit, with the same epoch log.
func TestResumeAfterEveryStep(t *testing.T) {
	for name, newOpt := range optimizers(t) {
		t.Run(name, func(t *testing.T) {
			full, fj := loop(t, newOpt(), t.TempDir())
			want, err := full.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != 3 || want[2].W == 0 {
				t.Fatalf("history %+v", want)
			}
			for stop := 1; stop < 12; stop++ {
				dir := t.TempDir()
				cut, _ := loop(t, newOpt(), dir)
				cut.StopAfter = stop
				part, err := cut.Run(context.Background())
				if !errors.Is(err, ErrInterrupted) {
					t.Fatalf("stop after %d: %v, want ErrInterrupted", stop, err)
				}
				if len(part) != stop/4 {
					t.Errorf("stop after %d: %d epochs returned, want %d", stop, len(part), stop/4)
				}
				again, j := loop(t, newOpt(), dir)
				again.Resume = true
				got, err := again.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				ignoreSteps := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Steps" }, cmp.Ignore())
				if d := cmp.Diff(want, got, ignoreSteps); d != "" || j.w.Data()[0] != fj.w.Data()[0] {
					t.Errorf("stop after %d: w %v, uninterrupted %v; history (-want +got):\n%s", stop, j.w.Data()[0], fj.w.Data()[0], d)
				}
				if j.steps != 12-stop {
					t.Errorf("stop after %d: the resumed run took %d steps, want %d", stop, j.steps, 12-stop)
				}
				b, err := os.ReadFile(filepath.Join(dir, LogFile))
				if err != nil {
					t.Fatal(err)
				}
				var last line
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || len(lines) != 3 || last.W != want[2].W {
					t.Errorf("stop after %d: epoch log %q", stop, b)
				}
			}
		})
	}
}

// settling is the toy job with work left under way after each step: it
// counts its steps in pending, and only Settle moves them into the state
// the loop checkpoints.
type settling struct {
	*toy
	count struct {
		Steps int `json:"steps"`
	}
	pending int
}

func (s *settling) Step(epoch, step int) error {
	s.pending++
	return s.toy.Step(epoch, step)
}

func (s *settling) Settle() {
	s.count.Steps += s.pending
	s.pending = 0
}

// EndEpoch reports the steps counted so far as the line's loss.
func (s *settling) EndEpoch(epoch int, t Timing) (line, error) {
	s.Settle()
	l, err := s.toy.EndEpoch(epoch, t)
	l.Loss = float64(s.count.Steps)
	return l, err
}

// TestSettleBeforeSave interrupts a job that leaves work under way after
// each step, after every step in turn, and checks that the resumed run
// counts every step: it fails unless the loop settles the job before it
// saves the state.
func TestSettleBeforeSave(t *testing.T) {
	newLoop := func(dir string) (*Loop[line], *settling) {
		l, j := loop(t, optimizers(t)["sgd"](), dir)
		s := &settling{toy: j}
		l.Job, l.State = s, &s.count
		return l, s
	}
	for stop := 1; stop < 12; stop++ {
		dir := t.TempDir()
		cut, _ := newLoop(dir)
		cut.StopAfter = stop
		if _, err := cut.Run(context.Background()); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("stop after %d: %v, want ErrInterrupted", stop, err)
		}
		again, _ := newLoop(dir)
		again.Resume = true
		got, err := again.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for e, l := range got {
			if want := float64(4 * (e + 1)); l.Loss != want {
				t.Errorf("stop after %d: epoch %d counted %v steps, want %v", stop, e+1, l.Loss, want)
			}
		}
	}
}

// TestResumeRefusesOtherIdentity checks that a checkpoint of another run is
// not continued, and that resuming needs a directory with a checkpoint.
func TestResumeRefusesOtherIdentity(t *testing.T) {
	opt := optimizers(t)["sgd"]
	dir := t.TempDir()
	l, _ := loop(t, opt(), dir)
	l.StopAfter = 5
	if _, err := l.Run(context.Background()); !errors.Is(err, ErrInterrupted) {
		t.Fatal(err)
	}
	other, _ := loop(t, opt(), dir)
	other.Identity, other.Resume = "another toy", true
	if _, err := other.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "checkpoint of toy; this run is another toy") {
		t.Errorf("other identity: %v", err)
	}
	none, _ := loop(t, opt(), "")
	none.Resume = true
	if _, err := none.Run(context.Background()); err == nil {
		t.Error("resume without a directory accepted")
	}
	empty, _ := loop(t, opt(), t.TempDir())
	empty.Resume = true
	if _, err := empty.Run(context.Background()); err == nil {
		t.Error("resume from a directory without a checkpoint accepted")
	}
}

// TestCancelled checks that a cancelled context saves and stops before the
// next step, and that a failing step's error names its epoch and step.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	l, j := loop(t, optimizers(t)["sgd"](), t.TempDir())
	var seen []Progress
	l.Progress = func(p Progress) {
		seen = append(seen, p)
		if p.Epoch == 2 && p.Step == 1 {
			cancel()
		}
	}
	hist, err := l.Run(ctx)
	if !errors.Is(err, ErrInterrupted) || len(hist) != 1 || j.steps != 5 {
		t.Errorf("cancelled in epoch 2: %v, %d epochs, %d steps", err, len(hist), j.steps)
	}
	if p := seen[len(seen)-1]; p.Epochs != 3 || p.Steps != 4 || p.Timing.Steps != 1 {
		t.Errorf("last progress %+v", p)
	}
	if _, err := os.Stat(filepath.Join(l.Dir, CheckpointFile)); err != nil {
		t.Errorf("no checkpoint after the interruption: %v", err)
	}

	bad, _ := loop(t, optimizers(t)["sgd"](), "")
	bad.Job = failing{}
	if _, err := bad.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "epoch 1 step 1: broken") {
		t.Errorf("failing step: %v", err)
	}
}

type failing struct{}

func (failing) Step(int, int) error                { return errors.New("broken") }
func (failing) EndEpoch(int, Timing) (line, error) { return line{}, nil }

// TestUpdateRefusesNonFinite checks that a non-finite loss changes nothing.
func TestUpdateRefusesNonFinite(t *testing.T) {
	w := autodiff.New([]float32{1}, 1).SetRequiresGrad(true)
	ps := []nn.Param[float32]{{Name: "w", Tensor: w}}
	opt := optimizers(t)["sgd"]()
	loss := autodiff.MulScalar(autodiff.SumAll(w), float32(0))
	loss = autodiff.Div(loss, loss) // 0/0
	if _, err := Update(opt, loss, ps, nil); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN loss: %v", err)
	}
	if w.Data()[0] != 1 {
		t.Errorf("w changed to %v", w.Data()[0])
	}
}
