package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	got, ok := Find()
	if !ok || got != dir {
		t.Fatalf("Find() = %q, %v; want %q, true", got, ok, dir)
	}
	t.Setenv(Env, filepath.Join(dir, "missing"))
	if got, ok := Find(); ok {
		t.Fatalf("Find() with a missing directory = %q, true; want false", got)
	}
}

func TestRepoRoot(t *testing.T) {
	root, ok := RepoRoot()
	if !ok {
		t.Fatal("RepoRoot found no go.mod above the package directory")
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot() = %q without go.mod: %v", root, err)
	}
}

// TestDefault: the commands' default is $WADN_DATA, else ../shared/data
// beside this module's repository, found from any directory inside it, but
// not beside another module's.
func TestDefault(t *testing.T) {
	top := t.TempDir()
	shared := filepath.Join(top, "shared", "data")
	for _, d := range []string{shared, filepath.Join(top, "repo", "cmd"), filepath.Join(top, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for dir, mod := range map[string]string{"repo": "module " + Module + "\n\ngo 1.26\n", "other": "module example.com/other\n"} {
		if err := os.WriteFile(filepath.Join(top, dir, "go.mod"), []byte(mod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(Env, "")
	os.Unsetenv(Env) // restored by Setenv's cleanup
	for _, tc := range []struct{ cwd, want string }{
		{filepath.Join(top, "repo", "cmd"), shared},
		{filepath.Join(top, "repo"), shared},
		{filepath.Join(top, "other"), ""},
		{top, ""},
	} {
		t.Chdir(tc.cwd)
		if got := Default(); got != tc.want {
			t.Errorf("in %s: %q, want %q", tc.cwd, got, tc.want)
		}
	}
	for _, v := range []string{"/elsewhere", ""} {
		t.Setenv(Env, v)
		if got := Default(); got != v {
			t.Errorf("with $%s=%q: %q", Env, v, got)
		}
	}
}
