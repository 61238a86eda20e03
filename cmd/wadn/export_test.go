package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/nn/safetensors"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// testNetwork is a network saved as a run saves it: its modules'
// parameters under the prefixes extractor, classifier and critic0.
type testNetwork struct {
	kind string // "amazon" (the paper's layout), "amazon3" (the default) or "digits"
	net  nets.Network
	ext  nets.Extractor
	cls  nn.Module[float32]
	crit nn.Module[float32]
}

func (n *testNetwork) params() []nn.Param[float32] {
	ps := append(nn.Prefix("extractor", n.ext.Params()), nn.Prefix("classifier", n.cls.Params())...)
	return append(ps, nn.Prefix("critic0", n.crit.Params())...)
}

// newTestNetwork builds an Amazon or Digits network from seed.
func newTestNetwork(kind string, seed uint64) *testNetwork {
	rng := nn.NewRand(seed)
	n := &testNetwork{kind: kind}
	classes := 2
	switch kind {
	case "amazon", "amazon3":
		a := nets.DefaultAmazon()
		a.Dropout = 0.5
		if kind == "amazon" {
			a.Depth = 1
		}
		n.net = &a
	default:
		n.net, classes = nets.Digits{}, 10
	}
	n.ext = n.net.NewExtractor(rng)
	n.cls = n.net.NewClassifier(classes, rng)
	n.crit = n.net.NewHead(1, rng)
	return n
}

// saveCheckpoint writes the network as a training checkpoint, with the
// optimiser's state after one step and JSON metadata, into dir.
func (n *testNetwork) saveCheckpoint(t *testing.T, dir string) string {
	t.Helper()
	ps := n.params()
	opt, err := optim.NewAdadelta[float32](optim.AdadeltaConfig{LR: 1})
	if err != nil {
		t.Fatal(err)
	}
	// A small weight-decay loss gives every parameter a gradient, so that
	// the optimiser has state to save.
	var loss *autodiff.Tensor[float32]
	for _, p := range ps {
		l := autodiff.MulScalar(autodiff.SumAll(autodiff.Square(p.Tensor)), 1e-3)
		if loss == nil {
			loss = l
		} else {
			loss = autodiff.Add(loss, l)
		}
	}
	loss.Backward()
	if err := opt.Step(trainer.OptimParams(ps, nil)); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"seed": 3, "target": "kitchen", "epoch": 1})
	path := filepath.Join(dir, trainer.CheckpointFile)
	snap := &trainer.Snapshot[float32]{Params: ps, Optim: opt, Meta: meta}
	if err := snap.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExportImportRoundTrip: export, import, export again gives the same
// bytes; the import holds the checkpoint's weights and metadata; the Amazon
// extractor's sparse weight is transposed to PyTorch's [out, in].
func TestExportImportRoundTrip(t *testing.T) {
	for _, kind := range []string{"amazon", "amazon3", "digits"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			net := newTestNetwork(kind, 5)
			ckpt := net.saveCheckpoint(t, dir)
			if code, _, errOut := runArgs(t, "", "export", dir, "--format", "safetensors"); code != 0 {
				t.Fatalf("export: exit %d: %s", code, errOut)
			}
			first := filepath.Join(dir, exportFile)
			imported := filepath.Join(dir, "imported.wadn")
			if code, _, errOut := runArgs(t, "", "import", first, "--out", imported); code != 0 {
				t.Fatalf("import: exit %d: %s", code, errOut)
			}
			second := filepath.Join(dir, "second.safetensors")
			if code, _, errOut := runArgs(t, "", "export", imported, "--out", second); code != 0 {
				t.Fatalf("second export: exit %d: %s", code, errOut)
			}
			a, errA := os.ReadFile(first)
			b, errB := os.ReadFile(second)
			if errA != nil || errB != nil || len(a) == 0 || !bytes.Equal(a, b) {
				t.Fatalf("export, import, export: %d and %d bytes, equal %v (%v, %v)", len(a), len(b), bytes.Equal(a, b), errA, errB)
			}
			orig, err := checkpoint.Load(ckpt)
			if err != nil {
				t.Fatal(err)
			}
			back, err := checkpoint.Load(imported)
			if err != nil {
				t.Fatal(err)
			}
			if d := tensorsDiff(orig.Tensors, back.Tensors); d != "" || string(orig.Meta) != string(back.Meta) {
				t.Errorf("the import differs from the checkpoint: %s; metadata %q vs %q", d, back.Meta, orig.Meta)
			}
			if len(back.Optim) != 0 || len(orig.Optim) == 0 {
				t.Errorf("optimiser tensors: checkpoint %d, import %d (want some, none)", len(orig.Optim), len(back.Optim))
			}
			st, err := safetensors.Load(first)
			if err != nil {
				t.Fatal(err)
			}
			if st.Metadata["format"] != "pt" || st.Metadata[metaCheckpoint] != string(orig.Meta) {
				t.Errorf("metadata %v", st.Metadata)
			}
			w := map[string]checkpoint.Tensor{}
			for _, x := range st.Tensors {
				w[x.Name] = x
			}
			ew := w["extractor.0.weight"]
			if kind != "digits" {
				// Ours is [5000, 1000] (in, out); torch's [1000, 5000].
				src := net.ext.Params()[0].Tensor
				if !cmp.Equal(ew.Shape, []int{nets.AmazonFeatures, nets.AmazonInputs}) || ew.F32[3*nets.AmazonInputs+7] != src.Data()[7*nets.AmazonFeatures+3] {
					t.Errorf("extractor.0.weight: shape %v, not the transpose of ours", ew.Shape)
				}
			} else if !cmp.Equal(ew.Shape, []int{64, 3, 3, 3}) {
				t.Errorf("extractor.0.weight: shape %v, want the convolution's [64 3 3 3]", ew.Shape)
			}
			for _, name := range []string{"classifier.0.weight", "critic0.0.bias", "extractor.0.bias"} {
				if _, ok := w[name]; !ok {
					t.Errorf("no tensor %s in the export", name)
				}
			}
		})
	}
}

// tensorsDiff describes the first difference between two sets of tensors
// (by name, shape and bit pattern of the values), "" when there is none.
func tensorsDiff(a, b []checkpoint.Tensor) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d and %d tensors", len(a), len(b))
	}
	byName := map[string]checkpoint.Tensor{}
	for _, t := range b {
		byName[t.Name] = t
	}
	for _, x := range a {
		y, ok := byName[x.Name]
		switch {
		case !ok:
			return "no tensor " + x.Name
		case !slices.Equal(x.Shape, y.Shape) || x.DType() != y.DType():
			return fmt.Sprintf("%s: %s %v and %s %v", x.Name, x.DType(), x.Shape, y.DType(), y.Shape)
		case !slices.Equal(x.F32, y.F32) || !slices.Equal(x.F64, y.F64):
			return x.Name + ": other values"
		}
	}
	return ""
}

func TestExportImportErrors(t *testing.T) {
	dir := t.TempDir()
	net := newTestNetwork("amazon", 1)
	seed := filepath.Join(dir, "run0")
	if err := os.Mkdir(seed, 0o755); err != nil {
		t.Fatal(err)
	}
	net.saveCheckpoint(t, seed)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no checkpoint in a directory of runs", []string{"export", dir}, 1, "its run directories hold " + filepath.Join(seed, trainer.CheckpointFile)},
		{"missing path", []string{"export", filepath.Join(dir, "nope")}, 1, "no such file"},
		{"other format", []string{"export", seed, "--format", "onnx"}, 2, "the only format is safetensors"},
		{"two paths", []string{"export", seed, seed}, 2, "want one PATH"},
		{"import of a checkpoint", []string{"import", filepath.Join(seed, trainer.CheckpointFile), "--out", filepath.Join(dir, "x.wadn")}, 1, "safetensors: malformed file"},
		{"import over an existing file", []string{"import", filepath.Join(seed, trainer.CheckpointFile)}, 1, "exists: pass --force"},
	} {
		code, _, errOut := runArgs(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, errOut, tc.code, tc.want)
		}
	}
}
