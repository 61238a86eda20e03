package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/wadn-go/wadn/data/fetch"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn/dataset"
)

func runDataGet(ctx context.Context, e *env, args []string) error {
	flags := newFlagSet(dataSubcommands["get"], e)
	dir := dataDirFlag(flags)
	mirror := flags.String("mirror", "", "comma-separated base URLs tried before the published mirrors, each laid out like the data directory")
	mirrorOnly := flags.Bool("mirror-only", false, "fetch from the --mirror URLs alone, never from the published mirrors")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return listDatasets(e)
	}
	if len(pos) > 1 {
		fmt.Fprintf(e.stderr, "wadn data get: want one NAME, got %q\n", pos)
		return errUsage
	}
	d, ok := dataset.Download(pos[0])
	if !ok {
		var names []string
		for _, d := range dataset.Downloads() {
			names = append(names, d.Name)
		}
		fmt.Fprintf(e.stderr, "wadn data get: unknown data set %q (want one of %s)\n", pos[0], strings.Join(names, ", "))
		return errUsage
	}
	if *dir == "" {
		fmt.Fprintf(e.stderr, "wadn data get: no data directory: pass --data DIR or set %s\n", datadir.Env)
		return errUsage
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	opt := fetch.Options{Progress: e.stderr}
	if *mirror != "" {
		opt.Mirrors = strings.Split(*mirror, ",")
	}
	if *mirrorOnly {
		if *mirror == "" {
			fmt.Fprintf(e.stderr, "wadn data get: --mirror-only needs --mirror URL\n")
			return errUsage
		}
		opt.MirrorsOnly = true
	}
	if err := fetch.Get(ctx, *dir, d, opt); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d files in place under %s, verified\n", d.Name, len(d.Files), *dir)
	return nil
}

// listDatasets prints the data sets "data get" knows with the state of
// their checksums and their notes.
func listDatasets(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFILES\tCHECKSUMS\tNOTE")
	for _, d := range dataset.Downloads() {
		sha, md := 0, 0
		for _, f := range d.Files {
			if f.SHA256 != "" {
				sha++
			} else if f.MD5 != "" {
				md++
			}
		}
		state := "none established"
		switch {
		case len(d.Files) == 0:
		case sha == len(d.Files):
			state = "SHA-256"
		case sha == 0:
			state = "MD5 only"
		default:
			state = "SHA-256 and MD5"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", d.Name, len(d.Files), state, d.Note)
	}
	return tw.Flush()
}
