package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn/safetensors"
	"github.com/wadn-go/wadn/wadn/nets"
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
	for _, kind := range []string{"amazon", "amazon3", "digits"} {
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
	var split data.Split
	var input checkpoint.Tensor
	if n.kind != "digits" {
		// Bag-of-words rows: a few dozen small counts each.
		x := &data.CSR{Rows: rows, Cols: nets.AmazonInputs, RowPtr: []int{0}}
		dense := make([]float32, rows*nets.AmazonInputs)
		for i := range rows {
			cols := r.Perm(nets.AmazonInputs)[:20+r.IntN(40)]
			slices.Sort(cols)
			for _, c := range cols {
				v := float32(1 + r.IntN(3))
				x.ColIdx = append(x.ColIdx, int32(c))
				x.Val = append(x.Val, v)
				dense[i*nets.AmazonInputs+c] = v
			}
			x.RowPtr = append(x.RowPtr, len(x.ColIdx))
		}
		split = data.Split{Sparse: x, Y: make([]int, rows), NumClasses: 2}
		input = checkpoint.Tensor{Name: "input", Shape: []int{rows, nets.AmazonInputs}, F32: dense}
	} else {
		pix := make([]float32, rows*3*32*32)
		for i := range pix {
			pix[i] = float32(r.IntN(256)) / 255
		}
		split = data.Split{Dense: &data.Dense{N: rows, Shape: []int{3, 32, 32}, X: pix}, Y: make([]int, rows), NumClasses: 10}
		input = checkpoint.Tensor{Name: "input", Shape: []int{rows, 3, 32, 32}, F32: pix}
	}
	for _, m := range []interface{ SetTrain(bool) }{n.ext, n.cls, n.crit} {
		m.SetTrain(false)
	}
	all := make([]int, rows)
	for i := range all {
		all[i] = i
	}
	feats := n.ext.Features([]*data.Split{&split}, [][]int{all})
	logits := n.cls.Forward(feats)
	critic := n.crit.Forward(feats)
	return &safetensors.File{Tensors: []checkpoint.Tensor{
		input,
		{Name: "logits", Shape: logits.Shape(), F32: logits.Data()},
		{Name: "critic", Shape: critic.Shape(), F32: critic.Data()},
	}}
}
