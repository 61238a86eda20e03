package dataset

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/data/fetch"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Amazon is Blitzer et al.'s Amazon reviews in the 5000-feature
// bag-of-words form of Chen et al. (mSDA), embedded in the binary.
var Amazon = &Dataset{
	Name:      "amazon",
	Summary:   "Amazon reviews: 5000-d bag-of-words counts, 2 classes (embedded)",
	Domains:   []string{"books", "dvd", "electronics", "kitchen"},
	Loaded:    []string{"books", "dvd", "electronics", "kitchen"},
	Target:    "kitchen",
	Classes:   data.AmazonClasses,
	Embedded:  true,
	Scenarios: []data.Scenario{data.UDA, data.Limited}, // two classes: no partial target
	Schedule:  Schedule{Epochs: 50, Batch: 20, LR: 0.5},
	Sizes: map[string][]data.Edition{
		"books":       {{Train: 2000, Test: 4465}},
		"dvd":         {{Train: 2000, Test: 3586}},
		"electronics": {{Train: 2000, Test: 5681}},
		"kitchen":     {{Train: 2000, Test: 5945}},
	},
	Lister:    data.AmazonLister,
	Downloads: []fetch.Dataset{amazonDownload},
	Published: map[string]map[string]map[string]float64{
		"uda": {
			"source": {"books": 68.15, "dvd": 69.51, "electronics": 82.09, "kitchen": 75.30},
			"dann":   {"books": 65.59, "dvd": 67.23, "electronics": 80.49, "kitchen": 74.71},
			"mdan":   {"books": 68.77, "dvd": 67.81, "electronics": 80.96, "kitchen": 75.67},
			"mdmn":   {"books": 70.56, "dvd": 69.64, "electronics": 82.71, "kitchen": 77.05},
			"m3sda":  {"books": 69.09, "dvd": 68.67, "electronics": 81.34, "kitchen": 76.10},
			"darn":   {"books": 71.21, "dvd": 68.68, "electronics": 81.51, "kitchen": 77.71},
			"wadn":   {"books": 73.72, "dvd": 79.64, "electronics": 84.64, "kitchen": 83.73},
		},
		"limited": {"wadn": {"books": 74.83, "dvd": 75.05, "electronics": 84.23, "kitchen": 81.53}},
	},
	PublishedAverage: map[string]map[string]float64{
		"limited": {"source": 76.06, "dann": 71.50, "mdan": 72.71, "mdmn": 74.57, "m3sda": 72.36,
			"darn": 73.76, "rlus": 75.54, "mme": 74.14, "wadn": 78.91},
		"uda": {"source": 73.81, "dann": 72.00, "mdan": 73.30, "mdmn": 74.99, "m3sda": 73.79,
			"darn": 74.78, "wadn": 80.43},
	},
	MethodDefaults: codeMLPDefaults,
	// Two epochs of 400 reviews drawn per domain, the target tested on 200
	// others; on the paper's protocol for the longer check.
	Golden: &Golden{Set: map[string]string{"epochs": "2", "train-size": "400", "test-size": "200"},
		Full: map[string]string{"epochs": "2"}},
	PaperProtocol: data.AmazonProtocol,
	NewSettings: func() Settings {
		p := data.AmazonProtocol(data.UDA)
		return &AmazonSettings{Draw: DrawOf(p), Shift: ShiftOf(p), Amazon: nets.DefaultAmazon()}
	},
}

// codeMLPDefaults are WADN's settings where the authors' code departs from
// the paper's text on its MLP, WarnMLP, which trains the Amazon reviews and
// pre-extracted image features alike (docs/amazon.md): the norm weight 1
// and lambda from epoch 2, and without target labels its squared centroid
// term, class-normalised cross-entropy, C0 0.02 and alpha's average 0.8.
var codeMLPDefaults = []MethodDefault{
	{Method: "wadn", Set: map[string]string{"c1": "1", "lambda-start": "2"}},
	{Method: "wadn", Scenarios: []data.Scenario{data.UDA, data.Partial},
		Set: map[string]string{"explicit": "squared", "class-norm": "true", "c0": "0.02", "alpha-keep": "0.8"}},
}

// AmazonSettings are the settings of the Amazon reviews: the split, the
// label shift and the MLP's layout.
type AmazonSettings struct {
	Draw
	Shift
	nets.Amazon
}

// Apply sets the protocol's options that the draw and the shift choose.
func (s *AmazonSettings) Apply(p *data.Protocol) {
	s.Draw.Apply(p)
	s.Shift.Apply(p)
}

// Network returns the Amazon MLP.
func (s *AmazonSettings) Network() (nets.Network, error) {
	if err := s.Amazon.Validate(); err != nil {
		return nil, err
	}
	a := s.Amazon
	return &a, nil
}

// Load loads the four domains from dir, or the copy embedded in the binary
// when dir is "".
func (s *AmazonSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	return data.LoadAmazonWith(dir, opt)
}

// graal is the public repository of Ganin et al.'s domain-adversarial
// networks, whose data/ folder holds the Amazon svmlight files, at the
// commit whose files the SHA-256 sums below were computed from.
const graal = "GRAAL-Research/domain_adversarial_neural_network/74eec5e0ae06bd6614bce048abba492c16a633e3/data/"

var amazonDownload = fetch.Dataset{
	Name:  "amazon",
	Files: amazonFiles(),
	Note: "Blitzer et al.'s reviews as the mSDA 5000-feature counts, from the repository of Ganin et al. (BSD-style " +
		"licence). The formats/amazon.npz layout has no public source with a checksum here and is not fetched.",
}

func amazonFiles() []fetch.File {
	sums := []struct{ name, sum string }{
		{"books_train.svmlight", "317f9a2ec34b81de770b63a84d8c5cc2dc16bd0be6e079d2ff5b5bad5213ea19"},
		{"books_test.svmlight", "fe4605c7dcf0e0a9410fd2a32f247caaf9abb352cc6e4c3e0f400853163ad9c4"},
		{"dvd_train.svmlight", "95f602aa08bf6b55758f7b0b18df3882fe30acb11987ee60b6b4bb3c44cba733"},
		{"dvd_test.svmlight", "4fe1b1a15010f78d8d0c49fe362d35fd4677463a45f1ac02a9f410ae1e638060"},
		{"electronics_train.svmlight", "7d0061f03ff3827e4f8036b051b5e5828fddc0cd115aa5b212cd28d624dc14e4"},
		{"electronics_test.svmlight", "641783bc941839c3a111d3488a1b7e3bd820a61ec14a129e7429b47703aa961d"},
		{"kitchen_train.svmlight", "a70b5ebfe1413e0e16280360905f5c3b64389c435cd20c0165dc9d7f293b31b5"},
		{"kitchen_test.svmlight", "e1502b97a824eb12314be4447394fa736fecb781c0724e6529cd6733ac7ff6d8"},
	}
	sizes := map[string]int64{
		"books_train.svmlight": 1134070, "books_test.svmlight": 2426071,
		"dvd_train.svmlight": 1133356, "dvd_test.svmlight": 2039832,
		"electronics_train.svmlight": 872265, "electronics_test.svmlight": 2461224,
		"kitchen_train.svmlight": 771076, "kitchen_test.svmlight": 2280620,
	}
	var out []fetch.File
	for _, s := range sums {
		out = append(out, fetch.File{
			Path: "amazon/" + s.name,
			URLs: []string{
				"https://raw.githubusercontent.com/" + graal + s.name,
				"https://github.com/GRAAL-Research/domain_adversarial_neural_network/raw/master/data/" + s.name,
			},
			Size: sizes[s.name], SHA256: s.sum,
			Source: "SHA-256 of the file in the repository's commit 74eec5e (identical to the project's shared copy)",
		})
	}
	return out
}
