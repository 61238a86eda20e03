package experiment

// Published accuracies (%) of the paper, by scenario, data set, method and
// target, for the report's comparison column.
var Published = map[string]map[string]map[string]map[string]float64{
	"uda": {
		"amazon": {
			"source": {"books": 68.15, "dvd": 69.51, "electronics": 82.09, "kitchen": 75.30},
			"dann":   {"books": 65.59, "dvd": 67.23, "electronics": 80.49, "kitchen": 74.71},
			"mdan":   {"books": 68.77, "dvd": 67.81, "electronics": 80.96, "kitchen": 75.67},
			"mdmn":   {"books": 70.56, "dvd": 69.64, "electronics": 82.71, "kitchen": 77.05},
			"m3sda":  {"books": 69.09, "dvd": 68.67, "electronics": 81.34, "kitchen": 76.10},
			"darn":   {"books": 71.21, "dvd": 68.68, "electronics": 81.51, "kitchen": 77.71},
			"wadn":   {"books": 73.72, "dvd": 79.64, "electronics": 84.64, "kitchen": 83.73},
		},
		"digits": {
			"source": {"mnist": 84.93, "svhn": 67.14, "synth": 78.11, "usps": 86.02},
			"dann":   {"mnist": 86.99, "svhn": 69.56, "synth": 78.73, "usps": 86.81},
			"mdan":   {"mnist": 87.86, "svhn": 69.13, "synth": 79.77, "usps": 86.50},
			"mdmn":   {"mnist": 87.31, "svhn": 69.84, "synth": 80.27, "usps": 86.61},
			"m3sda":  {"mnist": 87.22, "svhn": 68.89, "synth": 80.01, "usps": 86.39},
			"darn":   {"mnist": 86.98, "svhn": 68.59, "synth": 80.68, "usps": 86.85},
			"wadn":   {"mnist": 89.07, "svhn": 71.66, "synth": 82.06, "usps": 90.07},
		},
		"office-home": {
			"wadn": {"art": 73.78, "clipart": 70.18, "product": 86.32, "real": 87.28},
		},
	},
	"limited": {
		"amazon": {"wadn": {"books": 74.83, "dvd": 75.05, "electronics": 84.23, "kitchen": 81.53}},
		"digits": {"wadn": {"mnist": 88.32, "svhn": 70.64, "synth": 81.53, "usps": 90.53}},
	},
	"partial": {
		"office-home": {"wadn": {"art": 80.06, "clipart": 75.90, "product": 89.55, "real": 90.40}},
	},
}

// PublishedAverage holds the paper's printed averages over the targets, by
// scenario, data set and method; for the baselines of the limited-label and
// Office-Home tables they are the only numbers it gives.
var PublishedAverage = map[string]map[string]map[string]float64{
	"limited": {
		"amazon": {"source": 76.06, "dann": 71.50, "mdan": 72.71, "mdmn": 74.57, "m3sda": 72.36,
			"darn": 73.76, "rlus": 75.54, "mme": 74.14, "wadn": 78.91},
		"digits": {"source": 73.01, "dann": 80.32, "mdan": 80.30, "mdmn": 78.35, "m3sda": 79.54,
			"darn": 80.68, "rlus": 81.08, "mme": 80.16, "wadn": 82.75},
	},
	"uda": {
		"amazon": {"source": 73.81, "dann": 72.00, "mdan": 73.30, "mdmn": 74.99, "m3sda": 73.79,
			"darn": 74.78, "wadn": 80.43},
		"digits": {"source": 79.05, "dann": 80.52, "mdan": 80.81, "mdmn": 81.00, "m3sda": 80.87,
			"darn": 80.78, "wadn": 83.22},
		"office-home": {"darn": 76.54, "wadn": 79.39},
	},
	"partial": {
		"office-home": {"pada": 78.28, "darn": 77.12, "wadn": 83.98},
	},
}

// paperAverage returns the paper's average of a method over the targets:
// the printed one when PublishedAverage has it, otherwise the mean of the
// per-target numbers when the paper gives all of them (ok false when it
// gives none).
func paperAverage(scenario, dataset, method string) (float64, bool) {
	if v, ok := PublishedAverage[scenario][dataset][method]; ok {
		return v, true
	}
	per := Published[scenario][dataset][method]
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
func coversPaper(scenario, dataset string, targets map[string]bool) bool {
	n := 0
	for _, per := range Published[scenario][dataset] {
		for t := range per {
			if !targets[t] {
				return false
			}
			n++
		}
	}
	return n > 0
}
