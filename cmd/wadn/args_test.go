package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		pos     []string
		json    bool
		out     string
		wantErr error
	}{
		{args: nil},
		{args: []string{"a", "b"}, pos: []string{"a", "b"}},
		{args: []string{"--json", "a"}, pos: []string{"a"}, json: true},
		{args: []string{"a", "--json"}, pos: []string{"a"}, json: true},
		{args: []string{"a", "--out", "f", "b", "--json"}, pos: []string{"a", "b"}, json: true, out: "f"},
		{args: []string{"--out=f", "a"}, pos: []string{"a"}, out: "f"},
		{args: []string{"-", "--json"}, pos: []string{"-"}, json: true},
		{args: []string{"a", "--", "--json", "b"}, pos: []string{"a", "--json", "b"}},
		{args: []string{"--", "a", "--json"}, pos: []string{"a", "--json"}},
		{args: []string{"a", "--nope"}, wantErr: errUsage},
		{args: []string{"a", "--out"}, wantErr: errUsage},
		{args: []string{"a", "-h"}, wantErr: flag.ErrHelp},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		asJSON := fs.Bool("json", false, "")
		out := fs.String("out", "", "")
		pos, err := parseArgs(fs, tc.args)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%q: error %v, want %v", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(pos, tc.pos) || *asJSON != tc.json || *out != tc.out {
			t.Errorf("%q: operands %q, json %v, out %q, error %v; want %q, %v, %q", tc.args, pos, *asJSON, *out, err, tc.pos, tc.json, tc.out)
		}
	}
}

func TestSubcommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		name string
		rest []string
	}{
		{[]string{"ls", "--json"}, "ls", []string{"--json"}},
		{[]string{"--json", "ls"}, "ls", []string{"--json"}},
		{[]string{"--data", "ls", "verify"}, "verify", []string{"--data", "ls"}},
		{[]string{"--data=d", "get", "amazon"}, "get", []string{"--data=d", "amazon"}},
		{[]string{"--json"}, "", []string{"--json"}},
		{[]string{"--", "ls"}, "", []string{"--", "ls"}},
	} {
		name, rest := subcommand(tc.args, dataValueFlags)
		if name != tc.name || !slices.Equal(rest, tc.rest) {
			t.Errorf("%q: %q and %q, want %q and %q", tc.args, name, rest, tc.name, tc.rest)
		}
	}
}

// TestFlagsEitherSide runs every command with its flags before, between
// and after its operands: each ordering must give the same exit status and
// output. A command without a case here fails the test.
func TestFlagsEitherSide(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "a.wadn")
	if err := checkpoint.Save(ckpt, compareFile()); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "a.safetensors")
	if code, _, errOut := runArgs(t, "", "export", ckpt, "--out", st); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	problem := filepath.Join(dir, "p.json")
	sweepFile := filepath.Join(dir, "sweep.json")
	for name, body := range map[string]string{
		problem:   `{"problem":"alpha","C":[[0.3,0.1],[0.1,0.5]],"p":[0.4,0.6],"C2":0}`,
		sweepFile: `{"target": ["books", "dvd"], "seeds": [0, 1]}`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := filepath.Join("..", "..", "results", "amazon", "amazon-books-uda-wadn-seed0-6c64aeb40abb")
	empty := t.TempDir()
	out := filepath.Join(dir, "out")
	cases := map[string]struct {
		orders [][]string
		code   int
		want   string // in stdout or stderr
		fresh  string // a file removed before each ordering, which it must write
	}{
		"audit": {orders: [][]string{{"--only", "x", "extra"}, {"extra", "--only", "x"}}, code: 2, want: `unexpected argument "extra"`},
		"bench": {orders: [][]string{
			{"matmul", "--m", "3", "--k", "3", "--n", "3", "--runs", "1", "--threads", "1", "--transa", "--json"},
			{"--m", "3", "--k", "3", "--runs", "1", "matmul", "--n", "3", "--threads", "1", "--transa", "--json"},
			{"--m", "3", "--k", "3", "--n", "3", "--runs", "1", "--threads", "1", "--transa", "--json", "matmul"},
		}, want: `"m":3,"k":3,"n":3,"transa":true`},
		"compare": {orders: [][]string{{ckpt, ckpt}, {"--", ckpt, ckpt}}, want: "identical"},
		"data": {orders: [][]string{
			{"ls", "--json", "--data", empty}, {"--json", "ls", "--data", empty}, {"--data", empty, "--json", "ls"},
		}, want: `"source": "embedded"`},
		"export": {orders: [][]string{{ckpt, "--out", out}, {"--out", out, ckpt}}, fresh: out, want: "written to " + out},
		"help":   {orders: [][]string{{"settings"}}, want: "Settings of wadn run"},
		"import": {orders: [][]string{{st, "--out", out, "--force"}, {"--force", "--out", out, st}, {"--out", out, st, "--force"}}, fresh: out, want: "written to " + out},
		"report": {orders: [][]string{
			{runs, "--json", "--target", "books"}, {"--json", runs, "--target", "books"}, {"--json", "--target", "books", runs},
		}, want: `"target": "books"`},
		"run": {orders: [][]string{{"--quiet", "extra"}, {"extra", "--quiet"}}, code: 2, want: `unexpected argument "extra"`},
		"serve": {orders: [][]string{ // flags and directory read, then no port to listen on
			{empty, "--addr", "127.0.0.1:x", "--refresh", "1s"}, {"--addr", "127.0.0.1:x", empty, "--refresh", "1s"}, {"--refresh", "1s", "--addr", "127.0.0.1:x", empty},
		}, code: 1, want: "wadn serve: listen tcp"},
		"solve": {orders: [][]string{{problem, "--tol", "1e-9"}, {"--tol", "1e-9", problem}}, want: `"status":"optimal"`},
		"sweep": {orders: [][]string{{sweepFile, "--list"}, {"--list", sweepFile}}, want: "3\tamazon uda wadn target dvd seed 1"},
		"train": {orders: [][]string{{"--epochs", "1", "extra"}, {"extra", "--epochs", "1"}}, code: 2, want: `unexpected argument "extra"`},
	}
	for name := range commands {
		if _, ok := cases[name]; !ok {
			t.Errorf("command %s has no case: add one with its flags on either side of its operands", name)
		}
	}
	for name, tc := range cases {
		var first string
		for i, args := range tc.orders {
			if tc.fresh != "" {
				os.Remove(tc.fresh)
			}
			code, stdout, stderr := runArgs(t, "", append([]string{name}, args...)...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
				t.Errorf("wadn %s %q: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", name, args, code, tc.code, tc.want, stdout, stderr)
				continue
			}
			if tc.fresh != "" {
				if _, err := os.Stat(tc.fresh); err != nil {
					t.Errorf("wadn %s %q: %v", name, args, err)
				}
			}
			if name == "bench" {
				continue // timings differ
			}
			if i == 0 {
				first = stdout
			} else if stdout != first {
				t.Errorf("wadn %s %q printed\n%s\nand %q printed\n%s", name, args, stdout, tc.orders[0], first)
			}
		}
	}
}
