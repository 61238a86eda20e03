package experiment

import "github.com/wadn-go/wadn/wadn/dataset"

// The paper's figures are declared with each data set (dataset.Dataset's
// Published and PublishedAverage); these read them by name, as the rows of
// a report name their data set.

// publishedFigures returns the paper's per-target accuracies of a scenario
// on the data set called name, by method; nil when there are none.
func publishedFigures(scenario, name string) map[string]map[string]float64 {
	ds, err := dataset.Lookup(name)
	if err != nil {
		return nil
	}
	return ds.Published[scenario]
}

// published returns the paper's accuracy of a method on a target.
func published(scenario, name, method, target string) (float64, bool) {
	v, ok := publishedFigures(scenario, name)[method][target]
	return v, ok
}

// publishedAverage returns the paper's printed average of a method.
func publishedAverage(scenario, name, method string) (float64, bool) {
	ds, err := dataset.Lookup(name)
	if err != nil {
		return 0, false
	}
	v, ok := ds.PublishedAverage[scenario][method]
	return v, ok
}

// paperAverage returns the paper's average of a method over the targets:
// the printed one where the paper prints it, otherwise the mean of the
// per-target numbers when the paper gives all of them (ok false when it
// gives none).
func paperAverage(scenario, name, method string) (float64, bool) {
	if v, ok := publishedAverage(scenario, name, method); ok {
		return v, true
	}
	per := publishedFigures(scenario, name)[method]
	if len(per) == 0 {
		return 0, false
	}
	var s float64
	for _, v := range per {
		s += v
	}
	return s / float64(len(per)), true
}

// coversPaper reports whether targets hold every target of the paper's
// table for a scenario and data set: those it gives a number for, for any
// method (for the baselines of a table with averages alone, WADN's
// targets). It is false where the paper gives no per-target number.
func coversPaper(scenario, name string, targets map[string]bool) bool {
	n := 0
	for _, per := range publishedFigures(scenario, name) {
		for t := range per {
			if !targets[t] {
				return false
			}
			n++
		}
	}
	return n > 0
}
