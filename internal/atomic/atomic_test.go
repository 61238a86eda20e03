package atomic

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "two" {
		t.Errorf("content %q, %v", b, err)
	}
	// A failing write (into a missing directory) leaves nothing behind.
	if err := WriteFile(filepath.Join(dir, "no", "x"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(entries))
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".checkpoint.wadn.tmp-123", ".result.json.tmp-4", "result.json", ".hidden", "epochs.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveTemps(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if !slices.Equal(removed, []string{".checkpoint.wadn.tmp-123", ".result.json.tmp-4"}) {
		t.Errorf("removed %v", removed)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d entries left, want 3", len(entries))
	}
}
