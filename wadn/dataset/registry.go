package dataset

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/data/fetch"
)

// Catalog lists what the data directory dir ("": none) and the binary hold
// of every data set, with the size and class histogram of every split
// (package data's Catalog over the data sets' listers).
func Catalog(dir string, progress func(string)) ([]data.Entry, error) {
	ls := make([]data.Lister, len(All))
	for i, d := range All {
		ls[i] = d.Lister
	}
	return data.Catalog(dir, ls, progress)
}

// Sought returns the paths, relative to a data directory, at which Catalog
// looks for the data sets' files.
func Sought() []string {
	var out []string
	for _, d := range All {
		out = append(out, d.Lister.Sought...)
	}
	return out
}

// Downloads returns every source "wadn data get" knows, data set after data
// set.
func Downloads() []fetch.Dataset {
	var out []fetch.Dataset
	for _, d := range All {
		out = append(out, d.Downloads...)
	}
	return out
}

// Download returns the source called name.
func Download(name string) (fetch.Dataset, bool) {
	for _, f := range Downloads() {
		if f.Name == name {
			return f, true
		}
	}
	return fetch.Dataset{}, false
}

// Checksums returns the published SHA-256 of every file the data sets'
// downloads name, by path relative to a data directory.
func Checksums() map[string]string {
	out := map[string]string{}
	for _, d := range Downloads() {
		for _, f := range d.Files {
			if f.SHA256 != "" {
				out[f.Path] = f.SHA256
			}
		}
	}
	return out
}
