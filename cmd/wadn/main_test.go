package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runArgs runs wadn with args and returns its exit status and output.
func runArgs(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code = runMain(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestHelpListsCommands(t *testing.T) {
	code, out, _ := runArgs(t, "", "help")
	if code != 0 {
		t.Fatalf("wadn help exited %d", code)
	}
	for name := range commands {
		if !strings.Contains(out, name) {
			t.Errorf("wadn help does not list %q:\n%s", name, out)
		}
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for name, c := range commands {
		if c.summary == "" {
			t.Errorf("command %q has no summary", name)
		}
		if strings.Contains(c.summary, "\n") {
			t.Errorf("command %q: its summary, one line of wadn help, has a line break: %q", name, c.summary)
		}
		code, _, errOut := runArgs(t, "", name, "-h")
		if code != 0 {
			t.Errorf("wadn %s -h exited %d", name, code)
		}
		if !strings.Contains(errOut, "usage: wadn "+name) {
			t.Errorf("wadn %s -h printed no usage line:\n%s", name, errOut)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runArgs(t, "", "no-such-command")
	if code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("unknown command: exit %d, stderr %q", code, errOut)
	}
}

func TestStartProfile(t *testing.T) {
	p, err := startProfile("", "")
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if _, err := startProfile("gpu", ""); err == nil || !strings.Contains(err.Error(), "gpu") {
		t.Errorf("unknown profile kind: %v", err)
	}
	dir := t.TempDir()
	p, err = startProfile("mem", dir)
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if _, err := os.Stat(filepath.Join(dir, "mem.pprof")); err != nil {
		t.Errorf("no memory profile written: %v", err)
	}
}

// TestHelpOnStdout: wadn help COMMAND writes the command's usage to
// stdout, as wadn help does, so that it pipes into a pager.
func TestHelpOnStdout(t *testing.T) {
	for name := range commands {
		code, out, errOut := runArgs(t, "", "help", name)
		if code != 0 || !strings.Contains(out, "usage: wadn "+name) || errOut != "" {
			t.Errorf("wadn help %s: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", name, code, out, errOut)
		}
	}
}

// TestFlagsAlone: flags without a command are the default command's.
func TestFlagsAlone(t *testing.T) {
	code, _, errOut := runArgs(t, "", "--threads", "-1")
	if code != 2 || !strings.Contains(errOut, "wadn run: --threads -1: want a positive count") {
		t.Errorf("wadn --threads -1: exit %d, stderr %q; want 2 and run's message", code, errOut)
	}
	code, _, errOut = runArgs(t, "", "--no-such-flag")
	if code != 2 || !strings.Contains(errOut, "flag provided but not defined: -no-such-flag") {
		t.Errorf("wadn --no-such-flag: exit %d, stderr %q", code, errOut)
	}
}
