package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/nn/safetensors"
	"github.com/wadn-go/wadn/wadn/nets"
)

func init() {
	register(&command{
		name:    "import",
		summary: "read safetensors weights with PyTorch's state_dict names into a weights-only checkpoint",
		usage:   "FILE [--out PATH] [--force]",
		run:     runImport,
	})
}

func runImport(ctx context.Context, e *env, args []string) error {
	c := commands["import"]
	flags := newFlagSet(c, e)
	out := flags.String("out", "", "checkpoint to write (default FILE with the extension .wadn)")
	force := flags.Bool("force", false, "replace an existing output file")
	in, err := oneArgument(flags, args, "FILE (safetensors)")
	if err != nil {
		return err
	}
	if *out == "" {
		*out = strings.TrimSuffix(in, filepath.Ext(in)) + ".wadn"
	}
	if !*force {
		if _, err := os.Stat(*out); err == nil {
			return fmt.Errorf("%s exists: pass --force to replace it, or --out for another file", *out)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	st, err := safetensors.Load(in)
	if err != nil {
		return err
	}
	f := &checkpoint.File{Tensors: nets.FromTorch(st.Tensors), Meta: []byte(st.Metadata[metaCheckpoint])}
	if err := checkpoint.Save(*out, f); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d tensors of %s written to %s (weights only: no optimiser state)\n", len(f.Tensors), in, *out)
	return nil
}
