package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
	"github.com/wadn-go/wadn/wadn/experiment/site"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "serve the report of the runs under one or more directories as web pages, read anew as runs come",
		usage:   "[--addr HOST:PORT] [--refresh D] [--scenario S[,S]] [--method M[,M]] [--target T[,T]] [--seed N[,N]] [--settings L]... DIR...",
		run:     runServe,
	})
}

func runServe(ctx context.Context, e *env, args []string) error {
	c := commands["serve"]
	fs := newFlagSet(c, e)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free one); the default takes connections from this machine alone")
	refresh := fs.Duration("refresh", 2*time.Second, "read the directories again for a request that comes more than `D` after the last read")
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
		Figures: func(rep *experiment.Report) ([]figures.Figure, error) { return paperFigures(rep), nil },
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
