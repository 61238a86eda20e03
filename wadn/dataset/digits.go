package dataset

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/data/fetch"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Digits are the digit domains: MNIST, USPS and MNIST-M read from a data
// directory, synthgen generated, SVHN and SynthDigits where a data directory
// holds them.
var Digits = &Dataset{
	Name:      "digits",
	Summary:   "3x32x32 images, 10 classes; synthgen generated, svhn and synth where the data directory holds them",
	Domains:   []string{"mnist", "usps", "mnist_m", "synthgen", "svhn", "synth"},
	Loaded:    []string{"mnist", "usps", "mnist_m", "synthgen"},
	Target:    "mnist",
	Classes:   data.DigitsClasses,
	Scenarios: data.Scenarios,
	// The authors' code's schedule; the evaluated weights are their
	// moving average, chosen on the sources' held-out rows
	// (docs/digits.md).
	Schedule: Schedule{Epochs: 50, Batch: 20, LR: 0.5, Average: 0.9995},
	Sizes: map[string][]data.Edition{
		"mnist": {{Train: 60000, Test: 10000}},
		"usps":  {{Train: 7291, Test: 2007}},
		"mnist_m": {
			{Train: 59001, Test: 9001, Note: "the public release"},
			{Train: 10000, Test: 2000, Note: "the first 10000 training and 2000 test images of the public release"},
		},
		"synthgen": {{Train: 9000, Test: 2000, Note: "generated"}},
		"svhn":     {{Train: 73257, Test: 26032}},
		"synth":    {{Train: 479400, Test: 9553}},
	},
	Lister:    data.DigitsLister,
	Downloads: digitsDownloads,
	Published: map[string]map[string]map[string]float64{
		"uda": {
			"source": {"mnist": 84.93, "svhn": 67.14, "synth": 78.11, "usps": 86.02},
			"dann":   {"mnist": 86.99, "svhn": 69.56, "synth": 78.73, "usps": 86.81},
			"mdan":   {"mnist": 87.86, "svhn": 69.13, "synth": 79.77, "usps": 86.50},
			"mdmn":   {"mnist": 87.31, "svhn": 69.84, "synth": 80.27, "usps": 86.61},
			"m3sda":  {"mnist": 87.22, "svhn": 68.89, "synth": 80.01, "usps": 86.39},
			"darn":   {"mnist": 86.98, "svhn": 68.59, "synth": 80.68, "usps": 86.85},
			"wadn":   {"mnist": 89.07, "svhn": 71.66, "synth": 82.06, "usps": 90.07},
		},
		"limited": {"wadn": {"mnist": 88.32, "svhn": 70.64, "synth": 81.53, "usps": 90.53}},
	},
	PublishedAverage: map[string]map[string]float64{
		"limited": {"source": 73.01, "dann": 80.32, "mdan": 80.30, "mdmn": 78.35, "m3sda": 79.54,
			"darn": 80.68, "rlus": 81.08, "mme": 80.16, "wadn": 82.75},
		"uda": {"source": 79.05, "dann": 80.52, "mdan": 80.81, "mdmn": 81.00, "m3sda": 80.87,
			"darn": 80.78, "wadn": 83.22},
	},
	MethodDefaults: []MethodDefault{
		// Without target labels WADN follows the authors' Digits code
		// (docs/digits.md): the squared centroid term on the classifier's
		// hidden layer, class-normalised cross-entropy, C0 0.02, alpha's
		// average 0.8, and lambda from epoch 7 on the centroid term's
		// distance alone.
		{Method: "wadn", Scenarios: []data.Scenario{data.UDA, data.Partial}, Set: map[string]string{
			"explicit": "squared", "class-norm": "true", "centroids": "hidden", "c0": "0.02", "alpha-keep": "0.8",
			"lambda-distance": "explicit", "lambda-start": "7"}},
		// The DARN code's weight of the moment term for the Digits CNN.
		{Method: "m3sda", Set: map[string]string{"m3sda-mu": "1e-7"}},
	},
	// A small task: 16 training and 16 test images per domain, batches of
	// 4, so that one epoch is a few steps.
	Golden: &Golden{Target: "usps", NeedsData: true,
		Set: map[string]string{"epochs": "1", "train-size": "16", "test-size": "16", "batch": "4", "eval-batch": "16"}},
	PaperProtocol: data.DigitsProtocol,
	NewSettings: func() Settings {
		p := data.DigitsProtocol(data.UDA)
		d := DrawOf(p)
		d.KeepClasses = 5 // of 10, as the paper keeps 35 of Office-Home's 65
		return &DigitsSettings{Draw: d, Shift: ShiftOf(p), Pixels: data.Raw}
	},
}

// DigitsSettings are the settings of the digit domains.
type DigitsSettings struct {
	Draw
	Shift
	Pixels data.PixelScale `setting:"pixels" help:"pixel values: raw (0-255, as the authors' code feeds them) or unit ([0, 1])"`
}

// Apply sets the protocol's options that the draw and the shift choose.
func (s *DigitsSettings) Apply(p *data.Protocol) {
	s.Draw.Apply(p)
	s.Shift.Apply(p)
}

// Network returns the Digits CNN.
func (s *DigitsSettings) Network() (nets.Network, error) { return nets.Digits{}, nil }

// Load loads the named digit domains from dir (nil: Digits.Loaded).
func (s *DigitsSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	if names == nil {
		names = Digits.Loaded
	}
	return data.LoadDigitDomains(dir, names, data.DigitsOptions{Scale: s.Pixels, LoadOptions: opt})
}

// synthRev is the commit of the domainadaptation/datasets repository whose
// Git LFS pointers give the SynthDigits files' SHA-256 and size.
const synthRev = "91ff02225a73db330883843bc41ee3aca59a19d9"

// digitsDownloads are the public sources of the digit domains.
var digitsDownloads = []fetch.Dataset{
	{
		Name:  "mnist",
		Files: mnistFiles(),
		Note:  "MNIST by LeCun, Cortes and Burges (CC BY-SA 3.0). The mirrors serve the original files.",
	}, {
		Name: "usps",
		Files: []fetch.File{
			{Path: "usps/usps.bz2", URLs: []string{"https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.bz2"},
				MD5: "ec16c51db3855ca6c91edd34d0e9b197", Source: "MD5 published by torchvision's USPS dataset class"},
			{Path: "usps/usps.t.bz2", URLs: []string{"https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.t.bz2"},
				MD5: "8ea070ee2aca1ac39742fdd1ef5ed118", Source: "MD5 published by torchvision's USPS dataset class"},
		},
		Note: "USPS in LIBSVM's layout (7291 + 2007 rows). No published SHA-256 could be established: the download " +
			"is checked against torchvision's MD5, which detects damage but is no defence against a forged file. " +
			"These are not the bytes of the shared copy, which was converted from usps.h5.",
	}, {
		Name: "mnist_m",
		Files: []fetch.File{
			{Path: "downloads/mnist_m.tar.gz", URLs: []string{"https://cornell.box.com/shared/static/jado7quprg6hzzdubvwzh9umr75damwi"},
				MD5: "859df31c91afe82e80e5012ba928f279", Source: "MD5 published by pytorch-adapt's MNISTM dataset class",
				Unpack: fetch.TarGz, Creates: []string{"mnist_m/mnist_m_train_labels.txt", "mnist_m/mnist_m_test_labels.txt"}},
		},
		Note: "MNIST-M (Ganin et al.), the public release of 59001 + 9001 images, unpacked into mnist_m/. The " +
			"authors' own link is a Google Drive page that cannot be fetched by a program; this mirror is a copy " +
			"by a third party. No published SHA-256 could be established: only pytorch-adapt's MD5.",
	}, {
		Name: "svhn",
		Files: []fetch.File{
			{Path: "svhn/train_32x32.mat", URLs: []string{"http://ufldl.stanford.edu/housenumbers/train_32x32.mat"},
				Size: 182040794, SHA256: "435e94d69a87fde4fd4d7f3dd208dfc32cb6ae8af2240d066de1df7508d083b8",
				Source: "TensorFlow Datasets' url_checksums/svhn_cropped.txt"},
			{Path: "svhn/test_32x32.mat", URLs: []string{"http://ufldl.stanford.edu/housenumbers/test_32x32.mat"},
				Size: 64275384, SHA256: "cdce80dfb2a2c4c6160906d0bd7c68ec5a99d7ca4831afa54f09182025b6a75b",
				Source: "TensorFlow Datasets' url_checksums/svhn_cropped.txt"},
		},
		Note: "SVHN cropped digits (Netzer et al.; non-commercial use), 73257 + 26032 images.",
	}, {
		Name: "synth",
		Files: []fetch.File{
			{Path: "synth/synth_train_32x32.mat",
				URLs: []string{"https://media.githubusercontent.com/media/domainadaptation/datasets/" + synthRev + "/synth/synth_train_32x32.mat"},
				Size: 895578032, SHA256: "e0e0924ecd0c0b5a55ed6485aaa7d39937af982397717b89a3d91777aca9433c",
				Source: "the Git LFS pointer of domainadaptation/datasets at commit 91ff022"},
			{Path: "synth/synth_test_32x32.mat",
				URLs: []string{"https://media.githubusercontent.com/media/domainadaptation/datasets/" + synthRev + "/synth/synth_test_32x32.mat"},
				Size: 17851156, SHA256: "6285fe9a1c6f27b379a47263907a37899b59ce86948fd343a5b904435cde5bcc",
				Source: "the Git LFS pointer of domainadaptation/datasets at commit 91ff022"},
		},
		Note: "SynthDigits (Ganin and Lempitsky; CC BY 4.0) in SVHN's layout. The authors' link is a Google Drive " +
			"page; this copy is a research group's Git LFS mirror, whose pointers publish the SHA-256.",
	}}

func mnistFiles() []fetch.File {
	files := []struct {
		name string
		size int64
		sum  string
	}{
		{"train-images-idx3-ubyte.gz", 9912422, "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"},
		{"train-labels-idx1-ubyte.gz", 28881, "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"},
		{"t10k-images-idx3-ubyte.gz", 1648877, "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"},
		{"t10k-labels-idx1-ubyte.gz", 4542, "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"},
	}
	var out []fetch.File
	for _, f := range files {
		out = append(out, fetch.File{
			Path: "mnist/" + f.name,
			URLs: []string{
				"https://storage.googleapis.com/cvdf-datasets/mnist/" + f.name,
				"https://ossci-datasets.s3.amazonaws.com/mnist/" + f.name,
				"http://yann.lecun.com/exdb/mnist/" + f.name,
			},
			Size: f.size, SHA256: f.sum,
			Source: "TensorFlow Datasets' url_checksums/mnist.txt (size and SHA-256 of the original gzip'd idx files)",
		})
	}
	return out
}
