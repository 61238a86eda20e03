package experiment

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
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

// Memory returns the estimate of s's memory, from its settings and its
// network's Size.
func (s *Spec) Memory() (Memory, error) {
	net, err := s.Data.Network()
	if err != nil {
		return Memory{}, err
	}
	sh := net.Size(s.Dataset.Classes)
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
	params := sh.Extractor + sh.Classifier + float64(domains)*sh.Head
	batch := float64(s.Train.Batch) * float64(domains)
	return Memory{Parts: []MemoryPart{
		{"the trained values (" + strconv.FormatFloat(params, 'g', 3, 64) + ")", params * floatBytes * copiesPerParam, sh.Settings},
		{"the activations of a step", batch * sh.Activations * floatBytes * copiesPerActivation, append([]string{"batch"}, sh.Settings...)},
		{"the activations of an evaluation batch", float64(s.Train.EvalBatch) * sh.Activations * floatBytes, append([]string{"eval-batch"}, sh.Settings...)},
		{"the data", rows * sh.Inputs * floatBytes, nil},
		{"the process", baseBytes, nil},
	}}, nil
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
