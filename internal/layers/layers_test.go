package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rank is the layer of each top-level tree of the module: a higher rank is a
// higher layer. Trees of one rank are peers, which must not import each
// other.
var rank = map[string]int{
	"cmd":      5,
	"wadn":     4,
	"nn":       3,
	"optim":    3,
	"convex":   3,
	"autodiff": 2,
	"data":     1,
	"internal": 0,
}

// tree returns the top-level tree of the package path rel, a path inside the
// module ("nn/safetensors" is in "nn"). The module's root package is in the
// tree "".
func tree(rel string) string {
	t, _, _ := strings.Cut(rel, "/")
	return t
}

// peers returns the trees of rank r, sorted, for messages.
func peers(r int) []string {
	var ts []string
	for t, tr := range rank {
		if tr == r {
			ts = append(ts, t)
		}
	}
	slices.Sort(ts)
	return ts
}

// name returns rel for messages, saying what the empty path is.
func name(rel string) string {
	if rel == "" {
		return "the module's root package"
	}
	return rel
}

// check returns nil when the package at path from (inside the module) may
// import the package at path to, and otherwise why it may not.
func check(from, to string) error {
	ft, tt := tree(from), tree(to)
	fr, ok := rank[ft]
	if !ok {
		return fmt.Errorf("%s is in tree %q, which has no layer: add it to rank in internal/layers", name(from), ft)
	}
	tr, ok := rank[tt]
	if !ok {
		return fmt.Errorf("%s is in tree %q, which has no layer: add it to rank in internal/layers", name(to), tt)
	}
	switch {
	case ft == tt || fr > tr:
		return nil
	case fr == tr:
		return fmt.Errorf("%s and %s are peers in the layer of %s, which must not import each other's trees",
			ft, tt, strings.Join(peers(fr), ", "))
	default:
		return fmt.Errorf("%s (layer %d) is above %s (layer %d): imports must point down", tt, tr, ft, fr)
	}
}

// TestCheck checks the rule itself on examples of every case.
func TestCheck(t *testing.T) {
	cases := []struct {
		from, to string
		ok       bool
	}{
		{"cmd/wadn", "wadn/experiment", true},
		{"cmd/wadn", "internal/lock", true},
		{"wadn/method", "wadn/dataset", true}, // the same tree
		{"wadn/internal/fixture", "wadn/nets", true},
		{"wadn/trainer", "nn", true},
		{"wadn/trainer", "optim", true},
		{"nn", "autodiff/checkpoint", true},
		{"optim", "autodiff/kernel", true},
		{"convex", "internal/numerics", true},
		{"autodiff", "internal/numerics", true},
		{"autodiff", "data", true},
		{"data", "internal/datadir", true},
		{"data/idx", "data/internal/bounded", true},
		{"nn", "optim", false}, // peers
		{"optim", "nn/checkpoint", false},
		{"convex", "nn", false},
		{"nn", "wadn/nets", false}, // upwards
		{"internal/numerics/fingerprint", "wadn", false},
		{"internal/numerics", "autodiff/kernel", false},
		{"internal/atomic", "data", false},
		{"data", "autodiff", false},
		{"data/fetch", "nn", false},
		{"autodiff", "optim", false},
		{"wadn", "cmd/wadn", false},
		{"scripts/x", "internal/atomic", false}, // no layer
		{"internal/atomic", "", false},          // the module's root package
	}
	for _, c := range cases {
		err := check(c.from, c.to)
		if (err == nil) != c.ok {
			t.Errorf("check(%q, %q) = %v, want allowed %v", c.from, c.to, err, c.ok)
		}
	}
}

// pkg is what "go list -json" reports of a package that the test reads.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// goList runs "go list" with args in the module's root directory under
// the extra environment env and returns its standard output.
func goList(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the packages with: %v", err)
	}
	cmd := exec.Command(gobin, append([]string{"list"}, args...)...)
	cmd.Dir = "../.." // the module's root, from internal/layers
	// The module's own go.mod, and no cgo, as .ci/run builds.
	cmd.Env = append(append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s (%s): %v\n%s", strings.Join(args, " "), strings.Join(env, " "), err, stderr.Bytes())
	}
	return out
}

// TestImportsPointOneWay lists every package of the module with its
// imports, those of its tests and those of its external tests, and reports
// each import against the rule once, naming the configurations (the host,
// tags and platforms whose files differ) where it appears when not in all.
func TestImportsPointOneWay(t *testing.T) {
	mod := strings.TrimSpace(string(goList(t, nil, "-m")))
	if mod == "" || strings.ContainsAny(mod, " \n") {
		t.Fatalf("go list -m gives %q, want the one module's path", mod)
	}
	configs := []struct {
		name string
		env  []string
		tags string
	}{
		{"host", nil, ""},
		{"purego", nil, "purego"},
		{"windows/amd64", []string{"GOOS=windows", "GOARCH=amd64"}, ""},
		{"js/wasm", []string{"GOOS=js", "GOARCH=wasm"}, ""},
		{"plan9/amd64", []string{"GOOS=plan9", "GOARCH=amd64"}, ""},
		{"linux/386", []string{"GOOS=linux", "GOARCH=386"}, ""},
	}
	where := make(map[string][]string) // violation -> configurations
	for _, c := range configs {
		out := goList(t, c.env, "-tags="+c.tags, "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
		dec := json.NewDecoder(bytes.NewReader(out))
		n := 0
		for {
			var p pkg
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: reading go list's output: %v", c.name, err)
			}
			n++
			from, ok := strings.CutPrefix(p.ImportPath, mod+"/")
			if !ok {
				from = "" // the module's root package
			}
			for _, imp := range []struct {
				kind  string
				paths []string
			}{
				{"imports", p.Imports},
				{"imports in its tests", p.TestImports},
				{"imports in its external tests", p.XTestImports},
			} {
				for _, path := range imp.paths {
					to, ok := strings.CutPrefix(path, mod+"/")
					if !ok && path != mod {
						continue // outside the module
					}
					if err := check(from, to); err != nil {
						v := fmt.Sprintf("%s %s %s: %v", name(from), imp.kind, name(to), err)
						if !slices.Contains(where[v], c.name) {
							where[v] = append(where[v], c.name)
						}
					}
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s: go list listed no packages", c.name)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(where)) {
		if len(where[v]) < len(configs) {
			v += " (only in " + strings.Join(where[v], ", ") + ")"
		}
		t.Error(v)
	}
}
