package experiment

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSlurmSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // 0: refused
	}{
		{"90", 5400}, {"1:30", 90}, {"2:00:00", 7200}, {"1-12", 129600}, {"1-0:30", 88200}, {"1-0:0:5", 86405},
		{"0:00:30", 30}, {"0", 0}, {"", 0}, {"infinite", 0}, {"-1", 0}, {"1:2:3:4", 0}, {"1:-2", 0}, {"a", 0}, {"1-", 0},
		{"9999999", 0},
	} {
		got, err := SlurmSeconds(tc.in)
		if got != tc.want || (err == nil) != (tc.want > 0) {
			t.Errorf("%q: %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for limit, want := range map[int]int{60: 15, 180: 45, 240: 60, 7200: 60, 2: 1} {
		if got := WarnBefore(limit); got != want {
			t.Errorf("WarnBefore(%d) = %d, want %d", limit, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/runs": "/srv/runs", "/my runs/x": "'/my runs/x'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'", "a;b": "'a;b'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSlurmScriptQuotes: paths with blanks, quotes and the shell's
// characters reach wadn as they are, as bash reads the emitted script.
func TestSlurmScriptQuotes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	e := &Emit{Program: filepath.Join(dir, "my wadn"), File: filepath.Join(dir, "it's a sweep.json"), Digest: "abc", Out: filepath.Join(dir, "runs $HOME"),
		DataDir: filepath.Join(dir, "data `x`"), Tasks: 3, Threads: 1, Time: "1:00:00"}
	// The program prints its arguments, one a line, and exits 0.
	if err := os.WriteFile(e.Program, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := e.WriteSlurm(&b); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", b.String())
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=2")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := strings.Join([]string{"sweep", e.File, "--index", "2", "--digest", "abc", "--threads", "1", "--out", e.Out, "--data", e.DataDir}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("the program got\n%s\nwant\n%s", out, want)
	}
	for _, bad := range []string{filepath.Join(dir, `a"b`), filepath.Join(dir, "100%"), filepath.Join(dir, "a\nb")} {
		e.Out = bad
		if err := e.WriteSlurm(&b); err == nil || !strings.Contains(err.Error(), "output directory") {
			t.Errorf("out %q: %v, want it refused", bad, err)
		}
	}
	e.Out, e.Time = dir, "soon"
	if err := e.WriteSlurm(&b); err == nil || !strings.Contains(err.Error(), `"soon" is not a time limit`) {
		t.Errorf("time soon: %v", err)
	}
}

// TestK8sMount: the claim is mounted at the directory the paths share,
// never over the root or a system directory.
func TestK8sMount(t *testing.T) {
	for _, tc := range []struct {
		out, file, data string
		mount           string // "": refused
	}{
		{"/srv/runs", "/srv/exp/grid.json", "", "/srv"},
		{"/srv/shared/runs", "/srv/shared/grid.json", "/srv/shared/data", "/srv/shared"},
		{"/srv/runs", "/home/me/grid.json", "", ""}, // share only /
		{"/srv/runs", "/srv/grid.json", "/data", ""},
		{"/usr/local/runs", "/usr/local/grid.json", "", ""},
		{"/var/runs", "/var/grid.json", "", ""},
		{"/var/lib/wadn/runs", "/var/lib/wadn/grid.json", "", "/var/lib/wadn"},
		{"/tmp/a/runs", "/tmp/b/grid.json", "", ""},
		{"/etc/wadn/runs", "/etc/wadn/grid.json", "", ""},
	} {
		e := &Emit{Program: "wadn", File: tc.file, Digest: "abc", Out: tc.out, DataDir: tc.data, Tasks: 2, Threads: 1, Image: "reg/wadn:1", Claim: "pvc"}
		var b bytes.Buffer
		err := e.WriteK8s(&b)
		switch {
		case tc.mount == "" && (err == nil || !strings.Contains(err.Error(), "hiding the container's own files")):
			t.Errorf("%s, %s, %s: %v, want refused\n%s", tc.out, tc.file, tc.data, err, b.String())
		case tc.mount != "" && (err != nil || !strings.Contains(b.String(), `mountPath: "`+tc.mount+`"`)):
			t.Errorf("%s, %s, %s: %v, want mounted at %s\n%s", tc.out, tc.file, tc.data, err, tc.mount, b.String())
		}
	}
	for dir, want := range map[string]bool{"/": true, "/usr": true, "/usr/local": true, "/proc/x": true, "/var": true, "/tmp": true,
		"/var/lib/x": false, "/tmp/x": false, "/srv": false, "/home/me": false, "/data": false} {
		if SystemDir(dir) != want {
			t.Errorf("SystemDir(%s) = %v, want %v", dir, !want, want)
		}
	}
}
