package nets

import (
	"sync"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/nn"
)

// Size is a network's size counted from its layout, without building it,
// in float32 values: the trained values of its extractor, of a classifier
// and of one head of one output (NewHead(1)), and the activations of one
// sample through the extractor, the classifier and a head. Inputs are the
// values of a sample as the data hold it; Settings name the settings that
// size the network.
type Size struct {
	Extractor, Classifier, Head float64
	Activations                 float64
	Inputs                      float64
	Settings                    []string
}

// Size returns the size of the network with classes outputs: sparse
// inputs, about 200 stored words a review, each an index and a value.
func (a *Amazon) Size(classes int) Size { return mlpSize(AmazonInputs, 400, a, classes) }

// Size returns the size of the network with classes outputs.
func (m *MLP) Size(classes int) Size { return mlpSize(m.Inputs, float64(m.Inputs), &m.Amazon, classes) }

// Size returns the size of the network with classes outputs.
func (OfficeHome) Size(classes int) Size {
	return Size{
		Extractor:  OfficeHomeInputs*256 + 256 + 256*256 + 256 + 4*256,
		Classifier: 256*float64(classes) + float64(classes),
		Head:       256*256 + 256 + 256 + 1, Activations: OfficeHomeInputs + 8*256, Inputs: OfficeHomeInputs,
	}
}

// mlpSize is the size of the MLP of a on inputs features, stored as
// stored values a sample.
func mlpSize(inputs int, stored float64, a *Amazon, classes int) Size {
	sz := Size{Inputs: stored, Activations: float64(inputs), Settings: []string{"hidden"}}
	if a.Depth != len(a.Hidden) {
		sz.Settings = append(sz.Settings, "depth")
	}
	var units float64
	sz.Extractor, units = layerSizes(append([]int{inputs}, a.Hidden[:a.Depth]...))
	sz.Activations += units
	head := a.Hidden[a.Depth-1:]
	sz.Classifier, units = layerSizes(append(append([]int{}, head...), classes))
	sz.Activations += units
	sz.Head, _ = layerSizes(append(append([]int{}, head...), 1))
	return sz
}

// layerSizes returns the trained values of the linear layers of an MLP of
// the given widths and its activations (each layer's output and its
// activation's).
func layerSizes(widths []int) (values, units float64) {
	for i := 1; i < len(widths); i++ {
		values += float64(widths[i-1])*float64(widths[i]) + float64(widths[i])
		units += 2 * float64(widths[i])
	}
	return values, units
}

// digitsExtractor caches the Digits extractor's values and activations,
// counted once on one image.
var digitsExtractor struct {
	once          sync.Once
	values, units float64
}

// Size returns the size of the network with classes outputs; its fixed
// extractor is counted once, on one image.
func (Digits) Size(classes int) Size {
	e := &digitsExtractor
	e.once.Do(func() {
		seq := NewDigitsExtractor(nn.NewRand(0))
		for _, p := range seq.Params() {
			e.values += float64(p.Tensor.Len())
		}
		h := autodiff.New(make([]float32, 3*32*32), 1, 3, 32, 32)
		for _, l := range seq.Layers {
			h = l.Forward(h)
			e.units += 3 * float64(h.Len()) // with the convolutions' unfolded inputs
		}
		h.Release()
	})
	f := float64(DigitsFeatures)
	return Size{
		Extractor: e.values, Classifier: f*512 + 512 + 512*100 + 100 + 100*float64(classes) + float64(classes),
		Head: f*256 + 256 + 256 + 1, Activations: 3*32*32 + e.units + 512 + 100 + 256, Inputs: 3 * 32 * 32,
	}
}
