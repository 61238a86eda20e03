package experiment

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Bounds on the sizes of a network a run may be given, checked before
// anything else of its settings: a size beyond them is a mistake, whatever
// the machine. (The epochs and the batches are bounded by the range tags of
// method.Train.)
const (
	MaxLayers = 64      // hidden layers of the MLP
	MaxWidth  = 1 << 20 // units of a hidden layer
)

// Memory is an estimate, made from a run's settings before anything is
// allocated, of the memory its training holds at its peak, in bytes, by
// part. It errs on the large side: a run it admits fits, and one that
// fits by a narrow margin may be refused.
type Memory struct {
	Parts []MemoryPart
}

// MemoryPart is one part of a run's memory and the settings that size it.
type MemoryPart struct {
	Name     string
	Bytes    float64
	Settings []string
}

// Total returns the bytes of every part.
func (m Memory) Total() float64 {
	t := 0.0
	for _, p := range m.Parts {
		t += p.Bytes
	}
	return t
}

// Largest returns the largest part.
func (m Memory) Largest() MemoryPart {
	var big MemoryPart
	for _, p := range m.Parts {
		if p.Bytes > big.Bytes {
			big = p
		}
	}
	return big
}

// The estimate's factors: every trained value has its gradient, the
// optimiser's state (Adadelta's two accumulators, Adam's two moments) and
// a moving average beside it; every activation of a step its gradient and
// a mask or temporary; a process its runtime and buffers.
const (
	copiesPerParam      = 5
	copiesPerActivation = 3
	baseBytes           = 200 << 20
	floatBytes          = 4
)

// netShape is what the estimate reads of a network: the trained values of
// its extractor, of its classifier and of one head of one output (a critic
// or domain network: a method has at most one per source), and the
// activations of one sample through the extractor and a head, counted in
// float32 values; inputs are the values of a sample as the data hold it.
type netShape struct {
	extractor, classifier, head float64
	activations                 float64
	inputs                      float64
	settings                    []string // the settings that size the network
}

// Memory returns the estimate of s's memory. It reads s's settings only;
// a network it does not know (none of package nets') is counted at no
// size.
func (s *Spec) Memory() (Memory, error) {
	net, err := s.Data.Network()
	if err != nil {
		return Memory{}, err
	}
	sh := shapeOf(net, s.Dataset.Classes)
	domains := len(s.Sources) + 1
	if s.Sources == nil {
		domains = len(s.Dataset.Loaded)
	}
	rows := 0.0
	for _, d := range s.Dataset.Loaded {
		for _, e := range s.Dataset.Sizes[d] {
			rows = max(rows, float64(e.Train+e.Test)) // the largest edition
		}
	}
	rows *= float64(len(s.Dataset.Loaded))
	params := sh.extractor + sh.classifier + float64(domains)*sh.head
	batch := float64(s.Train.Batch) * float64(domains)
	return Memory{Parts: []MemoryPart{
		{"the trained values (" + strconv.FormatFloat(params, 'g', 3, 64) + ")", params * floatBytes * copiesPerParam, sh.settings},
		{"the activations of a step", batch * sh.activations * floatBytes * copiesPerActivation, append([]string{"batch"}, sh.settings...)},
		{"the activations of an evaluation batch", float64(s.Train.EvalBatch) * sh.activations * floatBytes, append([]string{"eval-batch"}, sh.settings...)},
		{"the data", rows * sh.inputs * floatBytes, nil},
		{"the process", baseBytes, nil},
	}}, nil
}

// shapeOf returns the shape of net with classes outputs.
func shapeOf(net nets.Network, classes int) netShape {
	switch n := net.(type) {
	case *nets.Amazon:
		// Sparse inputs: about 200 stored words a review, each an index
		// and a value.
		return mlpShape(nets.AmazonInputs, 400, n, classes)
	case *nets.MLP:
		return mlpShape(n.Inputs, float64(n.Inputs), &n.Amazon, classes)
	case nets.Digits:
		return digitsShape(classes)
	case nets.OfficeHome:
		return netShape{
			extractor:  nets.OfficeHomeInputs*256 + 256 + 256*256 + 256 + 4*256,
			classifier: 256*float64(classes) + float64(classes),
			head:       256*256 + 256 + 256 + 1, activations: nets.OfficeHomeInputs + 8*256, inputs: nets.OfficeHomeInputs,
		}
	}
	return netShape{}
}

// mlpShape is the shape of the MLP of a with inputs features (stored as
// stored values a sample).
func mlpShape(inputs int, stored float64, a *nets.Amazon, classes int) netShape {
	sh := netShape{inputs: stored, activations: float64(inputs), settings: []string{"hidden"}}
	if a.Depth != len(a.Hidden) {
		sh.settings = append(sh.settings, "depth")
	}
	layers := func(sizes []int) (values, units float64) {
		for i := 1; i < len(sizes); i++ {
			values += float64(sizes[i-1])*float64(sizes[i]) + float64(sizes[i])
			units += 2 * float64(sizes[i]) // the layer's output and its activation's
		}
		return values, units
	}
	var units float64
	sh.extractor, units = layers(append([]int{inputs}, a.Hidden[:a.Depth]...))
	sh.activations += units
	head := a.Hidden[a.Depth-1:]
	sh.classifier, units = layers(append(append([]int{}, head...), classes))
	sh.activations += units
	sh.head, _ = layers(append(append([]int{}, head...), 1))
	return sh
}

// digits caches the Digits CNN's extractor: its values and activations.
var digits struct {
	once          sync.Once
	values, units float64
}

// digitsShape is the shape of the Digits CNN, whose extractor is fixed:
// its values and activations are counted once, on one image.
func digitsShape(classes int) netShape {
	digits.once.Do(func() {
		seq := nets.NewDigitsExtractor(nn.NewRand(0))
		for _, p := range seq.Params() {
			digits.values += float64(p.Tensor.Len())
		}
		h := autodiff.New(make([]float32, 3*32*32), 1, 3, 32, 32)
		for _, l := range seq.Layers {
			h = l.Forward(h)
			digits.units += 3 * float64(h.Len()) // with the convolutions' unfolded inputs
		}
		h.Release()
	})
	f := float64(nets.DigitsFeatures)
	return netShape{
		extractor: digits.values, classifier: f*512 + 512 + 512*100 + 100 + 100*float64(classes) + float64(classes),
		head: f*256 + 256 + 256 + 1, activations: 3*32*32 + digits.units + 512 + 100 + 256, inputs: 3 * 32 * 32,
	}
}

// checkSizes refuses a size beyond the bounds, naming the setting. It
// runs before the network's own checks, so that a size is named before
// what depends on it (depth, which counts the hidden layers).
func (s *Spec) checkSizes() error {
	if err := s.Train.Validate(); err != nil { // epochs and batches, by their range tags
		return err
	}
	if f, ok := s.setting("hidden"); ok && f.IsList() {
		hs, _ := f.Value().([]int)
		if len(hs) > MaxLayers {
			return fmt.Errorf("hidden: %d layers, at most %d", len(hs), MaxLayers)
		}
		for _, h := range hs {
			if h > MaxWidth {
				return fmt.Errorf("hidden %d: a layer of at most %d units", h, MaxWidth)
			}
		}
	}
	return nil
}

// checkMemory refuses a run whose estimate exceeds limit bytes, naming
// the largest part and its settings.
func checkMemory(m Memory, limit float64, of string) error {
	if m.Total() <= limit {
		return nil
	}
	big := m.Largest()
	why := big.Name
	if len(big.Settings) > 0 {
		why += ", sized by " + strings.Join(big.Settings, " and ")
	}
	return fmt.Errorf("the run needs about %s of memory, more than %s: %s, %s, are most of it", bytesText(m.Total()), of, why, bytesText(big.Bytes))
}

// bytesText writes a byte count in binary units.
func bytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == len(units)-1 && b >= 1024 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// FallbackMemory is what MachineMemory takes a machine to hold when it
// cannot tell: 16 GiB.
const FallbackMemory = 16 << 30

// MachineMemory returns the memory the machine holds, in bytes, and where
// that figure comes from: MemTotal of /proc/meminfo where the system has
// it, FallbackMemory elsewhere.
var MachineMemory = sync.OnceValues(func() (float64, string) {
	if kb, ok := memTotal("/proc/meminfo"); ok {
		return kb * 1024, "this machine's " + bytesText(kb*1024) + " (MemTotal of /proc/meminfo)"
	}
	return FallbackMemory, "the " + bytesText(FallbackMemory) + " taken for a machine that does not say what it holds"
})

// memTotal reads MemTotal, in kB, from a file laid out as /proc/meminfo.
func memTotal(path string) (float64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
		return kb, err == nil && kb > 0 && !math.IsInf(kb, 0)
	}
	return 0, false
}
