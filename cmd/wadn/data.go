package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn/dataset"
)

func init() {
	register(&command{
		name:    "data",
		summary: "list the data sets found (ls), check them against SHA256SUMS (verify) or download one (get)",
		usage:   "ls [--data DIR] [--json] | verify [--data DIR] [--ignore-missing] | get [NAME] [--data DIR] [--mirror URL]",
		run:     runData,
	})
	dataSubcommands = map[string]*command{
		"ls": {
			name:    "data ls",
			summary: "list the domains of the data directory and the copies embedded in the binary, with split sizes and label histograms",
			usage:   "[--data DIR] [--json]",
			run:     runDataLs,
		},
		"verify": {
			name:    "data verify",
			summary: "check the files of the data directory against every SHA256SUMS list in it and the checksums the data sets publish",
			usage:   "[--data DIR] [--ignore-missing]",
			run:     runDataVerify,
		},
		"get": {
			name:    "data get",
			summary: "download a data set into the data directory from its mirrors, resumably, verified against published checksums (no NAME: list them)",
			usage:   "[NAME] [--data DIR] [--mirror URL [--mirror-only]]",
			run:     runDataGet,
		},
	}
}

// dataSubcommands are the subcommands of "wadn data", set by init.
var dataSubcommands map[string]*command

func runData(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(commands["data"], e)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: wadn data ls [--data DIR] [--json]\n       wadn data verify [--data DIR] [--ignore-missing]\n       wadn data get [NAME] [--data DIR] [--mirror URL]\n\n%s\n", commands["data"].summary)
		for _, n := range []string{"ls", "verify", "get"} {
			fmt.Fprintf(e.stderr, "  %-7s %s\n", n, dataSubcommands[n].summary)
		}
	}
	// The subcommand's flags may come before its name: "wadn data --json ls".
	name, rest := subcommand(args, dataValueFlags)
	if name == "" {
		if err := noOperands(fs, args); err != nil {
			return err
		}
		fs.Usage()
		return errUsage
	}
	sub, ok := dataSubcommands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "wadn data: unknown subcommand %q (want ls, verify or get)\n", name)
		return errUsage
	}
	return sub.run(ctx, e, rest)
}

// dataValueFlags are the flags of the data subcommands that take a value.
var dataValueFlags = []string{"data", "mirror"}

// dataDirFlag adds --data, defaulting to $WADN_DATA.
func dataDirFlag(fs *flag.FlagSet) *string {
	return fs.String("data", datadir.Default(), "data directory (default "+datadir.Help+"; none: only the copies embedded in the binary)")
}

func runDataLs(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(dataSubcommands["ls"], e)
	dir := dataDirFlag(fs)
	asJSON := fs.Bool("json", false, "print a JSON array of {dataset, domain, split, count, histogram, source}")
	if err := noOperands(fs, args); err != nil {
		return err
	}
	entries, err := dataset.Catalog(*dir, func(msg string) { fmt.Fprintln(e.stderr, msg) })
	if err != nil {
		return err
	}
	failed := 0
	for _, en := range entries {
		if en.Error != "" {
			failed++
		}
	}
	if *asJSON {
		if entries == nil {
			entries = []data.Entry{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DATASET\tDOMAIN\tSPLIT\tCOUNT\tHISTOGRAM\tSOURCE")
		for _, en := range entries {
			if en.Error != "" {
				fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t%s\n", en.Dataset, en.Domain, en.Split, en.Source)
				continue
			}
			src := en.Source
			if en.Note != "" {
				src += " (" + en.Note + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", en.Dataset, en.Domain, en.Split, en.Count, joinInts(en.Histogram), src)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, en := range entries {
		if en.Error != "" {
			fmt.Fprintf(e.stderr, "wadn data ls: %s: %s\n", en.Source, en.Error)
		}
	}
	if *dir != "" && !fromDataDir(entries) {
		fmt.Fprintf(e.stderr, "wadn data ls: %s holds no data set (looked for %s); only the embedded copies are listed\n",
			*dir, strings.Join(dataset.Sought(), ", "))
	}
	if failed > 0 {
		return &exitError{1}
	}
	return nil
}

// fromDataDir reports whether some entry was read from the data directory
// rather than from the embedded copy.
func fromDataDir(entries []data.Entry) bool {
	for _, en := range entries {
		if en.Source != "embedded" {
			return true
		}
	}
	return false
}

// joinInts formats a histogram for the table: every count for up to ten
// classes, else the number of classes and the smallest and largest count.
func joinInts(v []int) string {
	if len(v) > 10 {
		lo, hi := v[0], v[0]
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
		}
		return fmt.Sprintf("%d classes, %d-%d each", len(v), lo, hi)
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func runDataVerify(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(dataSubcommands["verify"], e)
	dir := dataDirFlag(fs)
	ignoreMissing := fs.Bool("ignore-missing", false, "do not fail for listed files that are absent")
	if err := noOperands(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		fmt.Fprintf(e.stderr, "wadn data verify: no data directory: pass --data DIR or set %s\n", datadir.Env)
		return errUsage
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return fmt.Errorf("data directory %s: not a readable directory", *dir)
	}
	lists, err := hasSums(*dir)
	if err != nil {
		return err
	}
	checks, err := data.Verify(*dir, dataset.Checksums(), func(i, n int, file string) {
		if i == 0 && !lists {
			fmt.Fprintf(e.stderr, "wadn data verify: no %s list under %s: only the files of the data sets that publish checksums are checked\n", data.SumsFile, *dir)
		}
		fmt.Fprintf(e.stderr, "[%d/%d] %s\n", i+1, n, file)
	})
	if err != nil {
		return err
	}
	if len(checks) == 0 {
		return fmt.Errorf("nothing verified: no %s list under %s and no file of a known data set", data.SumsFile, *dir)
	}
	bad := 0
	for _, c := range checks {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		line := fmt.Sprintf("%-8s %s", c.Status, c.File)
		switch c.Status {
		case data.StatusMismatch:
			line += fmt.Sprintf(" (sha256 %s, want %s)", c.Got, c.Want)
			bad++
		case data.StatusMissing:
			if !*ignoreMissing {
				bad++
			}
		case data.StatusError:
			line += " (" + c.Err + ")"
			bad++
		}
		fmt.Fprintln(e.stdout, line)
	}
	fmt.Fprintf(e.stdout, "%d files listed: %d failed\n", len(checks), bad)
	if bad > 0 {
		return &exitError{1}
	}
	return nil
}

// hasSums reports whether a SHA256SUMS list is anywhere under dir.
func hasSums(dir string) (bool, error) {
	found := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == data.SumsFile {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found, err
}
