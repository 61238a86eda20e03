package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
	"github.com/wadn-go/wadn/wadn/experiment/site"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "serve the report of the runs under one or more directories as web pages, read anew as runs come",
		usage:   "[--addr HOST:PORT] [--refresh D] [--data DIR] [--scenario S[,S]] [--method M[,M]] [--target T[,T]] [--seed N[,N]] [--settings L]... DIR...",
		run:     runServe,
	})
}

func runServe(ctx context.Context, e *env, args []string) error {
	c := commands["serve"]
	fs := newFlagSet(c, e)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free one); the default takes connections from this machine alone")
	refresh := fs.Duration("refresh", 2*time.Second, "read the directories again for a request that comes more than `D` after the last read")
	dataDir := fs.String("data", datadir.Default(), "data directory from which the figures page's Fig. 2 loads Digits (default "+datadir.Help+"; none: Fig. 2 of Amazon alone)")
	filter := filterFlags(fs)
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		fmt.Fprintln(e.stderr, "wadn serve: want at least one directory")
		return errUsage
	}
	if *refresh < 0 {
		fmt.Fprintf(e.stderr, "wadn serve: --refresh %v: want a duration from 0\n", *refresh)
		return errUsage
	}
	f, err := filter(e)
	if err != nil {
		return err
	}
	// The directories are read once before listening, so that a mistake
	// in them is said now rather than on the first page.
	if _, err := experiment.Scan(f, dirs...); err != nil {
		return err
	}
	h := &site.Handler{
		Collect: func() (*experiment.Report, error) { return experiment.Scan(f, dirs...) },
		Figures: paperFigures(*dataDir),
		Refresh: *refresh,
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	fmt.Fprintf(e.stderr, "wadn serve: the runs under %s at http://%s/ (read-only; Ctrl-C stops)\n", strings.Join(dirs, ", "), l.Addr())
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// Interrupted: the open connections are closed at once, so that
		// the command ends within the second every command keeps.
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// paperFigures returns a function that draws the paper's figures of a
// report (figures.Paper, Digits' Fig. 2 loaded from dataDir) and draws
// them again only when the report's finished runs have changed since the
// last call: a report read anew while nothing finished gives the figures
// drawn before.
func paperFigures(dataDir string) func(*experiment.Report) ([]figures.Figure, error) {
	var (
		mu   sync.Mutex
		key  string
		figs []figures.Figure
	)
	return func(rep *experiment.Report) ([]figures.Figure, error) {
		var b strings.Builder
		for _, r := range rep.Rows {
			for _, d := range r.Dirs {
				b.WriteString(d)
				b.WriteByte(0)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if figs != nil && b.String() == key {
			return figs, nil
		}
		f, err := figures.Paper(rep, figures.PaperOptions{DataDir: dataDir})
		if err != nil {
			return nil, err
		}
		key, figs = b.String(), f
		return figs, nil
	}
}
