package nets

import (
	"regexp"
	"strings"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

// PyTorch's layout. The parameter names of a run's checkpoint are PyTorch's
// state_dict names already (nn.Sequential numbers its layers, nn.Prefix joins
// with dots), and every layer of package nn stores its tensors as torch.nn
// does (Linear [Out, In], Conv2d [Out, In, K, K], BatchNorm1d running_mean
// and running_var) except SparseLinear, whose weight is [In, Out] so that a
// sparse row meets contiguous rows of it. ToTorch and FromTorch transpose
// that one weight.
//
// In a checkpoint of these networks the only SparseLinear is the first
// layer of the Amazon extractor (SparseExtractor, saved under the prefix
// "extractor"): "extractor.0.weight" of rank 2 in a checkpoint with no other
// numbered extractor layer ("extractor.1.weight" and so on; the dense layers
// after it are "extractor.post.*"). The dense first layers of the other
// extractors are told apart by that rule: Digits' convolution has rank 4 and
// Office-Home's Linear is followed by "extractor.1.*", its batch
// normalisation.

// SparseWeightName is the name of the Amazon extractor's SparseLinear
// weight in a checkpoint.
const SparseWeightName = "extractor.0.weight"

// AveragePrefix begins the names of the buffers that hold a moving average
// of a run's parameters: the average of "extractor.0.weight" is
// "average.extractor.0.weight", in the parameter's layout.
const AveragePrefix = "average."

// IsAverage tells whether a checkpoint's tensor name is the average of a
// parameter, and returns that parameter's name.
func IsAverage(name string) (string, bool) {
	return strings.CutPrefix(name, AveragePrefix)
}

var numberedExtractor = regexp.MustCompile(`^extractor\.[0-9]+\.`)

// SparseWeights returns the names of the tensors of ts stored in
// SparseLinear's [In, Out] layout (see the rule above): SparseWeightName and
// its average when the checkpoint holds one, or nothing.
func SparseWeights(ts []checkpoint.Tensor) []string {
	found, averaged := false, false
	for _, t := range ts {
		switch {
		case t.Name == SparseWeightName:
			found = len(t.Shape) == 2
		case t.Name == AveragePrefix+SparseWeightName:
			averaged = len(t.Shape) == 2
		case t.Name == "extractor.0.bias":
		case numberedExtractor.MatchString(t.Name):
			return nil
		}
	}
	switch {
	case found && averaged:
		return []string{SparseWeightName, AveragePrefix + SparseWeightName}
	case found:
		return []string{SparseWeightName}
	}
	return nil
}

// ToTorch returns ts in PyTorch's layout: the SparseLinear weights
// transposed to [Out, In]. The other tensors are shared with ts.
func ToTorch(ts []checkpoint.Tensor) []checkpoint.Tensor {
	return transposeNamed(ts, SparseWeights(ts))
}

// FromTorch is the inverse of ToTorch: it returns tensors in PyTorch's
// layout (torch's names and shapes) in the layout of this package.
func FromTorch(ts []checkpoint.Tensor) []checkpoint.Tensor {
	return transposeNamed(ts, SparseWeights(ts))
}

// transposeNamed returns ts with the 2-d tensors named in names transposed.
func transposeNamed(ts []checkpoint.Tensor, names []string) []checkpoint.Tensor {
	out := append([]checkpoint.Tensor(nil), ts...)
	for i, t := range out {
		for _, n := range names {
			if t.Name == n {
				out[i] = transpose2(t)
			}
		}
	}
	return out
}

func transpose2(t checkpoint.Tensor) checkpoint.Tensor {
	r, c := t.Shape[0], t.Shape[1]
	out := checkpoint.Tensor{Name: t.Name, Shape: []int{c, r}}
	if t.F64 != nil {
		out.F64 = transposeData(t.F64, r, c)
	} else {
		out.F32 = transposeData(t.F32, r, c)
	}
	return out
}

func transposeData[T float32 | float64](v []T, r, c int) []T {
	out := make([]T, len(v))
	for i := range r {
		for j := range c {
			out[j*r+i] = v[i*c+j]
		}
	}
	return out
}
