package main

import (
	"strings"
	"testing"
)

func TestTrainRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"train", "--pixels", "grey"}, 2, "--pixels"},
		{[]string{"train", "extra"}, 2, "unexpected argument"},
		{[]string{"train", "--data", "", "--domain", "mnist"}, 2, "no data directory"},
		{[]string{"train", "--data", t.TempDir(), "--domain", "mnist", "--out", t.TempDir()}, 1, "mnist"},
	} {
		code, _, errOut := runArgs(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}
