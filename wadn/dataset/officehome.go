package dataset

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/data/fetch"
	"github.com/wadn-go/wadn/wadn/nets"
)

// OfficeHome is Office-Home as pre-extracted ResNet-50 features, read from a
// data directory; its real features are not distributed here.
var OfficeHome = &Dataset{
	Name:      "office-home",
	Aliases:   []string{"officehome"},
	Summary:   "Office-Home as ResNet-50 features, 2048-d, 65 classes (office_home/office_home_<domain>.npz; not distributed here)",
	Domains:   []string{"art", "clipart", "product", "real_world"},
	Loaded:    []string{"art", "clipart", "product", "real_world"},
	Classes:   data.OfficeHomeClasses,
	Scenarios: data.Scenarios,
	Schedule:  Schedule{Epochs: 100, Batch: 32, LR: 1.0},
	Sizes: map[string][]data.Edition{
		"art":        {{Train: 2427}},
		"clipart":    {{Train: 4365}},
		"product":    {{Train: 4439}},
		"real_world": {{Train: 4357}},
	},
	Lister: data.OfficeHomeLister,
	Downloads: []fetch.Dataset{{
		Name: "office_home",
		Note: "No public source of Office-Home ResNet-50 features in this layout (office_home/office_home_<domain>.npz, " +
			"x float32 N x 2048, y int64) with a checksum could be established. scikit-adaptation publishes a CSV of " +
			"ResNet-50 features with a SHA-256 (OfficeHomeResnet50.csv), in another layout and from another " +
			"extraction than the WADN authors'; it is not fetched. Extract the features yourself into the layout above.",
	}},
	Published: map[string]map[string]map[string]float64{
		"uda":     {"wadn": {"art": 73.78, "clipart": 70.18, "product": 86.32, "real_world": 87.28}},
		"partial": {"wadn": {"art": 80.06, "clipart": 75.90, "product": 89.55, "real_world": 90.40}},
	},
	PublishedAverage: map[string]map[string]float64{
		"uda":     {"darn": 76.54, "wadn": 79.39},
		"partial": {"pada": 78.28, "darn": 77.12, "wadn": 83.98},
	},
	// The authors' Office-Home code ends its critics in a sigmoid.
	MethodDefaults: []MethodDefault{{Method: "wadn", Scenarios: data.Scenarios, Set: map[string]string{"critic-sigmoid": "true"}}},
	PaperProtocol:  data.OfficeHomeProtocol,
	NewSettings:    func() Settings { return &OfficeHomeSettings{Draw: DrawOf(data.OfficeHomeProtocol(data.Partial))} },
}

// OfficeHomeSettings are the settings of the Office-Home features.
type OfficeHomeSettings struct {
	Draw
}

// Network returns the Office-Home head.
func (s *OfficeHomeSettings) Network() (nets.Network, error) { return nets.OfficeHome{}, nil }

// Load loads the named Office-Home domains from dir (nil: the four).
func (s *OfficeHomeSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	if len(names) == 0 {
		names = OfficeHome.Loaded
	}
	var out []data.Domain
	for _, n := range names {
		d, err := data.LoadOfficeHomeWith(dir, n, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
