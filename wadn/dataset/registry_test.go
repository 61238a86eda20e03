package dataset

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
)

// TestRegistryEntries checks what every entry declares of itself: one name
// per domain (its sizes name exactly its domains), loaded domains and a
// default target among them, scenarios, a schedule, a lister and its
// protocol at every scenario.
func TestRegistryEntries(t *testing.T) {
	names := map[string]bool{}
	for _, ds := range All {
		for _, n := range append([]string{ds.Name}, ds.Aliases...) {
			if names[n] {
				t.Errorf("%s: the name %q is taken twice", ds, n)
			}
			names[n] = true
		}
		if ds.Summary == "" || ds.Lister.Dataset != ds.Name || len(ds.Lister.Sought) == 0 {
			t.Errorf("%s: summary %q, lister of %q seeking %v", ds, ds.Summary, ds.Lister.Dataset, ds.Lister.Sought)
		}
		if got, want := slices.Sorted(maps.Keys(ds.Sizes)), slices.Sorted(slices.Values(ds.Domains)); !slices.Equal(got, want) {
			t.Errorf("%s: sizes of %v, domains %v", ds, got, want)
		}
		for _, n := range ds.Loaded {
			if !slices.Contains(ds.Domains, n) {
				t.Errorf("%s: loads %q, not one of its domains", ds, n)
			}
		}
		if ds.Target != "" && !slices.Contains(ds.Loaded, ds.Target) {
			t.Errorf("%s: default target %q is not loaded", ds, ds.Target)
		}
		if ds.Embedded != (ds.Lister.Embedded != nil) {
			t.Errorf("%s: embedded %v but its lister lists an embedded copy: %v", ds, ds.Embedded, ds.Lister.Embedded != nil)
		}
		if len(ds.Scenarios) == 0 || ds.Schedule.Epochs <= 0 || ds.Schedule.Batch <= 0 || !(ds.Schedule.LR > 0) {
			t.Errorf("%s: scenarios %v, schedule %+v", ds, ds.Scenarios, ds.Schedule)
		}
		for _, sc := range ds.Scenarios {
			if p := ds.Protocol(sc, ds.Settings()); p.Scenario != sc {
				t.Errorf("%s %s: protocol of scenario %s", ds, sc, p.Scenario)
			}
		}
		for sc, per := range ds.Published {
			for m, targets := range per {
				for tg := range targets {
					if !slices.Contains(ds.Domains, tg) {
						t.Errorf("%s: the paper's %s figure of %s names the target %q, not one of its domains", ds, sc, m, tg)
					}
				}
			}
		}
		if g := ds.Golden; g != nil && g.Target != "" && !slices.Contains(ds.Loaded, g.Target) {
			t.Errorf("%s: golden target %q is not loaded", ds, g.Target)
		}
		if _, err := ds.Settings().Network(); err != nil {
			t.Errorf("%s: network at the defaults: %v", ds, err)
		}
	}
}

// TestDownloads checks the typed mirror lists of the registry: every source
// has a unique name and a note, and files with mirrors and a checksum of the
// right length, or says why it has none.
func TestDownloads(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Downloads() {
		if seen[d.Name] || d.Note == "" {
			t.Errorf("%s: repeated or without a note", d.Name)
		}
		seen[d.Name] = true
		for _, f := range d.Files {
			if len(f.URLs) == 0 || !fs.ValidPath(f.Path) || f.Source == "" {
				t.Errorf("%s: %s: %d mirrors, source %q", d.Name, f.Path, len(f.URLs), f.Source)
			}
			if _, err := hex.DecodeString(f.SHA256 + f.MD5); err != nil || !(len(f.SHA256) == 64 && f.MD5 == "" || f.SHA256 == "" && len(f.MD5) == 32) {
				t.Errorf("%s: %s: want one SHA-256 or, failing that, one MD5", d.Name, f.Path)
			}
		}
	}
	for _, name := range []string{"amazon", "mnist", "usps", "mnist_m", "svhn", "synth", "office_caltech", "office_home"} {
		if _, ok := Download(name); !ok {
			t.Errorf("no source %s", name)
		}
	}
}

// source is where TestLoadListCheckAgree reads a data set: a data directory
// and whether the files in it are of the data set's layout only.
type source struct {
	dir    string
	layout bool
}

// sourcesOf returns the sources a data set can be read from here: its
// embedded copy, the data directory when it holds the data set, and for
// Office-Home, whose features are not distributed, a directory with the
// layout-only archive under every domain's name.
func sourcesOf(t *testing.T, ds *Dataset, shared string) []source {
	var out []source
	if ds.Embedded {
		out = append(out, source{})
	}
	if shared == "" {
		return out
	}
	if ds == OfficeHome {
		dir := t.TempDir()
		layout, err := os.ReadFile(filepath.Join(shared, fmt.Sprintf(data.OfficeHomeLayout, "art")))
		if err != nil {
			t.Skipf("no Office-Home layout file: %v", err)
		}
		for _, d := range ds.Domains {
			p := filepath.Join(dir, data.OfficeHomeDir, data.OfficeHomeFile(d))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, layout, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return append(out, source{dir: dir, layout: true})
	}
	return append(out, source{dir: shared})
}

// TestLoadListCheckAgree checks, for every registered data set, that
// loading, listing and the integrity check agree on every domain's name and
// count: the domains loaded are named as the registry names them and have
// the rows it gives; the listing (wadn data ls) names the same domains with
// the same counts; and a registry whose size of a domain read from files is
// off by one row makes the load fail, naming that domain's file.
func TestLoadListCheckAgree(t *testing.T) {
	shared, _ := datadir.Find()
	if testing.Short() {
		shared = "" // the embedded copies alone
	}
	for _, ds := range All {
		t.Run(ds.Name, func(t *testing.T) {
			srcs := sourcesOf(t, ds, shared)
			if len(srcs) == 0 {
				t.Skipf("no data directory (set %s) and no embedded copy of %s", datadir.Env, ds)
			}
			for _, src := range srcs {
				checkSource(t, ds, src)
			}
		})
	}
}

func checkSource(t *testing.T, ds *Dataset, src source) {
	where := src.dir
	if where == "" {
		where = "the embedded copy"
	}
	opt := data.LoadOptions{AllowUnverified: src.layout}
	doms, err := ds.Load(ds.Settings(), src.dir, nil, opt)
	if err != nil {
		t.Fatalf("%s: load: %v", where, err)
	}
	var fromFiles []string
	for _, d := range doms {
		if d.Dataset != ds.Name {
			t.Errorf("%s: domain %s loaded as of data set %q", where, d.Name, d.Dataset)
		}
		eds, ok := ds.Sizes[d.Name]
		if !ok {
			t.Errorf("%s: loaded a domain %q the registry does not name", where, d.Name)
			continue
		}
		if src.layout {
			// Layout-only files: the check must have compared them with the
			// registry's size under the same name.
			if len(d.Unverified) == 0 || !strings.Contains(strings.Join(d.Unverified, "\n"), ds.Name+"/"+d.Name) {
				t.Errorf("%s: %s: the integrity check said %q", where, d.Name, d.Unverified)
			}
		} else if !matches(eds, d.Train.Len(), d.Test.Len()) {
			t.Errorf("%s: %s has %d+%d rows, the registry %+v", where, d.Name, d.Train.Len(), d.Test.Len(), eds)
		}
		if src.dir != "" && !generated(eds) {
			fromFiles = append(fromFiles, d.Name)
		}
	}
	if got, want := len(doms), len(ds.Loaded); got != want {
		t.Errorf("%s: %d domains loaded, want %d", where, got, want)
	}

	// The listing.
	var listed []data.Entry
	if src.dir == "" {
		listed = ds.Lister.Embedded()
	} else {
		for _, j := range ds.Lister.Files(src.dir) {
			listed = append(listed, j.Run()...)
		}
	}
	seen := map[string]bool{}
	for _, e := range listed {
		if e.Error != "" {
			t.Errorf("%s: listing %s: %s", where, e.Source, e.Error)
			continue
		}
		if e.Dataset != ds.Name {
			t.Errorf("%s: listed %s as of data set %q", where, e.Source, e.Dataset)
		}
		eds, ok := ds.Sizes[e.Domain]
		if !ok {
			t.Errorf("%s: listed a domain %q the registry does not name (%s)", where, e.Domain, e.Source)
			continue
		}
		if e.Note == "" && !src.layout && !slices.ContainsFunc(eds, func(ed data.Edition) bool {
			return map[string]int{"train": ed.Train, "test": ed.Test}[e.Split] == e.Count
		}) {
			t.Errorf("%s: listed %s %s with %d rows, the registry %+v", where, e.Domain, e.Split, e.Count, eds)
		}
		seen[e.Domain] = true
	}
	for _, d := range doms {
		if !seen[d.Name] && !generated(ds.Sizes[d.Name]) {
			t.Errorf("%s: %s loaded but not listed", where, d.Name)
		}
	}

	// The integrity check, against a registry one row off for each domain
	// read from files in turn.
	if src.layout {
		return
	}
	for _, name := range fromFiles {
		off := *ds
		off.Sizes = maps.Clone(ds.Sizes)
		var eds []data.Edition
		for _, e := range ds.Sizes[name] {
			e.Train++
			eds = append(eds, e)
		}
		off.Sizes[name] = eds
		_, err := off.Load(ds.Settings(), src.dir, nil, data.LoadOptions{})
		var ie *data.IntegrityError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), ds.Name+"/"+name+" training split has") {
			t.Errorf("%s: with %s's size off by one, the load gave %v", where, name, err)
		}
	}
}

// matches reports whether train and test rows are one of the editions.
func matches(eds []data.Edition, train, test int) bool {
	return slices.ContainsFunc(eds, func(e data.Edition) bool { return e.Train == train && e.Test == test })
}

// generated reports whether a domain's sizes are those of a generated
// domain, which no file holds.
func generated(eds []data.Edition) bool {
	return len(eds) == 1 && eds[0].Note == "generated"
}

// TestLoadRefusesUnknownDomain: a domain the registry does not name is
// refused before anything is read, naming the data set's domains; Office-Home
// answers so for the name its domain had in the run command before.
func TestLoadRefusesUnknownDomain(t *testing.T) {
	_, err := OfficeHome.Load(OfficeHome.Settings(), t.TempDir(), []string{"art", "real"}, data.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), `office-home has no domain "real" (want one of art, clipart, product, real_world)`) {
		t.Errorf("office-home real: %v", err)
	}
	if _, err := OfficeHome.Load(OfficeHome.Settings(), "", nil, data.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "no embedded copy") {
		t.Errorf("office-home without a data directory: %v", err)
	}
}

// TestCatalogEmbedded lists the copies embedded in the binary through the
// registry: Amazon's and Office-Caltech10's.
func TestCatalogEmbedded(t *testing.T) {
	entries, err := Catalog("", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, e := range entries {
		got[e.Dataset] += e.Count
	}
	want := map[string]int{"amazon": 6465 + 5586 + 7681 + 7945, "office-caltech": 958 + 295 + 157 + 1123}
	if !maps.Equal(got, want) {
		t.Errorf("rows listed by data set: %v, want %v", got, want)
	}
	for _, p := range Sought() {
		if strings.Contains(p, "real.npz") {
			t.Errorf("sought %s", p)
		}
	}
}

// TestClasses: every data set says how many classes its domains have.
func TestClasses(t *testing.T) {
	for _, d := range All {
		if d.Classes < 2 {
			t.Errorf("%s: Classes %d, want at least 2", d.Name, d.Classes)
		}
	}
}
