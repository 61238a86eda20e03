package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAuditFingerprint checks wadn audit --fingerprint: the same sum with one
// and two threads in the reference mode, another in the default mode when
// it runs assembly, and the line scripts read.
func TestAuditFingerprint(t *testing.T) {
	sum := func(args ...string) (string, map[string]any) {
		t.Helper()
		code, out, errOut := runArgs(t, "", append([]string{"audit", "--fingerprint", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("wadn audit --fingerprint %v exited %d\n%s%s", args, code, out, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		s, _ := m["fingerprint"].(string)
		if len(s) != 64 {
			t.Fatalf("fingerprint %q, want 64 hex digits", s)
		}
		return s, m
	}
	one, m := sum("--threads", "1")
	two, _ := sum("--threads", "2")
	if one != two {
		t.Errorf("reference fingerprint %s with one thread, %s with two", one, two)
	}
	if m["numerics"] != "reference" || m["platform"] == "" {
		t.Errorf("fingerprint recorded as %v", m)
	}
	if def, dm := sum("--numerics", "default"); dm["kernels"] != "go" && def == one {
		t.Errorf("the default mode with %v kernels gives the reference fingerprint", dm["kernels"])
	}
	code, out, _ := runArgs(t, "", "audit", "--fingerprint", "--threads", "1")
	if code != 0 || !strings.HasPrefix(out, "fingerprint "+one+"\n") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
}

func TestNumericsFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--numerics", "fast"}, `unknown mode "fast"`},
		{[]string{"audit", "--fingerprint", "--numerics", "fast"}, `unknown mode "fast"`},
		{[]string{"audit", "--numerics", "reference"}, "--numerics is a flag of --fingerprint"},
		{[]string{"audit", "--fingerprint", "--only", "x"}, "takes no --seed or --only"},
	} {
		code, out, errOut := runArgs(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("wadn %v: exit %d, stderr %q, want 2 and %q (stdout %q)", tc.args, code, errOut, tc.want, out)
		}
	}
}
