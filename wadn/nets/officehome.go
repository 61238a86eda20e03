package nets

import (
	"math/rand/v2"

	"github.com/wadn-go/wadn/nn"
)

// Sizes of the Office-Home network.
const (
	OfficeHomeInputs  = 2048 // ResNet-50 features
	OfficeHomeClasses = 65
)

// OfficeHome is the network of the Office-Home features: on the ResNet-50
// features of the images, the head of the paper's appendix, [2048, 256] BN
// LeakyReLU [256, 256] BN LeakyReLU [256, classes], whose first two blocks
// are the trainable extractor and whose last layer is the classifier.
type OfficeHome struct{}

// NewExtractor returns the head's first two blocks.
func (OfficeHome) NewExtractor(rng *rand.Rand) Extractor {
	m := nn.NewSequential[float32](
		nn.NewLinear[float32](OfficeHomeInputs, 256, true, rng), nn.NewBatchNorm1d[float32](256), nn.LeakyReLU[float32]{Slope: 0.01},
		nn.NewLinear[float32](256, 256, true, rng), nn.NewBatchNorm1d[float32](256), nn.LeakyReLU[float32]{Slope: 0.01})
	return &dense{m: m, dim: 256}
}

// NewClassifier returns the head's last layer, Linear 256 -> classes.
func (OfficeHome) NewClassifier(classes int, rng *rand.Rand) nn.Module[float32] {
	return nn.NewLinear[float32](256, classes, true, rng)
}

// NewHead returns [256, 256] LeakyReLU [256, out]. (The code's critics
// end in a sigmoid, which WADN adds there: its critic-sigmoid setting.)
func (OfficeHome) NewHead(out int, rng *rand.Rand) nn.Module[float32] {
	return nn.NewSequential[float32](nn.NewLinear[float32](256, 256, true, rng), nn.LeakyReLU[float32]{Slope: 0.01},
		nn.NewLinear[float32](256, out, true, rng))
}
