package dataset

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/data/fetch"
	"github.com/wadn-go/wadn/wadn/nets"
)

// OfficeCaltech is Office-Caltech10 (Gong et al., CVPR 2012), the GFK
// release: the ten classes shared by Caltech-256 and the Office domains,
// 800-bin SURF histograms, embedded in the binary. Its label distributions
// differ by nature (dslr has 8 to 24 images a class, caltech 85 to 151), so
// no rows are dropped.
var OfficeCaltech = &Dataset{
	Name:      "office-caltech",
	Aliases:   []string{"officecaltech", "office-caltech10"},
	Summary:   "Office-Caltech10: 800-bin SURF histograms, 10 classes (embedded)",
	Domains:   []string{"amazon", "webcam", "dslr", "caltech"},
	Loaded:    []string{"amazon", "webcam", "dslr", "caltech"},
	Classes:   data.OfficeCaltechClasses,
	Target:    "dslr",
	Embedded:  true,
	Scenarios: data.Scenarios,
	// The authors' code trains pre-extracted features (its Office-Home
	// path) as it trains the Amazon reviews: Adadelta at 0.5, batches of
	// 20 per domain, 50 epochs (docs/office-caltech.md).
	Schedule: Schedule{Epochs: 50, Batch: 20, LR: 0.5},
	Sizes: map[string][]data.Edition{
		"amazon":  {{Train: 958}},
		"webcam":  {{Train: 295}},
		"dslr":    {{Train: 157}},
		"caltech": {{Train: 1123}},
	},
	Lister:    data.OfficeCaltechLister,
	Downloads: []fetch.Dataset{officeCaltechDownload()},
	// WADN takes the authors' code's forms on its MLP, as on the Amazon
	// reviews: the same network class and training path (WarnMLP).
	MethodDefaults: codeMLPDefaults,
	// One epoch on 100 rows drawn per domain (about ten a class, so that a
	// tenth of every class is labelled with limited labels), batches of 10.
	Golden:        &Golden{Target: "dslr", Set: map[string]string{"epochs": "1", "train-size": "100", "batch": "10", "eval-batch": "50"}},
	PaperProtocol: data.OfficeCaltechProtocol,
	NewSettings: func() Settings {
		return &OfficeCaltechSettings{Draw: DrawOf(data.OfficeCaltechProtocol(data.Partial)), Amazon: nets.DefaultAmazon()}
	},
}

// OfficeCaltechSettings are the settings of Office-Caltech10: the draw and
// the MLP's layout, that of the Amazon network (the authors' code builds
// both with WarnMLP).
type OfficeCaltechSettings struct {
	Draw
	nets.Amazon
}

// Network returns the MLP on the 800 features.
func (s *OfficeCaltechSettings) Network() (nets.Network, error) {
	if err := s.Amazon.Validate(); err != nil {
		return nil, err
	}
	return &nets.MLP{Amazon: s.Amazon, Inputs: data.OfficeCaltechFeatures}, nil
}

// Load loads the named domains (nil: the four) from dir, or from the copy
// embedded in the binary when dir is "". Each is preprocessed as the
// release advises (data.OfficeCaltechPreprocess).
func (s *OfficeCaltechSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	return data.LoadOfficeCaltech(dir, names, opt)
}

// transferRev is the commit of jindongwang/transferlearning whose
// code/BDA/data folder holds the GFK release's MAT-files.
const transferRev = "73cb050b7e8b969b9d0ebb04a9377aa033043eb2"

func officeCaltechDownload() fetch.Dataset {
	var files []fetch.File
	for _, d := range data.OfficeCaltechDomains {
		name := data.OfficeCaltechFile(d)
		files = append(files, fetch.File{
			Path:   data.OfficeCaltechDir + "/" + name,
			URLs:   []string{"https://raw.githubusercontent.com/jindongwang/transferlearning/" + transferRev + "/code/BDA/data/" + name},
			SHA256: data.OfficeCaltechSum(d),
			Source: "SHA-256 of the GFK release's file as CORAL's source and jindongwang/transferlearning redistribute it, the same as the copy embedded in the binary",
		})
	}
	return fetch.Dataset{
		Name:  "office_caltech",
		Files: files,
		Note: "Office-Caltech10 of Gong et al. (CVPR 2012), the GFK release's SURF histograms, from a public repository " +
			"that redistributes them. The binary embeds the same four files: runs need no download.",
	}
}
