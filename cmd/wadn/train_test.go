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
		// The training settings of wadn run, checked as there.
		{[]string{"train", "--domain", "synthgen", "--momentum", "0.9"}, 2, "momentum is not a setting of the adadelta optimizer"},
		{[]string{"train", "--domain", "synthgen", "--set", "lr=0"}, 2, "lr = 0, want > 0"},
		{[]string{"train", "--domain", "synthgen", "--epochs", "1000000"}, 2, "epochs = 1000000, want in [1, 100000]"},
		{[]string{"train", "--domain", "synthgen", "--optimizer", "rmsprop"}, 2, "not one of adadelta, sgd, adam, adamw"},
		{[]string{"train", "--domain", "synthgen", "--c0", "1"}, 2, "-c0"},
	} {
		code, _, errOut := runArgs(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}
