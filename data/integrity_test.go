package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

// testEditions are published sizes of domains, as the data set registry
// (package wadn/dataset) declares them and passes them to the loaders.
var testEditions = map[string][]Edition{
	"books": {{Train: 2000, Test: 4465}}, "dvd": {{Train: 2000, Test: 3586}},
	"electronics": {{Train: 2000, Test: 5681}}, "kitchen": {{Train: 2000, Test: 5945}},
	"usps": {{Train: 7291, Test: 2007}},
	"mnist_m": {
		{Train: 59001, Test: 9001, Note: "the public release"},
		{Train: 10000, Test: 2000, Note: "the first 10000 training and 2000 test images of the public release"},
	},
}

// TestAmazonStrict builds damaged copies of the Amazon data and checks that
// LoadAmazon refuses them naming the file, with and without the
// directory's SHA256SUMS, and that AllowUnverified loads them and says so.
func TestAmazonStrict(t *testing.T) {
	shared := requireData(t)
	// One changed count in one row keeps the rows but not the SHA-256.
	changeValue := func(b []byte) []byte {
		b = slices.Clone(b)
		i := strings.Index(string(b), ":1 ")
		b[i+1] = '2'
		return b
	}
	for _, tc := range []struct {
		name      string
		sums      bool
		edits     map[string]func([]byte) []byte
		wantFile  string
		wantParts []string
	}{
		{"cut kitchen_test", false, map[string]func([]byte) []byte{"kitchen_test.svmlight": datadir.KeepLines(2975)},
			"kitchen_test.svmlight", []string{"2975 rows", "amazon/kitchen test split has 5945"}},
		{"empty books_test", false, map[string]func([]byte) []byte{"books_test.svmlight": datadir.Empty},
			"books_test.svmlight", []string{"0 rows", "amazon/books test split has 4465"}},
		{"cut kitchen_test, with sums", true, map[string]func([]byte) []byte{"kitchen_test.svmlight": datadir.KeepLines(2975)},
			"kitchen_test.svmlight", []string{"SHA-256", "SHA256SUMS lists e1502b97"}},
		{"changed value, with sums", true, map[string]func([]byte) []byte{"dvd_train.svmlight": changeValue},
			"dvd_train.svmlight", []string{"SHA-256", "SHA256SUMS lists 95f602aa"}},
		{"intact, with sums", true, nil, "", nil},
		{"intact", false, nil, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := datadir.CopyAmazon(shared, dir, tc.sums, tc.edits); err != nil {
				t.Fatal(err)
			}
			ds, err := LoadAmazonWith(dir, LoadOptions{Editions: testEditions})
			if tc.wantFile == "" {
				if err != nil || len(ds) != 4 || len(Unverified(ds)) != 0 {
					t.Fatalf("intact copy: %d domains, %v, unverified %q", len(ds), err, Unverified(ds))
				}
				return
			}
			var ie *IntegrityError
			if !errors.As(err, &ie) || !errors.Is(err, ErrUnverified) || ds != nil {
				t.Fatalf("got %d domains, error %v; want an *IntegrityError", len(ds), err)
			}
			msg := err.Error()
			if !strings.Contains(msg, filepath.Join(dir, AmazonDir, tc.wantFile)) {
				t.Errorf("error does not name %s: %s", tc.wantFile, msg)
			}
			for _, p := range tc.wantParts {
				if !strings.Contains(msg, p) {
					t.Errorf("error does not say %q: %s", p, msg)
				}
			}
			ds, err = LoadAmazonWith(dir, LoadOptions{AllowUnverified: true, Editions: testEditions})
			if err != nil || len(ds) != 4 {
				t.Fatalf("AllowUnverified: %d domains, %v", len(ds), err)
			}
			u := Unverified(ds)
			if len(u) == 0 || !strings.Contains(strings.Join(u, "\n"), tc.wantFile) {
				t.Errorf("AllowUnverified: Unverified = %q, want the waived check on %s", u, tc.wantFile)
			}
		})
	}
	// The embedded copy is checked against its own SHA-256 only.
	ds, err := LoadAmazon("")
	if err != nil || len(Unverified(ds)) != 0 {
		t.Errorf("embedded copy: %v, unverified %q", err, Unverified(ds))
	}
}

// TestEditions checks the choice among the published forms of a domain:
// both of MNIST-M's, a mixture of the two, and a count of neither.
func TestEditions(t *testing.T) {
	dom := func(train, test int) *Domain {
		return &Domain{Dataset: "digits", Name: "mnist_m",
			Train: Split{Y: make([]int, train)}, Test: Split{Y: make([]int, test)}}
	}
	for _, tc := range []struct {
		train, test int
		want        []string // parts of the error; nil for none
	}{
		{59001, 9001, nil},
		{10000, 2000, nil},
		{59001, 2000, []string{"test.txt: 2000 rows, the test split of another form", "59001 rows of train.txt"}},
		{9999, 2000, []string{"train.txt: 9999 rows", "has 59001 (the public release) or 10000 (the first"}},
		{0, 0, []string{"train.txt: 0 rows", "test.txt: 0 rows"}},
	} {
		err := newChecker(LoadOptions{Editions: testEditions}).counts(dom(tc.train, tc.test), "train.txt", "test.txt")
		name := fmt.Sprintf("%d/%d", tc.train, tc.test)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, p := range tc.want {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %q does not say %q", name, err, p)
			}
		}
		c := newChecker(LoadOptions{AllowUnverified: true, Editions: testEditions})
		d := dom(tc.train, tc.test)
		if err := c.counts(d, "train.txt", "test.txt"); err != nil {
			t.Errorf("%s: AllowUnverified: %v", name, err)
		}
		c.finish(d)
		if len(d.Unverified) == 0 {
			t.Errorf("%s: AllowUnverified recorded nothing", name)
		}
	}
}

// TestEditionsUnknownDomain: with editions given, a domain they do not name
// is refused, AllowUnverified or not: the registry and the reader disagree
// on its name. Without editions no rows are checked.
func TestEditionsUnknownDomain(t *testing.T) {
	d := &Domain{Dataset: "office-home", Name: "real", Train: Split{Y: make([]int, 3)}}
	for _, allow := range []bool{false, true} {
		err := newChecker(LoadOptions{AllowUnverified: allow, Editions: testEditions}).counts(d, "x.npz", "")
		if err == nil || !strings.Contains(err.Error(), "x.npz: the registry gives no published size of a domain office-home/real") {
			t.Errorf("AllowUnverified %v: %v", allow, err)
		}
	}
	if err := newChecker(LoadOptions{}).counts(d, "x.npz", ""); err != nil {
		t.Errorf("no editions: %v", err)
	}
}

// TestUSPSStrict: a USPS file of the right layout but three rows is
// refused, naming it; the SHA256SUMS of its folder is checked too.
func TestUSPSStrict(t *testing.T) {
	dir := t.TempDir()
	rows := "1 1:-1 2:0.5\n10 256:1\n3 7:0.25\n"
	writeTree(t, dir, map[string]string{USPSTrain: rows, USPSTest: rows})
	strict := DigitsOptions{LoadOptions: LoadOptions{Editions: testEditions}}
	_, err := LoadUSPS(dir, strict)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, USPSTrain)+": 3 rows, but the digits/usps training split has 7291") {
		t.Errorf("three-row USPS files: %v", err)
	}
	d, err := LoadUSPS(dir, DigitsOptions{LoadOptions: LoadOptions{AllowUnverified: true, Editions: testEditions}})
	if err != nil || d.Train.Len() != 3 || len(d.Unverified) != 2 {
		t.Errorf("AllowUnverified: %d rows, %v, unverified %q", d.Train.Len(), err, d.Unverified)
	}
	// A list in the usps folder that disagrees with the file.
	writeTree(t, dir, map[string]string{"usps/" + SumsFile: sumOf("other") + "  usps.bz2\n"})
	_, err = LoadUSPS(dir, DigitsOptions{LoadOptions: LoadOptions{}})
	if err == nil || !strings.Contains(err.Error(), "SHA-256 "+sumOf(rows)) || !strings.Contains(err.Error(), filepath.Join(dir, "usps", SumsFile)+" lists "+sumOf("other")) {
		t.Errorf("USPS file against a list that disagrees: %v", err)
	}
	// A malformed list is refused with its line.
	writeTree(t, dir, map[string]string{SumsFile: "not a checksum line\n"})
	if err := os.Remove(filepath.Join(dir, "usps", SumsFile)); err != nil {
		t.Fatal(err)
	}
	_, err = LoadUSPS(dir, DigitsOptions{})
	if err == nil || !strings.Contains(err.Error(), SumsFile+":1") {
		t.Errorf("malformed SHA256SUMS: %v", err)
	}
}
