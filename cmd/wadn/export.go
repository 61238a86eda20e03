package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/nn/safetensors"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// Metadata keys of the safetensors files that export writes.
const (
	// metaFormat says the tensors are laid out for PyTorch, as
	// safetensors.torch does.
	metaFormat = "format"
	// metaCheckpoint holds the checkpoint's metadata (the run's state as
	// JSON), which import restores.
	metaCheckpoint = "wadn.checkpoint_meta"
)

// exportFile is the default name of the export of a run directory.
const exportFile = "model.safetensors"

func init() {
	register(&command{
		name:    "export",
		summary: "write the weights of a run's checkpoint as safetensors with PyTorch's state_dict names and layouts",
		usage:   "PATH [--format safetensors] [--out FILE]",
		run:     runExport,
	})
}

func runExport(ctx context.Context, e *env, args []string) error {
	c := commands["export"]
	fs := newFlagSet(c, e)
	format := fs.String("format", "safetensors", "output format (safetensors is the only one)")
	out := fs.String("out", "", "output file (default PATH/"+exportFile+" for a run directory, the checkpoint's name with .safetensors for a file)")
	pos, err := oneArgument(fs, args, "PATH (a run directory or a checkpoint file)")
	if err != nil {
		return err
	}
	if *format != "safetensors" {
		fmt.Fprintf(e.stderr, "wadn export: --format %q: the only format is safetensors\n", *format)
		return errUsage
	}
	ckpt, err := checkpointPath(pos)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = defaultExportPath(pos, ckpt)
	}
	f, err := checkpoint.Load(ckpt)
	if err != nil {
		return err
	}
	st := &safetensors.File{Tensors: nets.ToTorch(f.Tensors), Metadata: map[string]string{metaFormat: "pt"}}
	switch {
	case len(f.Meta) == 0:
	case utf8.Valid(f.Meta):
		st.Metadata[metaCheckpoint] = string(f.Meta)
	default:
		fmt.Fprintf(e.stderr, "wadn export: %s: its metadata is not UTF-8 text and is left out\n", ckpt)
	}
	if err := safetensors.Save(*out, st); err != nil {
		return err
	}
	n := 0
	for _, t := range f.Tensors {
		n += t.Len()
	}
	fmt.Fprintf(e.stderr, "%d tensors (%d values) of %s written to %s\n", len(f.Tensors), n, ckpt, *out)
	if sw := nets.SparseWeights(f.Tensors); len(sw) > 0 {
		fmt.Fprintf(e.stderr, "%s transposed from the sparse layer's [in, out] to torch.nn.Linear's [out, in]\n", strings.Join(sw, ", "))
	}
	return nil
}

// checkpointPath returns the checkpoint file that path names: path itself,
// or the checkpoint of the run directory path.
func checkpointPath(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return path, nil
	}
	for _, name := range []string{trainer.CheckpointFile, experiment.ModelFile} {
		p := filepath.Join(path, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	hint := "a run directory holds its checkpoint while unfinished and its weights once finished"
	var runs []string
	for _, name := range []string{trainer.CheckpointFile, experiment.ModelFile} {
		m, _ := filepath.Glob(filepath.Join(path, "*", name))
		runs = append(runs, m...)
	}
	if len(runs) > 0 {
		hint = "its run directories hold " + strings.Join(runs, ", ")
	}
	return "", fmt.Errorf("%s holds no %s or %s (%s)", path, trainer.CheckpointFile, experiment.ModelFile, hint)
}

// defaultExportPath is PATH/model.safetensors for a run directory and the
// checkpoint's path with the extension .safetensors for a file.
func defaultExportPath(path, ckpt string) string {
	if ckpt != path {
		return filepath.Join(path, exportFile)
	}
	return strings.TrimSuffix(ckpt, filepath.Ext(ckpt)) + ".safetensors"
}
