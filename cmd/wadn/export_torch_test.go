package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/nn/checkpoint"
	"github.com/wadn-go/wadn/nn/safetensors"
)

// torchPython returns a Python interpreter that imports torch: $WADN_PYTHON,
// python3 on the PATH or Debian's /usr/bin/python3 (where python3-torch
// installs), or "" and why none does.
func torchPython() (string, string) {
	var cands []string
	if p := os.Getenv("WADN_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, p := range cands {
		if exec.Command(p, "-c", "import torch").Run() == nil {
			return p, ""
		}
	}
	return "", "no Python with torch (tried " + strings.Join(cands, ", ") + "; install Debian's python3-torch, as .ci/run does, or set WADN_PYTHON)"
}

// TestExportLoadsInPyTorch exports the Amazon and Digits networks, loads
// each export into the same network in PyTorch (load_state_dict with
// strict names and shapes) and compares the classifier's logits and the
// critic's output on a batch with wadn's, to 1e-5.
func TestExportLoadsInPyTorch(t *testing.T) {
	py, why := torchPython()
	if py == "" {
		t.Skip(why)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "torch_logits.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"amazon", "digits"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			net := newTestNetwork(kind, 11)
			net.saveCheckpoint(t, dir)
			if code, _, errOut := runArgs(t, "", "export", dir); code != 0 {
				t.Fatalf("export: exit %d: %s", code, errOut)
			}
			batch := net.batch(8, 17)
			if err := safetensors.Save(filepath.Join(dir, "batch.safetensors"), batch); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, script, kind, filepath.Join(dir, exportFile), filepath.Join(dir, "batch.safetensors"))
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("%s %s: %v", py, script, err)
			}
		})
	}
}

// batch draws n inputs and returns them, dense, with the network's outputs
// on them in evaluation mode: the classifier's logits and critic0's output.
func (n *testNetwork) batch(rows int, seed uint64) *safetensors.File {
	r := rand.New(rand.NewPCG(seed, 3))
	var feats *autodiff.Tensor[float32]
	var input checkpoint.Tensor
	n.cls.SetTrain(false)
	n.critic.SetTrain(false)
	if n.kind == "amazon" {
		// Bag-of-words rows: a few dozen small counts each.
		x := &autodiff.CSR{Rows: rows, Cols: nn.AmazonInputs, RowPtr: []int{0}}
		dense := make([]float32, rows*nn.AmazonInputs)
		for i := range rows {
			cols := r.Perm(nn.AmazonInputs)[:20+r.IntN(40)]
			slices.Sort(cols)
			for _, c := range cols {
				v := float32(1 + r.IntN(3))
				x.ColIdx = append(x.ColIdx, int32(c))
				x.Val = append(x.Val, v)
				dense[i*nn.AmazonInputs+c] = v
			}
			x.RowPtr = append(x.RowPtr, len(x.ColIdx))
		}
		n.sparse.SetTrain(false)
		feats = n.sparse.ForwardCSR(x)
		input = checkpoint.Tensor{Name: "input", Shape: []int{rows, nn.AmazonInputs}, F32: dense}
	} else {
		pix := make([]float32, rows*3*32*32)
		for i := range pix {
			pix[i] = float32(r.IntN(256)) / 255
		}
		n.extractor.SetTrain(false)
		feats = n.extractor.Forward(autodiff.New(pix, rows, 3, 32, 32))
		input = checkpoint.Tensor{Name: "input", Shape: []int{rows, 3, 32, 32}, F32: pix}
	}
	logits := n.cls.Forward(feats)
	critic := n.critic.Forward(feats)
	return &safetensors.File{Tensors: []checkpoint.Tensor{
		input,
		{Name: "logits", Shape: logits.Shape(), F32: logits.Data()},
		{Name: "critic", Shape: critic.Shape(), F32: critic.Data()},
	}}
}
