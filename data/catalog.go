package data

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/wadn-go/wadn/data/idx"
	"github.com/wadn-go/wadn/data/pnglist"
	"github.com/wadn-go/wadn/data/svmlight"
)

// Entry describes one split of one domain found by [Catalog].
type Entry struct {
	Dataset   string `json:"dataset"`
	Domain    string `json:"domain"`
	Split     string `json:"split"` // "train" or "test"
	Count     int    `json:"count"`
	Histogram []int  `json:"histogram"`       // samples per class
	Source    string `json:"source"`          // file or folder read, or "embedded"
	Note      string `json:"note,omitempty"`  // e.g. that a file has a data set's layout only
	Error     string `json:"error,omitempty"` // why the split could not be read
}

// Lister lists what a data directory, and the binary, hold of one data set.
// The data set registry (package wadn/dataset) gives each data set's.
type Lister struct {
	// Dataset names the data set, as Entry.Dataset does.
	Dataset string
	// Embedded lists the copy embedded in the binary; nil for a data set
	// that has none.
	Embedded func() []Entry
	// Files returns the jobs listing the files of the data set found in
	// the data directory dir; none when it holds none of them.
	Files func(dir string) []CatalogJob
	// Sought are the paths, relative to a data directory, at which Files
	// looks (folders end in a slash).
	Sought []string
}

// The listers of the data sets this package reads.
var (
	AmazonLister = Lister{
		Dataset: "amazon",
		Embedded: func() []Entry {
			d, err := LoadAmazonEmbedded()
			return domainEntries(d, err, "amazon", "embedded", "")
		},
		Files:  amazonJobs,
		Sought: []string{AmazonDir + "/", AmazonNPZ},
	}
	DigitsLister = Lister{
		Dataset: "digits",
		Files:   digitsJobs,
		Sought:  []string{MNISTDir + "/", USPSTrain, USPSTest, MNISTMDir + "/", SVHNTrain, SVHNTest, SynthTrain, SynthTest, SVHNLayout, SynthLayout},
	}
	OfficeCaltechLister = Lister{
		Dataset: "office-caltech",
		Embedded: func() []Entry {
			d, err := LoadOfficeCaltech("", nil, LoadOptions{})
			return domainEntries(d, err, "office-caltech", "embedded", "")
		},
		Files:  officeCaltechJobs,
		Sought: officeCaltechSought(),
	}
	OfficeHomeLister = Lister{
		Dataset: "office-home",
		Files:   officeHomeJobs,
		Sought:  officeHomeSought(),
	}
)

// Catalog lists the domains of the data sets of the listers found in the
// data directory dir and embedded in the binary, with the size and class
// histogram of every split, reading only the labels where the format
// allows. Layout-only files in formats/ are listed with a note. A file that
// is present but unreadable gives an entry with Error set; a missing data
// set is simply not listed. With dir == "" only the embedded copies are
// listed. The entries come in the order of the listers, the embedded copies
// first; the jobs run concurrently. progress, if not nil, is told what is
// read, job by job in that order, before the reading starts.
func Catalog(dir string, listers []Lister, progress func(string)) ([]Entry, error) {
	if progress == nil {
		progress = func(string) {}
	}
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("data directory %s is not a directory", dir)
		}
	}
	var jobs []CatalogJob
	for _, l := range listers {
		if l.Embedded != nil {
			jobs = append(jobs, CatalogJob{"the embedded " + l.Dataset + " copy", l.Embedded})
		}
	}
	if dir != "" {
		for _, l := range listers {
			if l.Files != nil {
				jobs = append(jobs, l.Files(dir)...)
			}
		}
	}
	// Every job is announced, in order, before they all start: the
	// progress lines come in the same order each time.
	for _, j := range jobs {
		progress("reading " + j.What)
	}
	results := make([][]Entry, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = j.Run()
		}()
	}
	wg.Wait()
	var out []Entry
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// domainEntries turns loaded domains into entries, or one error entry.
func domainEntries(ds []Domain, err error, dataset, source, note string) []Entry {
	if err != nil {
		return []Entry{{Dataset: dataset, Source: source, Note: note, Error: err.Error()}}
	}
	var out []Entry
	for _, d := range ds {
		for _, s := range []struct {
			name  string
			split *Split
		}{{"train", &d.Train}, {"test", &d.Test}} {
			if s.split.Len() == 0 && s.name == "test" {
				continue
			}
			out = append(out, Entry{Dataset: d.Dataset, Domain: d.Name, Split: s.name, Count: s.split.Len(),
				Histogram: s.split.Histogram(), Source: source, Note: note})
		}
	}
	return out
}

func labelEntry(dataset, domain, split, source, note string, y []int, k int, err error) Entry {
	e := Entry{Dataset: dataset, Domain: domain, Split: split, Source: source, Note: note}
	if err != nil {
		e.Error = err.Error()
		return e
	}
	e.Count, e.Histogram = len(y), histogram(y, k)
	return e
}

// present returns a function telling whether a path relative to dir
// exists, and one joining it to dir.
func present(dir string) (exists func(string) bool, at func(string) string) {
	at = func(p string) string { return filepath.Join(dir, p) }
	exists = func(p string) bool {
		_, err := os.Stat(at(p))
		return err == nil
	}
	return exists, at
}

func amazonJobs(dir string) []CatalogJob {
	exists, at := present(dir)
	var jobs []CatalogJob
	if exists(AmazonDir) {
		jobs = append(jobs, CatalogJob{"amazon/*.svmlight", func() []Entry {
			d, err := LoadAmazonSVMLight(at(AmazonDir))
			return domainEntries(d, err, "amazon", at(AmazonDir), "")
		}})
	}
	if exists(AmazonNPZ) {
		jobs = append(jobs, CatalogJob{AmazonNPZ, func() []Entry {
			d, err := LoadAmazonNPZ(at(AmazonNPZ))
			return domainEntries(d, err, "amazon", at(AmazonNPZ), "the amazon/ data in the MDAN/DARN/WADN npz layout")
		}})
	}
	return jobs
}

func digitsJobs(dir string) []CatalogJob {
	exists, at := present(dir)
	var jobs []CatalogJob
	if exists(MNISTDir) {
		jobs = append(jobs, CatalogJob{"mnist labels", func() []Entry {
			var out []Entry
			for _, s := range [][2]string{{"train", mnistTrainLab}, {"test", mnistTestLab}} {
				p := filepath.Join(at(MNISTDir), s[1])
				y, err := idxLabels(p)
				out = append(out, labelEntry("digits", "mnist", s[0], p, "", y, DigitsClasses, err))
			}
			return out
		}})
	}
	for _, s := range [][2]string{{"train", USPSTrain}, {"test", USPSTest}} {
		if exists(s[1]) {
			jobs = append(jobs, CatalogJob{s[1], func() []Entry {
				y, err := uspsLabels(at(s[1]))
				return []Entry{labelEntry("digits", "usps", s[0], at(s[1]), "", y, DigitsClasses, err)}
			}})
		}
	}
	for _, part := range []string{"train", "test"} {
		lf := filepath.Join(MNISTMDir, "mnist_m_"+part+"_labels.txt")
		if exists(lf) {
			jobs = append(jobs, CatalogJob{lf, func() []Entry {
				y, err := listLabels(at(lf))
				return []Entry{labelEntry("digits", "mnist_m", part, at(lf), "", y, DigitsClasses, err)}
			}})
		}
	}
	for _, m := range []struct{ domain, split, path, note string }{
		{"svhn", "train", SVHNTrain, ""}, {"svhn", "test", SVHNTest, ""},
		{"synth", "train", SynthTrain, ""}, {"synth", "test", SynthTest, ""},
		{"svhn", "test", SVHNLayout, "SVHN layout only: 300 MNIST-M images, not SVHN"},
		{"synth", "test", SynthLayout, "SynthDigits layout only: 300 MNIST-M images, not SynthDigits"},
	} {
		if exists(m.path) {
			jobs = append(jobs, CatalogJob{m.path, func() []Entry {
				s, err := ReadDigitsMat(at(m.path), DigitsOptions{})
				return []Entry{labelEntry("digits", m.domain, m.split, at(m.path), m.note, s.Y, DigitsClasses, err)}
			}})
		}
	}
	return jobs
}

func officeCaltechSought() []string {
	out := make([]string, len(OfficeCaltechDomains))
	for i, d := range OfficeCaltechDomains {
		out[i] = OfficeCaltechDir + "/" + OfficeCaltechFile(d)
	}
	return out
}

func officeCaltechJobs(dir string) []CatalogJob {
	exists, at := present(dir)
	var jobs []CatalogJob
	for i, p := range officeCaltechSought() {
		if exists(p) {
			name := OfficeCaltechDomains[i]
			jobs = append(jobs, CatalogJob{p, func() []Entry {
				y, err := OfficeCaltechLabels(at(p))
				return []Entry{labelEntry("office-caltech", name, "train", at(p), "", y, OfficeCaltechClasses, err)}
			}})
		}
	}
	return jobs
}

func officeHomeSought() []string {
	var out []string
	for _, name := range OfficeHomeDomains {
		out = append(out, OfficeHomeDir+"/"+OfficeHomeFile(name), fmt.Sprintf(OfficeHomeLayout, name))
	}
	return out
}

func officeHomeJobs(dir string) []CatalogJob {
	exists, at := present(dir)
	var jobs []CatalogJob
	for _, name := range OfficeHomeDomains {
		for _, f := range []struct{ path, note string }{
			{filepath.Join(OfficeHomeDir, OfficeHomeFile(name)), ""},
			{fmt.Sprintf(OfficeHomeLayout, name), "Office-Home feature layout only: random values"},
		} {
			if exists(f.path) {
				jobs = append(jobs, CatalogJob{f.path, func() []Entry {
					d, err := ReadOfficeHomeNPZ(at(f.path), name)
					return domainEntries([]Domain{d}, err, "office-home", at(f.path), f.note)
				}})
			}
		}
	}
	return jobs
}

// CatalogJob reads one source of a catalog.
type CatalogJob struct {
	What string         // what is read, for progress messages
	Run  func() []Entry // the entries read
}

func idxLabels(path string) ([]int, error) {
	a, err := idx.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(a.Dims) != 1 {
		return nil, fmt.Errorf("%s: shape %v, want a vector of labels", path, a.Dims)
	}
	y := make([]int, len(a.Data))
	for i, v := range a.Data {
		if v >= DigitsClasses {
			return nil, fmt.Errorf("%s: label %d of item %d is not a digit", path, v, i)
		}
		y[i] = int(v)
	}
	return y, nil
}

func uspsLabels(path string) ([]int, error) {
	s, err := svmlight.ReadFile(path, svmlight.Options{IndexBase: 1})
	if err != nil {
		return nil, err
	}
	y := make([]int, s.Rows)
	for i, l := range s.Labels {
		if l != float64(int(l)) || l < 1 || l > DigitsClasses {
			return nil, fmt.Errorf("%s: row %d has label %v, want 1..10", path, i+1, l)
		}
		y[i] = int(l) - 1
	}
	return y, nil
}

func listLabels(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, y, err := pnglist.ReadLabels(f, path)
	return y, err
}
