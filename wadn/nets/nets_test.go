package nets

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
)

// TestShapesAndNames builds every network and checks the widths of what
// its modules give and the names of its parameters, which checkpoints and
// exports rely on.
func TestShapesAndNames(t *testing.T) {
	rng := nn.NewRand(2)
	images := &data.Split{Dense: &data.Dense{N: 2, Shape: []int{3, 32, 32}, Pix: make([]uint8, 2*3*32*32), Scale: 1}, Y: []int{0, 1}, NumClasses: 10}
	reviews := &data.Split{Sparse: &data.CSR{Rows: 2, Cols: AmazonInputs, RowPtr: []int{0, 2, 3}, ColIdx: []int32{3, 4999, 7}, Val: []float32{1, 2, 1}},
		Y: []int{0, 1}, NumClasses: 2}
	features := &data.Split{Dense: &data.Dense{N: 2, Shape: []int{OfficeHomeInputs}, X: make([]float32, 2*OfficeHomeInputs)}, Y: []int{0, 1}, NumClasses: 65}
	histograms := &data.Split{Dense: &data.Dense{N: 2, Shape: []int{800}, X: make([]float32, 2*800)}, Y: []int{0, 1}, NumClasses: 10}
	amazon := DefaultAmazon()
	paper := DefaultAmazon()
	paper.Depth = 1
	mlp := &MLP{Amazon: DefaultAmazon(), Inputs: 800}
	for _, tc := range []struct {
		name    string
		net     Network
		split   *data.Split
		classes int
		dim     int
		params  []string // the extractor's
		buffers int
	}{
		{"digits", Digits{}, images, 10, DigitsFeatures, []string{"0.weight", "0.bias", "3.weight", "3.bias", "6.weight", "6.bias"}, 0},
		{"amazon", &amazon, reviews, 2, 100, []string{"0.weight", "0.bias", "post.1.weight", "post.1.bias", "post.4.weight", "post.4.bias"}, 0},
		{"amazon depth 1", &paper, reviews, 2, AmazonFeatures, []string{"0.weight", "0.bias"}, 0},
		{"office-caltech", mlp, histograms, 10, 100, []string{"1.weight", "1.bias", "4.weight", "4.bias", "7.weight", "7.bias"}, 0},
		{"office-home", OfficeHome{}, features, 65, 256, []string{"0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias", "4.weight", "4.bias"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.net.NewExtractor(rng)
			e.SetRand(rand.New(rand.NewPCG(1, 1)))
			z := e.Features([]*data.Split{tc.split}, [][]int{{0, 1}})
			if sh := z.Shape(); !slices.Equal(sh, []int{2, tc.dim}) || e.Dim() != tc.dim {
				t.Fatalf("features of shape %v, Dim %d; want [2 %d]", sh, e.Dim(), tc.dim)
			}
			var names []string
			for _, p := range e.Params() {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tc.params) {
				t.Errorf("extractor parameters %v, want %v", names, tc.params)
			}
			if n := len(e.Buffers()); n != tc.buffers {
				t.Errorf("%d buffers, want %d", n, tc.buffers)
			}
			if sh := tc.net.NewClassifier(tc.classes, rng).Forward(z).Shape(); !slices.Equal(sh, []int{2, tc.classes}) {
				t.Errorf("logits of shape %v", sh)
			}
			for _, out := range []int{1, 4} {
				if sh := tc.net.NewHead(out, rng).Forward(z).Shape(); !slices.Equal(sh, []int{2, out}) {
					t.Errorf("head with %d outputs: output of shape %v", out, sh)
				}
			}
		})
	}
	if got := nn.NumParams(amazon.NewClassifier(2, rng).Params()); got != 100*2+2 {
		t.Errorf("the default Amazon classifier has %d parameters, want a linear 100 -> 2", got)
	}
	if got := nn.NumParams(paper.NewClassifier(2, rng).Params()); got != 1000*500+500+500*100+100+100*2+2 {
		t.Errorf("the paper's Amazon classifier has %d parameters", got)
	}
	if got := nn.NumParams(mlp.NewExtractor(rng).Params()); got != 800*1000+1000+1000*500+500+500*100+100 {
		t.Errorf("the Office-Caltech10 extractor has %d parameters, want 800 -> 1000 -> 500 -> 100", got)
	}
	head := OfficeHome{}.NewHead(1, rng)
	names := nn.NumParams(head.Params())
	squashed := Squash(head, nn.Sigmoid[float32]{})
	if n := nn.NumParams(squashed.Params()); n != names {
		t.Errorf("squashing changed the head's parameters: %d, want %d", n, names)
	}
	for _, v := range squashed.Forward(autodiff.Full[float32](3, 2, 256)).Data() {
		if v < 0 || v > 1 {
			t.Fatalf("a head squashed by a sigmoid gave %v, outside [0, 1]", v)
		}
	}
}

func TestAmazonValidate(t *testing.T) {
	for _, tc := range []struct {
		a  Amazon
		ok bool
	}{
		{DefaultAmazon(), true},
		{Amazon{Dropout: 1, Hidden: []int{4}, Depth: 1}, false},
		{Amazon{Dropout: 0, Hidden: nil, Depth: 1}, false},
		{Amazon{Dropout: 0, Hidden: []int{4, 0}, Depth: 1}, false},
		{Amazon{Dropout: 0, Hidden: []int{4, 2}, Depth: 3}, false},
		{Amazon{Dropout: 0, Hidden: []int{4, 2}, Depth: 0}, false},
	} {
		if err := tc.a.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate = %v", tc.a, err)
		}
	}
}

func TestSetDropoutRand(t *testing.T) {
	inner := nn.NewDropout[float32](0.5, nil)
	m := &nn.Sequential[float32]{Layers: []nn.Module[float32]{nn.NewLinear[float32](2, 2, true, nn.NewRand(1)), &nn.Sequential[float32]{Layers: []nn.Module[float32]{inner}}}}
	rng := rand.New(rand.NewPCG(3, 3))
	SetDropoutRand(m, rng)
	if inner.Rand != rng {
		t.Error("the nested dropout layer kept its generator")
	}
}
