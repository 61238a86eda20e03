// Package data loads the benchmark domains used by WADN and draws the
// experimental protocols from them: which samples each source and the target
// contribute, which are dropped to shift the source label distributions, which
// target samples are labelled, and in what order mini-batches are drawn.
//
// Loaders return plain Go values: sparse rows ([CSR]) for the Amazon reviews,
// dense samples ([Dense]) for digit images and pre-extracted features, and
// integer class labels. They never build autodiff tensors. The file formats are
// parsed by the sub-packages svmlight, idx, pnglist, mat and npy; this package
// knows where each data set lives in a data directory and how its values are
// mapped to the common layout:
//
//	amazon/<domain>_{train,test}.svmlight       Amazon, 5000-d counts, labels -1/+1 -> 0/1
//	formats/amazon.npz                          the same data in the MDAN/DARN/WADN layout
//	mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz
//	usps/usps.bz2, usps/usps.t.bz2              LIBSVM text, labels 1..10 -> 0..9
//	mnist_m/mnist_m_{train,test}/*.png with mnist_m_{train,test}_labels.txt
//	svhn/{train,test}_32x32.mat                 X 32x32x3xN uint8, y with 10 for digit 0
//	synth/synth_{train,test}_32x32.mat          the same layout as SVHN
//	office_caltech/<domain>_SURF_L10.mat        fts N x 800 counts, labels 1..10
//	office_home/office_home_<domain>.npz        x float32 N x 2048, y int64
//
// The Load functions are strict: they refuse, naming the file, a split whose
// rows differ from every published form of its data set (given by the data
// set registry as [LoadOptions].Editions) and a file whose SHA-256 differs
// from a SHA256SUMS list in its folder or the folder above. [LoadOptions].AllowUnverified accepts such data (one's
// own, in a data set's layout) and records each waived check in
// Domain.Unverified. See integrity.go.
//
// With no data directory, [LoadAmazon] decodes a compressed copy of the Amazon
// data embedded in the binary, and [LoadOfficeCaltech] reads the
// Office-Caltech10 files embedded as they are (each checked against its
// SHA-256 sum).
//
// Every digit domain is delivered as 3x32x32 images in CHW order, held as
// bytes (one grey plane for MNIST and USPS) with a scale for raw 0-255 or
// [0, 1] values; [Dense.Gather] assembles float32 batches. MNIST and USPS are
// enlarged with bilinear interpolation with half-pixel centres, the
// align_corners=false convention of PyTorch's F.interpolate and of PIL.
//
// A [Protocol] draws a [Task] (sources, target training sample, target test
// set, with the row indices of every selection) from the domains and a seed;
// a [Sampler] draws its mini-batches. All randomness comes from explicitly
// seeded PCG generators (math/rand/v2), one stream per draw and domain, so a
// seed fixes every draw.
package data
