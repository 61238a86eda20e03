package method

import (
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Model is the network every method trains and evaluates: a feature
// extractor g shared by every domain and a classifier h on its features. A
// method may replace the classifier in its Setup (MME's cosine head).
type Model struct {
	Extractor  nets.Extractor
	Classifier nn.Module[float32]
}

// Features returns g applied to the given rows of each split, one block of
// rows after another: [sum of len(rows[i]), feature width].
func (m *Model) Features(splits []*data.Split, rows [][]int) *autodiff.Tensor[float32] {
	return m.Extractor.Features(splits, rows)
}

// SetTrain switches dropout and batch normalisation between modes.
func (m *Model) SetTrain(train bool) {
	m.Extractor.SetTrain(train)
	m.Classifier.SetTrain(train)
}

// Accuracy returns the percentage of s that the model classifies correctly,
// in evaluation mode, batch rows at a time.
func (m *Model) Accuracy(s *data.Split, batch int) float64 {
	n := s.Len()
	if n == 0 {
		return 0
	}
	correct := 0
	m.Logits(s, batch, func(r int, l []float32) {
		if Argmax(l) == s.Y[r] {
			correct++
		}
	})
	return 100 * float64(correct) / float64(n)
}

// Logits calls f(row, the row's logits) for every sample of s, in
// evaluation mode, batch rows at a time; f must not keep the slice.
func (m *Model) Logits(s *data.Split, batch int, f func(row int, logits []float32)) {
	m.SetTrain(false)
	defer m.SetTrain(true)
	EachBatch(s.Len(), batch, func(rows []int) *autodiff.Tensor[float32] {
		return m.Classifier.Forward(m.Features([]*data.Split{s}, [][]int{rows}))
	}, f)
}

// EachBatch runs out on the rows [0, n) in blocks of batch and calls
// f(row, that row of the result) for every row, releasing each block's graph
// before the next.
func EachBatch(n, batch int, out func(rows []int) *autodiff.Tensor[float32], f func(row int, values []float32)) {
	rows := make([]int, 0, batch)
	for lo := 0; lo < n; lo += batch {
		rows = rows[:0]
		for r := lo; r < min(lo+batch, n); r++ {
			rows = append(rows, r)
		}
		o := out(rows)
		k := o.Shape()[1]
		d := o.Data()
		for j, r := range rows {
			f(r, d[j*k:(j+1)*k])
		}
		o.Release()
	}
}
