package data

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/wadn-go/wadn/data/idx"
	"github.com/wadn-go/wadn/data/mat"
	"github.com/wadn-go/wadn/data/pnglist"
	"github.com/wadn-go/wadn/data/svmlight"
	"github.com/wadn-go/wadn/data/synthgen"
)

// Digit domains are delivered as 3x32x32 images (CHW) with classes 0-9.
const (
	// DigitsClasses is the number of digit classes.
	DigitsClasses = 10
	// DigitSize is the height and width of every digit image.
	DigitSize = 32
	// DigitDim is the number of values per digit image, 3*32*32.
	DigitDim = 3 * DigitSize * DigitSize
)

// DigitsDomains lists the digit domains this package loads: the four of the
// WADN paper (mnist, usps, svhn, synth), MNIST-M, and the generated synthgen.
var DigitsDomains = []string{"mnist", "usps", "svhn", "synth", "mnist_m", "synthgen"}

// PixelScale selects the value range of image pixels.
type PixelScale int

const (
	// Raw keeps pixel values in 0-255, as the WADN authors' code feeds them.
	Raw PixelScale = iota
	// Unit divides pixel values by 255, to [0, 1].
	Unit
)

// DigitsOptions controls how digit images are delivered.
type DigitsOptions struct {
	Scale PixelScale
	// LoadOptions set the integrity checks of the files read (the
	// generated synthgen domain has none).
	LoadOptions
	// SynthgenSeed, SynthgenTrain and SynthgenTest fix the generated synthgen
	// domain: its seed and the sizes of its splits (0 means 9000 and 2000).
	SynthgenSeed                uint64
	SynthgenTrain, SynthgenTest int
}

func (o DigitsOptions) scale() float32 {
	if o.Scale == Unit {
		return 1.0 / 255
	}
	return 1
}

// Paths of the digit files within a data directory.
const (
	MNISTDir      = "mnist"
	USPSTrain     = "usps/usps.bz2"
	USPSTest      = "usps/usps.t.bz2"
	MNISTMDir     = "mnist_m"
	SVHNTrain     = "svhn/train_32x32.mat"
	SVHNTest      = "svhn/test_32x32.mat"
	SynthTrain    = "synth/synth_train_32x32.mat"
	SynthTest     = "synth/synth_test_32x32.mat"
	SVHNLayout    = "formats/svhn_layout_test_32x32.mat"
	SynthLayout   = "formats/synth_layout_test_32x32.mat"
	mnistTrainImg = "train-images-idx3-ubyte.gz"
	mnistTrainLab = "train-labels-idx1-ubyte.gz"
	mnistTestImg  = "t10k-images-idx3-ubyte.gz"
	mnistTestLab  = "t10k-labels-idx1-ubyte.gz"
)

// LoadDigits loads the digit domain called name (one of DigitsDomains) from
// the data directory dir. The synthgen domain is generated and needs no dir.
func LoadDigits(dir, name string, opt DigitsOptions) (Domain, error) {
	switch name {
	case "mnist":
		return LoadMNIST(dir, opt)
	case "usps":
		return LoadUSPS(dir, opt)
	case "mnist_m":
		return LoadMNISTM(dir, opt)
	case "svhn":
		return LoadSVHN(dir, opt)
	case "synth":
		return LoadSynth(dir, opt)
	case "synthgen":
		return LoadSynthgen(opt)
	}
	return Domain{}, fmt.Errorf("digits: unknown domain %q, want one of %v", name, DigitsDomains)
}

// LoadDigitDomains loads the named digit domains concurrently, in the order
// given.
func LoadDigitDomains(dir string, names []string, opt DigitsOptions) ([]Domain, error) {
	out := make([]Domain, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = LoadDigits(dir, n, opt)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// LoadMNIST reads the four gzip'd idx files of dir/mnist (60000 train and
// 10000 test images of 28x28), resizes every image to 32x32 bilinearly with
// half-pixel centres (see resize.go) and rounds to bytes. The grey plane
// stands for all three channels (Dense.Grey).
func LoadMNIST(dir string, opt DigitsOptions) (Domain, error) {
	d := Domain{Dataset: "digits", Name: "mnist"}
	c := newChecker(opt.LoadOptions)
	var err error
	folder := filepath.Join(dir, MNISTDir)
	if d.Train, err = readMNIST(folder, mnistTrainImg, mnistTrainLab, opt, c); err != nil {
		return d, err
	}
	if d.Test, err = readMNIST(folder, mnistTestImg, mnistTestLab, opt, c); err != nil {
		return d, err
	}
	err = c.counts(&d, filepath.Join(folder, mnistTrainImg), filepath.Join(folder, mnistTestImg))
	c.finish(&d)
	return d, err
}

func readMNIST(folder, imgFile, labFile string, opt DigitsOptions, c *checker) (Split, error) {
	var img, lab *idx.Array
	var errImg, errLab error
	var wg sync.WaitGroup
	waitImg, waitLab := c.sum(filepath.Join(folder, imgFile)), c.sum(filepath.Join(folder, labFile))
	wg.Add(1)
	go func() { defer wg.Done(); lab, errLab = idx.ReadFile(filepath.Join(folder, labFile)) }()
	img, errImg = idx.ReadFile(filepath.Join(folder, imgFile))
	wg.Wait()
	if err := errors.Join(waitImg(), waitLab()); err != nil {
		return Split{}, err
	}
	if err := errors.Join(errImg, errLab); err != nil {
		return Split{}, fmt.Errorf("mnist: %w%s", err, missingHint(err, "the idx files "+mnistTrainImg+", "+mnistTrainLab+", "+mnistTestImg+", "+mnistTestLab+" in "+folder))
	}
	if len(img.Dims) != 3 || len(lab.Dims) != 1 || img.Dims[0] != lab.Dims[0] {
		return Split{}, fmt.Errorf("mnist: %s: images of shape %v and labels of shape %v, want [N H W] and [N]", imgFile, img.Dims, lab.Dims)
	}
	n, h, w := img.Dims[0], img.Dims[1], img.Dims[2]
	y := make([]int, n)
	for i, l := range lab.Data {
		if l >= DigitsClasses {
			return Split{}, fmt.Errorf("mnist: %s: label %d of item %d is not a digit", labFile, l, i)
		}
		y[i] = int(l)
	}
	const plane = DigitSize * DigitSize
	pix := make([]uint8, n*plane)
	parallelRows(n, func() func(i int) {
		r := newBilinear(h, w, DigitSize, DigitSize)
		src := make([]float32, h*w)
		dst := make([]float32, DigitSize*DigitSize)
		return func(i int) {
			for k, v := range img.Data[i*h*w : (i+1)*h*w] {
				src[k] = float32(v)
			}
			r.resize(dst, src)
			greyPixels(pix[i*plane:(i+1)*plane], dst)
		}
	})
	return Split{Dense: greyDense(n, pix, opt), Y: y, NumClasses: DigitsClasses}, nil
}

// greyPixels rounds a grey plane to bytes.
func greyPixels(dst []uint8, grey []float32) {
	for k, v := range grey {
		dst[k] = toPixel(v)
	}
}

// greyDense returns the Dense of n grey 32x32 digits stored once per image.
func greyDense(n int, pix []uint8, opt DigitsOptions) *Dense {
	return &Dense{N: n, Shape: []int{3, DigitSize, DigitSize}, Pix: pix, Scale: opt.scale(), Grey: true}
}

// parallelRows calls the function made by newWorker for i in [0, n), split
// over GOMAXPROCS workers, each with its own function (and scratch space).
func parallelRows(n int, newWorker func() func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/512))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newWorker()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}()
	}
	wg.Wait()
}

func missingHint(err error, want string) string {
	if errors.Is(err, fs.ErrNotExist) {
		return " (want " + want + ")"
	}
	return ""
}

// LoadUSPS reads usps/usps.bz2 (7291 train) and usps/usps.t.bz2 (2007 test):
// LIBSVM text with labels 1..10 (digit+1) and 256 values in [-1, 1] (16x16,
// row-major, indices from 1). A value v becomes the pixel (v+1)*127.5 before
// the 16x16 image is resized to 32x32 like MNIST and rounded to bytes; the
// grey plane stands for all three channels (Dense.Grey).
func LoadUSPS(dir string, opt DigitsOptions) (Domain, error) {
	d := Domain{Dataset: "digits", Name: "usps"}
	c := newChecker(opt.LoadOptions)
	var errs [2]error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); d.Test, errs[1] = readUSPS(filepath.Join(dir, USPSTest), opt, c) }()
	d.Train, errs[0] = readUSPS(filepath.Join(dir, USPSTrain), opt, c)
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return d, err
	}
	err := c.counts(&d, filepath.Join(dir, USPSTrain), filepath.Join(dir, USPSTest))
	c.finish(&d)
	return d, err
}

func readUSPS(path string, opt DigitsOptions, c *checker) (Split, error) {
	const side = 16
	wait := c.sum(path)
	s, err := svmlight.ReadFile(path, svmlight.Options{IndexBase: 1, NumCols: side * side})
	if werr := wait(); werr != nil {
		return Split{}, werr
	}
	if err != nil {
		return Split{}, fmt.Errorf("usps: %w%s", err, missingHint(err, "the LIBSVM files "+USPSTrain+" and "+USPSTest+" of the data directory"))
	}
	y := make([]int, s.Rows)
	for i, l := range s.Labels {
		if l != float64(int(l)) || l < 1 || l > DigitsClasses {
			return Split{}, fmt.Errorf("usps: %s: row %d has label %v, want 1..10 (digit+1)", path, i+1, l)
		}
		y[i] = int(l) - 1
	}
	for k, v := range s.Val {
		if !(v >= -1 && v <= 1) {
			row := 0
			for s.RowPtr[row+1] <= k {
				row++
			}
			return Split{}, fmt.Errorf("usps: %s: row %d feature %d has value %v, want [-1, 1]", path, row+1, s.ColIdx[k]+1, v)
		}
	}
	const plane = DigitSize * DigitSize
	pix := make([]uint8, s.Rows*plane)
	parallelRows(s.Rows, func() func(i int) {
		r := newBilinear(side, side, DigitSize, DigitSize)
		src := make([]float32, side*side)
		dst := make([]float32, DigitSize*DigitSize)
		return func(i int) {
			for k := range src {
				src[k] = 127.5 // an absent entry is the value 0
			}
			for k := s.RowPtr[i]; k < s.RowPtr[i+1]; k++ {
				src[s.ColIdx[k]] = (s.Val[k] + 1) * 127.5
			}
			r.resize(dst, src)
			greyPixels(pix[i*plane:(i+1)*plane], dst)
		}
	})
	return Split{Dense: greyDense(s.Rows, pix, opt), Y: y, NumClasses: DigitsClasses}, nil
}

// LoadMNISTM reads dir/mnist_m: the PNG images of mnist_m_train and
// mnist_m_test (32x32 RGB) listed with their labels in
// mnist_m_{train,test}_labels.txt.
func LoadMNISTM(dir string, opt DigitsOptions) (Domain, error) {
	d := Domain{Dataset: "digits", Name: "mnist_m"}
	c := newChecker(opt.LoadOptions)
	var err error
	folder := filepath.Join(dir, MNISTMDir)
	if d.Train, err = readMNISTM(folder, "train", opt, c); err != nil {
		return d, err
	}
	if d.Test, err = readMNISTM(folder, "test", opt, c); err != nil {
		return d, err
	}
	err = c.counts(&d, mnistMLabels(folder, "train"), mnistMLabels(folder, "test"))
	c.finish(&d)
	return d, err
}

// mnistMLabels is the path of the list of MNIST-M's part ("train" or "test").
func mnistMLabels(folder, part string) string {
	return filepath.Join(folder, "mnist_m_"+part+"_labels.txt")
}

func readMNISTM(folder, part string, opt DigitsOptions, c *checker) (Split, error) {
	labels := mnistMLabels(folder, part)
	wait := c.sum(labels)
	im, err := pnglist.ReadDir(filepath.Join(folder, "mnist_m_"+part), labels, pnglist.Options{NumClasses: DigitsClasses})
	if werr := wait(); werr != nil {
		return Split{}, werr
	}
	if err != nil {
		return Split{}, fmt.Errorf("mnist_m: %w%s", err, missingHint(err, "mnist_m_"+part+"/*.png and "+labels))
	}
	if im.H != DigitSize || im.W != DigitSize {
		return Split{}, fmt.Errorf("mnist_m: %s images are %dx%d, want %dx%d", part, im.H, im.W, DigitSize, DigitSize)
	}
	pix := make([]uint8, im.N*DigitDim)
	for i := 0; i < im.N; i++ {
		hwcToCHW(pix[i*DigitDim:(i+1)*DigitDim], im.Pix[i*DigitDim:(i+1)*DigitDim])
	}
	return Split{Dense: &Dense{N: im.N, Shape: []int{3, DigitSize, DigitSize}, Pix: pix, Scale: opt.scale()}, Y: im.Labels, NumClasses: DigitsClasses}, nil
}

// hwcToCHW reorders one 32x32 RGB image from interleaved pixels to planes.
func hwcToCHW(dst, src []uint8) {
	const plane = DigitSize * DigitSize
	for p := 0; p < plane; p++ {
		dst[p], dst[plane+p], dst[2*plane+p] = src[3*p], src[3*p+1], src[3*p+2]
	}
}

// LoadSVHN reads SVHN's svhn/train_32x32.mat and svhn/test_32x32.mat. The
// real files are not in the shared data; formats/svhn_layout_test_32x32.mat
// has their layout and is read by [ReadDigitsMat].
func LoadSVHN(dir string, opt DigitsOptions) (Domain, error) {
	return loadMatDomain(dir, "svhn", SVHNTrain, SVHNTest, opt)
}

// LoadSynth reads SynthDigits' synth/synth_train_32x32.mat and
// synth/synth_test_32x32.mat, in the SVHN layout. The real files are not in
// the shared data; formats/synth_layout_test_32x32.mat has their layout.
func LoadSynth(dir string, opt DigitsOptions) (Domain, error) {
	return loadMatDomain(dir, "synth", SynthTrain, SynthTest, opt)
}

func loadMatDomain(dir, name, train, test string, opt DigitsOptions) (Domain, error) {
	d := Domain{Dataset: "digits", Name: name}
	c := newChecker(opt.LoadOptions)
	var errs [2]error
	read := func(file string) (Split, error) {
		wait := c.sum(filepath.Join(dir, file))
		s, err := ReadDigitsMat(filepath.Join(dir, file), opt)
		if werr := wait(); werr != nil {
			return Split{}, werr
		}
		return s, err
	}
	d.Train, errs[0] = read(train)
	if errs[0] == nil {
		d.Test, errs[1] = read(test)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return d, fmt.Errorf("%s: %w%s", name, err, missingHint(err, train+" and "+test+" in the data directory"))
	}
	err := c.counts(&d, filepath.Join(dir, train), filepath.Join(dir, test))
	c.finish(&d)
	return d, err
}

// ReadDigitsMat reads one MATLAB file in the layout of SVHN's *_32x32.mat:
// X, uint8 32x32x3xN in column-major order (X(row, col, channel, n)), and
// y, N labels 1..10 where 10 stands for the digit 0 (0 is accepted as 0).
func ReadDigitsMat(path string, opt DigitsOptions) (Split, error) {
	vars, err := mat.ReadFile(path)
	if err != nil {
		return Split{}, err
	}
	x, yv := vars["X"], vars["y"]
	if x == nil || yv == nil {
		return Split{}, fmt.Errorf("%s: want variables X and y, found %d variables", path, len(vars))
	}
	if x.Class != "uint8" || len(x.Dims) != 4 || x.Dims[0] != DigitSize || x.Dims[1] != DigitSize || x.Dims[2] != 3 {
		return Split{}, fmt.Errorf("%s: X is %s %v, want uint8 [32 32 3 N]", path, x.Class, x.Dims)
	}
	n := x.Dims[3]
	if len(x.Uint8) != n*DigitDim {
		return Split{}, fmt.Errorf("%s: X holds %d bytes, want %d", path, len(x.Uint8), n*DigitDim)
	}
	ny := 1
	for _, d := range yv.Dims {
		ny *= d
	}
	if ny != n || (len(yv.Dims) == 2 && yv.Dims[0] != n && yv.Dims[1] != n) {
		return Split{}, fmt.Errorf("%s: y has shape %v, want %d labels", path, yv.Dims, n)
	}
	y := make([]int, n)
	for i := range y {
		l := yv.At(i)
		if l != float64(int(l)) || l < 0 || l > 10 {
			return Split{}, fmt.Errorf("%s: label %v of image %d, want 1..10 (10 for the digit 0)", path, l, i)
		}
		y[i] = int(l) % 10
	}
	// Column-major X(i, j, c, n) sits at i + 32*(j + 32*(c + 3*n)); the CHW
	// image wants it at c*1024 + i*32 + j: each plane is transposed.
	pix := make([]uint8, n*DigitDim)
	const plane = DigitSize * DigitSize
	for k := 0; k < n; k++ {
		for c := 0; c < 3; c++ {
			src := x.Uint8[k*DigitDim+c*plane : k*DigitDim+(c+1)*plane]
			dst := pix[k*DigitDim+c*plane : k*DigitDim+(c+1)*plane]
			for j := 0; j < DigitSize; j++ {
				for i := 0; i < DigitSize; i++ {
					dst[i*DigitSize+j] = src[j*DigitSize+i]
				}
			}
		}
	}
	return Split{Dense: &Dense{N: n, Shape: []int{3, DigitSize, DigitSize}, Pix: pix, Scale: opt.scale()}, Y: y, NumClasses: DigitsClasses}, nil
}

// LoadSynthgen generates the synthgen domain (package synthgen) from
// opt.SynthgenSeed: images 0..SynthgenTrain-1 are the train split and the
// next SynthgenTest images the test split.
func LoadSynthgen(opt DigitsOptions) (Domain, error) {
	nTrain, nTest := opt.SynthgenTrain, opt.SynthgenTest
	if nTrain == 0 {
		nTrain = 9000
	}
	if nTest == 0 {
		nTest = 2000
	}
	g, err := synthgen.New(opt.SynthgenSeed)
	if err != nil {
		return Domain{}, err
	}
	d := Domain{Dataset: "digits", Name: "synthgen"}
	for _, part := range []struct {
		s        *Split
		start, n int
	}{{&d.Train, 0, nTrain}, {&d.Test, nTrain, nTest}} {
		hwc, labels, err := g.Generate(part.start, part.n)
		if err != nil {
			return Domain{}, err
		}
		pix := make([]uint8, len(hwc))
		for i := 0; i < part.n; i++ {
			hwcToCHW(pix[i*DigitDim:(i+1)*DigitDim], hwc[i*DigitDim:(i+1)*DigitDim])
		}
		*part.s = Split{Dense: &Dense{N: part.n, Shape: []int{3, DigitSize, DigitSize}, Pix: pix, Scale: opt.scale()}, Y: labels, NumClasses: DigitsClasses}
	}
	return d, nil
}
