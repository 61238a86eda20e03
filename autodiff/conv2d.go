package autodiff

import (
	"fmt"
	"sync/atomic"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Conv2d is the 2-D cross-correlation of a batch of images x of shape
// [N, C, H, W] with filters w of shape [F, C, KH, KW], plus a bias b of shape
// [F] (or no bias when b is nil), moving the filters by stride with padding
// zeros on every side:
//
//	y[n, f, oy, ox] = b[f] + sum over c, i, j of
//	    w[f, c, i, j] * x[n, c, oy*stride-padding+i, ox*stride-padding+j]
//
// The result has shape [N, F, OH, OW] with OH = (H+2*padding-KH)/stride + 1
// and OW likewise. It panics with a *ShapeError when the shapes do not fit, the
// stride is below 1, the padding negative or the output empty.
//
// The forward pass unfolds a chunk of images into one column matrix (im2col)
// and multiplies it by the filters with one kernel.Gemm (from 256 output
// pixels on, one image per Gemm, the images shared out over the threads). The
// backward pass computes dW = dY*cols^T and dX = col2im(W^T*dY) the same way,
// and db as the sum of dY over images and pixels. float32 convolutions with
// 3x3 filters and stride 1 (at least 16 channels in and out, at most 64x64
// outputs) run instead on a Winograd path, F(4x4, 3x3) or F(5x5, 3x3) as
// SetConvAlgorithm selects, within the error bound package audit states. With
// createGraph the three gradients are built from differentiable operators
// (the two adjoints of the convolution and the bias sum), so Conv2d can be
// differentiated any number of times.
func Conv2d[T kernel.Float](x, w, b *Tensor[T], stride, padding int) *Tensor[T] {
	const op = "Conv2d"
	g := convGeomOf(op, x, w, b, stride, padding)
	return conv2dNode(&g, x, w, b)
}

// conv2dNode records y = conv(x, w) + b for checked shapes.
func conv2dNode[T kernel.Float](g *convGeom, x, w, b *Tensor[T]) *Tensor[T] {
	n, f := x.shape[0], w.shape[0]
	y := empty[T](n, f, g.oh, g.ow)
	var bd []T
	inputs := []*Tensor[T]{x, w}
	if b != nil {
		bd = b.data
		inputs = append(inputs, b)
	}
	// The Winograd path keeps its transformed filters for the input
	// gradient of the backward pass, when there is to be one.
	fu := convForwardKeep(g, n, f, x.data, w.data, bd, y.data, x.requiresGrad)
	var out *Tensor[T]
	bw := func(dy *Tensor[T], createGraph bool) []*Tensor[T] {
		grads := make([]*Tensor[T], len(inputs))
		if createGraph {
			if out.wantGrad(0) {
				grads[0] = conv2dDataNode(g, dy, w)
			}
			if out.wantGrad(1) {
				grads[1] = conv2dFilterNode(g, x, dy)
			}
			if b != nil && out.wantGrad(2) {
				grads[2] = convBiasSumNode(dy)
			}
			return grads
		}
		var dx, dw []T
		if out.wantGrad(0) {
			grads[0] = empty[T](x.shape...)
			dx = grads[0].data
		}
		if out.wantGrad(1) {
			grads[1] = empty[T](w.shape...)
			dw = grads[1].data
		}
		var db []T
		if b != nil && out.wantGrad(2) {
			grads[2] = empty[T](f)
			db = grads[2].data
		}
		convBackwardKept(g, n, f, x.data, w.data, dy.data, dx, dw, db, fu)
		return grads
	}
	out = newOp("Conv2d", y, inputs, bw)
	if fu.u != nil {
		out.retain(newTensor(fromAs32[T](fu.u), []int{len(fu.u)}, true))
	}
	return out
}

// conv2dDataNode records dx = col2im(W^T*dy), the adjoint of the convolution
// in its input, for dy of shape [N, F, OH, OW]. It is linear in dy and in w.
func conv2dDataNode[T kernel.Float](g *convGeom, dy, w *Tensor[T]) *Tensor[T] {
	n, f := dy.shape[0], w.shape[0]
	dx := empty[T](n, g.c, g.h, g.w)
	convBackward(g, n, f, nil, w.data, dy.data, dx.data, nil)
	var out *Tensor[T]
	bw := func(gx *Tensor[T], createGraph bool) []*Tensor[T] {
		// <gx, data(dy, w)> = <conv(gx, w), dy> = <filter(gx, dy), w>
		grads := make([]*Tensor[T], 2)
		if createGraph {
			if out.wantGrad(0) {
				grads[0] = conv2dNode(g, gx, w, nil)
			}
			if out.wantGrad(1) {
				grads[1] = conv2dFilterNode(g, gx, dy)
			}
			return grads
		}
		if out.wantGrad(0) {
			grads[0] = empty[T](dy.shape...)
			convForward(g, n, f, gx.data, w.data, nil, grads[0].data)
		}
		if out.wantGrad(1) {
			grads[1] = empty[T](w.shape...)
			convBackward(g, n, f, gx.data, nil, dy.data, nil, grads[1].data)
		}
		return grads
	}
	out = newOp("Conv2dBackwardData", dx, []*Tensor[T]{dy, w}, bw)
	return out
}

// conv2dFilterNode records dw = dy*cols(x)^T, the adjoint of the convolution
// in its filters. It is linear in x and in dy.
func conv2dFilterNode[T kernel.Float](g *convGeom, x, dy *Tensor[T]) *Tensor[T] {
	n, f := x.shape[0], dy.shape[1]
	dw := empty[T](f, g.c, g.kh, g.kw)
	convBackward(g, n, f, x.data, nil, dy.data, nil, dw.data)
	var out *Tensor[T]
	bw := func(gw *Tensor[T], createGraph bool) []*Tensor[T] {
		// <gw, filter(x, dy)> = <conv(x, gw), dy> = <x, data(dy, gw)>
		grads := make([]*Tensor[T], 2)
		if createGraph {
			if out.wantGrad(0) {
				grads[0] = conv2dDataNode(g, dy, gw)
			}
			if out.wantGrad(1) {
				grads[1] = conv2dNode(g, x, gw, nil)
			}
			return grads
		}
		if out.wantGrad(0) {
			grads[0] = empty[T](x.shape...)
			convBackward(g, n, f, nil, gw.data, dy.data, grads[0].data, nil)
		}
		if out.wantGrad(1) {
			grads[1] = empty[T](dy.shape...)
			convForward(g, n, f, x.data, gw.data, nil, grads[1].data)
		}
		return grads
	}
	out = newOp("Conv2dBackwardFilter", dw, []*Tensor[T]{x, dy}, bw)
	return out
}

// convBiasSumNode records db[f] = sum over n and pixels of dy[n, f, ...].
// Its adjoint is convBiasBroadcastNode.
func convBiasSumNode[T kernel.Float](dy *Tensor[T]) *Tensor[T] {
	n, f := dy.shape[0], dy.shape[1]
	pix := dy.shape[2] * dy.shape[3]
	db := empty[T](f)
	convBiasSum(dy.data, n, f, pix, db.data)
	bw := func(gb *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{convBiasBroadcastNode(gb, dy.shape)}
		}
		gy := empty[T](dy.shape...)
		convBiasBroadcast(gb.data, n, f, pix, gy.data)
		return []*Tensor[T]{gy}
	}
	return newOp("Conv2dBiasGrad", db, []*Tensor[T]{dy}, bw)
}

// convBiasBroadcastNode records y[n, f, ...] = b[f] for y of the given shape.
// Its adjoint is convBiasSumNode.
func convBiasBroadcastNode[T kernel.Float](b *Tensor[T], shape []int) *Tensor[T] {
	n, f := shape[0], shape[1]
	pix := shape[2] * shape[3]
	y := empty[T](shape...)
	convBiasBroadcast(b.data, n, f, pix, y.data)
	bw := func(gy *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{convBiasSumNode(gy)}
		}
		gb := empty[T](f)
		convBiasSum(gy.data, n, f, pix, gb.data)
		return []*Tensor[T]{gb}
	}
	return newOp("Conv2dBiasBroadcast", y, []*Tensor[T]{b}, bw)
}

// convBiasSum sets db[f] to the sum of dy[n, f, p] over n and p, blocks of
// filters in parallel.
func convBiasSum[T kernel.Float](dy []T, n, f, pix int, db []T) {
	parallelRange(f, 8, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var acc float64 // the images' partial sums, added in double
			for i := 0; i < n; i++ {
				acc += float64(kernel.Sum(dy[(i*f+j)*pix : (i*f+j+1)*pix]))
			}
			db[j] = T(acc)
		}
	})
}

// biasFromSums sets db[j] to the sum over images i, in order and in double,
// of sums[i*f+j], the sums of the images' rows of the output gradient: what
// convBiasSum computes, for callers that took those sums while the rows
// were in cache.
func biasFromSums[T kernel.Float](sums []T, n, f int, db []T) {
	for j := range db[:f] {
		var acc float64 // the images' partial sums, added in double
		for i := 0; i < n; i++ {
			acc += float64(sums[i*f+j])
		}
		db[j] = T(acc)
	}
}

// convBiasBroadcast sets y[n, f, p] to b[f].
func convBiasBroadcast[T kernel.Float](b []T, n, f, pix int, y []T) {
	for i := 0; i < n; i++ {
		for j := 0; j < f; j++ {
			row := y[(i*f+j)*pix : (i*f+j+1)*pix]
			for k := range row {
				row[k] = b[j]
			}
		}
	}
}

// convColsBudget is the number of column-matrix elements a chunk of images is
// unfolded into at once. Several images side by side give the small late
// layers of a CNN a matrix product with thousands of columns instead of a few
// dozen, while a column matrix of about 4 MiB (1M float32) stays in the
// last-level cache between im2col and the Gemm that reads it. On the digits
// extractor (BenchmarkConvChunking) this beat one image per Gemm, chunks of
// 0.5 and 8 MiB, and images spread over goroutines with single-threaded
// Gemms; counting the product beside the column matrix in the budget made the
// first layer (3 channels in, 64 out) slower. It is a variable so that
// benchmarks can compare sizes; 0 means one image per Gemm.
var convColsBudget = 1 << 20

// convOwnGemmPixels is the output size from which every image gets a Gemm of
// its own: with that many columns the product is wide enough alone, and the
// Gemm writes the image's output (and reads its output gradient) in place,
// where a chunk of images would be copied out of and into a shared matrix
// (the first layer of the digits extractor, 900 pixels, runs faster so).
const convOwnGemmPixels = 256

// convChunk returns how many of n images to unfold per Gemm.
func convChunk(g *convGeom, n int) int {
	if g.outPixels >= convOwnGemmPixels {
		return 1
	}
	return max(1, min(n, convColsBudget/(g.colRows*g.outPixels)))
}

// convForward sets y (n x f x oh x ow) to the convolution of x (n x c x h x
// w) with w (f x c x kh x kw) plus b (f values, or nil for none).
//
// Per chunk of m images the column matrix is K x (m*P) with K = c*kh*kw and
// P = oh*ow, image i in columns [i*P, (i+1)*P); one Gemm gives the f x (m*P)
// product, which is then copied to the images' [f, P] blocks. With a single
// image per chunk the Gemm writes into y directly. A bias enters the product
// as one more column of the filters, b, against one more row of the column
// matrix, all ones, so that spreading the product is a plain copy.
func convForward[T kernel.Float](g *convGeom, n, f int, x, w, b, y []T) {
	convForwardKeep(g, n, f, x, w, b, y, false)
}

// keptFilters are the transformed filters (winoFilter's u) a Winograd
// forward pass keeps for its backward pass, and the tile they are for.
type keptFilters struct {
	tile kernel.WinogradTile
	u    []float32 // a pooled buffer; nil when none is kept
}

// convForwardKeep is convForward that, when keep is set and the
// convolution takes a Winograd path, returns the transformed filters it
// computed, for convBackwardKept; the caller releases them.
func convForwardKeep[T kernel.Float](g *convGeom, n, f int, x, w, b, y []T, keep bool) keptFilters {
	return convForwardPool(g, n, f, x, w, b, y, keep, nil)
}

// convForwardPool is convForwardKeep that, when sink is not nil, hands the
// output to sink's pooling instead of writing it to y (then nil): plane by
// plane as it is produced on the Winograd and one-image-per-Gemm paths,
// all at the end on the others.
func convForwardPool[T kernel.Float](g *convGeom, n, f int, x, w, b, y []T, keep bool, sink *convPool[T]) keptFilters {
	if tile := winoTile[T](g, n, f); tile != 0 {
		var s32 *convPool[float32]
		if sink != nil {
			s32 = sink.as32()
		}
		u := winoForward(tile, g, n, f, as32(x), as32(w), as32(b), as32(y), keep, s32)
		return keptFilters{tile, u}
	}
	if sink != nil && convChunk(g, n) != 1 {
		whole, all := sink, alloc[T](n*f*g.outPixels)
		defer func() {
			parallelRange(n*f, 16, func(lo, hi int) { whole.pool(all[lo*g.outPixels:], lo, hi-lo) })
			release(all)
		}()
		y, sink = all, nil
	}
	K, P := g.colRows, g.outPixels
	chw := g.c * g.h * g.w
	nb := convChunk(g, n)
	kb, wb := K, w
	if b != nil {
		kb = K + 1
		wb = alloc[T](f * kb)
		for j := 0; j < f; j++ {
			copy(wb[j*kb:j*kb+K], w[j*K:(j+1)*K])
			wb[j*kb+K] = b[j]
		}
	}
	if nb == 1 {
		convForwardImages(g, n, f, x, wb, kb, y, sink)
		if b != nil {
			release(wb)
		}
		return keptFilters{}
	}
	cols := alloc[T](kb * nb * P)
	tmp := alloc[T](f * nb * P)
	for n0 := 0; n0 < n; n0 += nb {
		m := min(nb, n-n0)
		ld := m * P
		parallelRange(m, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				im2col(g, x[(n0+i)*chw:(n0+i+1)*chw], cols[i*P:], ld)
			}
		})
		if b != nil {
			ones := cols[K*ld : (K+1)*ld]
			for i := range ones {
				ones[i] = 1
			}
		}
		yc := y[n0*f*P : (n0+m)*f*P]
		kernel.Gemm(false, false, f, ld, kb, 1, wb, kb, cols, ld, 0, tmp, ld)
		parallelRange(m, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				for j := 0; j < f; j++ {
					copy(yc[(i*f+j)*P:(i*f+j+1)*P], tmp[j*ld+i*P:j*ld+(i+1)*P])
				}
			}
		})
	}
	release(cols)
	release(tmp)
	if b != nil {
		release(wb)
	}
	return keptFilters{}
}

// eachImage runs fn on the images [0, n) in order on the calling goroutine
// with Threads() == 1, otherwise on up to Threads() goroutines, each taking
// the next image not taken; part numbers each goroutine.
func eachImage(n int, fn func(part int, next func() (int, bool))) {
	var counter atomic.Int64
	next := func() (int, bool) {
		i := int(counter.Add(1) - 1)
		return i, i < n
	}
	kernel.Parallel(min(kernel.Threads(), n), func(part int) { fn(part, next) })
}

// convForwardImages is convForward with one Gemm per image, the images
// spread over the threads: wb is the filters (f x kb), with the bias as a
// last column when kb is colRows+1. With sink not nil each image's output
// goes to a buffer of the thread's, which sink pools.
func convForwardImages[T kernel.Float](g *convGeom, n, f int, x, wb []T, kb int, y []T, sink *convPool[T]) {
	K, P, chw := g.colRows, g.outPixels, g.c*g.h*g.w
	eachImage(n, func(_ int, next func() (int, bool)) {
		cols := alloc[T](kb * P)
		for j := range cols[K*P:] {
			cols[K*P+j] = 1 // the bias row, if any
		}
		var yi []T
		if sink != nil {
			yi = alloc[T](f * P)
		}
		for i, ok := next(); ok; i, ok = next() {
			im2col(g, x[i*chw:(i+1)*chw], cols, P)
			if sink != nil {
				kernel.GemmSerial(false, false, f, P, kb, 1, wb, kb, cols, P, 0, yi, P)
				sink.pool(yi, i*f, f)
				continue
			}
			kernel.GemmSerial(false, false, f, P, kb, 1, wb, kb, cols, P, 0, y[i*f*P:(i+1)*f*P], P)
		}
		if sink != nil {
			release(yi)
		}
		release(cols)
	})
}

// convAccumulators is the number of partial sums of the filter gradient when
// every image has a Gemm of its own: image i adds into partial sum i mod
// convAccumulators, each partial sum takes its images in order, and they are
// added in order at the end, so that the threads can share the images out
// and the result has the same bits for every thread count.
const convAccumulators = 2

// convBackwardImages is convBackwardBias with one Gemm per image (per
// product), the images spread over the threads: dx when not nil (needs w),
// dw when not nil (needs x), db when not nil, its sums of each image's rows
// taken while they are in cache and added as convBiasSum adds them.
//
// With src not nil (dy nil) each image's output gradient is built by src in
// a buffer of the thread's just before its products read it; or, when
// pooledFilterFor gives a pooledFilter, the filter and bias gradients are
// taken from the pooled values themselves, each image's filter terms added
// into partial sums of pooledFilterWidth values a filter, and the output
// gradient is built only for dx.
func convBackwardImages[T kernel.Float](g *convGeom, n, f int, x, w, dy, dx, dw, db []T, src *poolGrad[T]) {
	K, P, chw := g.colRows, g.outPixels, g.c*g.h*g.w
	var sums []T
	if db != nil {
		sums = alloc[T](n * f)
		defer func() {
			biasFromSums(sums, n, f, db)
			release(sums)
		}()
	}
	pf := pooledFilterFor(g, f, src)
	// buffers returns a thread's buffers: the column matrix and, with src,
	// the image's output gradient (with pf, only for dx); with pf, its
	// pixel rows, masked values and positions.
	type buffers struct {
		cols, dyb []T
		pooled    pooledBuffers
	}
	products := pf == nil || dx != nil // the column matrix is needed
	newBuffers := func() (b buffers) {
		if products {
			b.cols = alloc[T](K * P)
			if src != nil {
				b.dyb = alloc[T](f * P)
			}
		}
		if pf != nil {
			b.pooled = pf.buffers()
		}
		return b
	}
	releaseBuffers := func(b buffers) {
		if products {
			release(b.cols)
			if src != nil {
				release(b.dyb)
			}
		}
		if pf != nil {
			b.pooled.release()
		}
	}
	image := func(i int, b buffers, acc []T, first bool) {
		var dyi []T
		switch {
		case pf != nil:
			// The filter and bias gradients from the pooled values; the
			// output gradient's planes only for dx.
			vals := pf.values(i, b.pooled)
			if sums != nil {
				for j := 0; j < f; j++ {
					sums[i*f+j] = T(kernel.Sum(vals[j*pf.nq : (j+1)*pf.nq]))
				}
			}
			if acc != nil {
				if first {
					clear(acc)
				}
				pf.add(i, as32(x[i*chw:(i+1)*chw]), vals, b.pooled, as32(acc))
			}
			if dx == nil {
				return
			}
			dyi = b.dyb
			src.planes(i*f, f, dyi)
		default:
			if src != nil {
				dyi = b.dyb
				src.planes(i*f, f, dyi)
			} else {
				dyi = dy[i*f*P : (i+1)*f*P]
			}
			if sums != nil {
				for j := 0; j < f; j++ {
					sums[i*f+j] = kernel.Sum(dyi[j*P : (j+1)*P])
				}
			}
			if acc != nil {
				im2col(g, x[i*chw:(i+1)*chw], b.cols, P)
				var beta T
				if !first {
					beta = 1
				}
				kernel.GemmSerial(false, true, f, K, P, 1, dyi, P, b.cols, P, beta, acc, K)
			}
		}
		if dx != nil {
			kernel.GemmSerial(true, false, K, P, f, 1, w, K, dyi, P, 0, b.cols, P)
			d := dx[i*chw : (i+1)*chw]
			clear(d)
			col2im(g, b.cols, P, d)
		}
	}
	if dw == nil {
		eachImage(n, func(_ int, next func() (int, bool)) {
			b := newBuffers()
			for i, ok := next(); ok; i, ok = next() {
				image(i, b, nil, false)
			}
			releaseBuffers(b)
		})
		return
	}
	accs := min(convAccumulators, n)
	acc := make([][]T, accs)
	if pf != nil {
		for k := range acc {
			acc[k] = alloc[T](f * pooledFilterWidth)
		}
	} else {
		acc[0] = dw
		for k := 1; k < accs; k++ {
			acc[k] = alloc[T](len(dw))
		}
	}
	workers := min(kernel.Threads(), accs)
	kernel.Parallel(workers, func(part int) {
		b := newBuffers()
		for i := 0; i < n; i++ {
			if i%accs%workers == part {
				image(i, b, acc[i%accs], i < accs)
			}
		}
		releaseBuffers(b)
	})
	if pf != nil {
		filterGradFromRows(dw, acc, f, K)
		for _, a := range acc {
			release(a)
		}
		return
	}
	for k := 1; k < accs; k++ {
		for j, v := range acc[k] {
			dw[j] += v
		}
		release(acc[k])
	}
}

// convBackward computes, for the convolution of x with w and the gradient dy
// of its output (n x f x oh x ow), the gradients
//
//	dx = col2im(W^T * dY)  (n x c x h x w; needs w, skipped when dx is nil)
//	dw = dY * cols(x)^T    (f x c x kh x kw; needs x, skipped when dw is nil)
//
// overwriting dx and dw. Chunks of images are gathered side by side as in
// convForward, so each Gemm has m*P columns (or inner dimension).
func convBackward[T kernel.Float](g *convGeom, n, f int, x, w, dy, dx, dw []T) {
	convBackwardBias(g, n, f, x, w, dy, dx, dw, nil)
}

// convBackwardBias is convBackward that also sets db (f values, skipped when
// nil) to the bias gradient, as convBiasSum computes it. The sum of each
// image's row of dy is taken while the pass that gathers the chunk has the
// row in cache, and the rows' sums are added per filter in image order as in
// convBiasSum, so the result has the same bits.
func convBackwardBias[T kernel.Float](g *convGeom, n, f int, x, w, dy, dx, dw, db []T) {
	convBackwardKept(g, n, f, x, w, dy, dx, dw, db, keptFilters{})
}

// convBackwardKept is convBackwardBias that takes the input gradient's
// transformed filters from fu, as convForwardKeep kept them, when they are
// for the tile the Winograd path takes (the same bits as computing them
// again).
func convBackwardKept[T kernel.Float](g *convGeom, n, f int, x, w, dy, dx, dw, db []T, fu keptFilters) {
	convBackwardPool(g, n, f, x, w, dy, dx, dw, db, fu, nil)
}

// convBackwardPool is convBackwardKept that, when src is not nil (dy nil),
// takes the output gradient from src: plane by plane as the products need
// it on the Winograd and one-image-per-Gemm paths, whole on the others.
func convBackwardPool[T kernel.Float](g *convGeom, n, f int, x, w, dy, dx, dw, db []T, fu keptFilters, src *poolGrad[T]) {
	tile := winoTile[T](g, n, f)
	if src != nil && (dx == nil && dw == nil || tile == 0 && convChunk(g, n) != 1) {
		dy = src.all(n * f)
		defer release(dy)
		src = nil
	}
	if tile != 0 {
		var u []float32
		if fu.tile == tile {
			u = fu.u
		}
		if dx == nil && dw == nil {
			if db != nil {
				convBiasSum(dy, n, f, g.outPixels, db)
			}
			return
		}
		var sums []T
		if db != nil {
			sums = alloc[T](n * f)
		}
		var s32 *poolGrad[float32]
		if src != nil {
			s32 = src.as32()
		}
		winoBackward(tile, g, n, f, as32(x), as32(w), as32(dy), as32(dx), as32(dw), as32(sums), u, s32)
		if db != nil {
			biasFromSums(sums, n, f, db)
			release(sums)
		}
		return
	}
	if n == 0 && dw != nil {
		clear(dw)
	}
	K, P := g.colRows, g.outPixels
	nb := convChunk(g, n)
	if n == 0 || dx == nil && dw == nil {
		if db != nil {
			convBiasSum(dy, n, f, P, db)
		}
		return
	}
	if nb == 1 {
		convBackwardImages(g, n, f, x, w, dy, dx, dw, db, src)
		return
	}
	chw := g.c * g.h * g.w
	cols := alloc[T](K * nb * P)
	dyc := alloc[T](f * nb * P)
	var sums []T
	if db != nil {
		sums = alloc[T](n * f)
	}
	for n0 := 0; n0 < n; n0 += nb {
		m := min(nb, n-n0)
		ld := m * P
		dyn := dy[n0*f*P : (n0+m)*f*P]
		parallelRange(m, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				for j := 0; j < f; j++ {
					src := dyn[(i*f+j)*P : (i*f+j+1)*P]
					copy(dyc[j*ld+i*P:j*ld+(i+1)*P], src)
					if sums != nil {
						sums[(n0+i)*f+j] = kernel.Sum(src)
					}
				}
			}
		})
		convBackwardChunk(g, f, m, x, w, dyc[:f*ld], dx, dw, n0, n0 == 0, cols, chw)
	}
	if sums != nil {
		biasFromSums(sums, n, f, db)
		release(sums)
	}
	release(cols)
	release(dyc)
}

// convBackwardChunk does the work of convBackward for the m images from n0 on,
// whose output gradients are laid out f x (m*P) in dyc. first tells whether
// dw is to be overwritten rather than accumulated into.
func convBackwardChunk[T kernel.Float](g *convGeom, f, m int, x, w, dyc, dx, dw []T, n0 int, first bool, cols []T, chw int) {
	K, P := g.colRows, g.outPixels
	ld := m * P
	if dw != nil {
		parallelRange(m, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				im2col(g, x[(n0+i)*chw:(n0+i+1)*chw], cols[i*P:], ld)
			}
		})
		var beta T
		if !first {
			beta = 1
		}
		kernel.Gemm(false, true, f, K, ld, 1, dyc, ld, cols, ld, beta, dw, K)
	}
	if dx != nil {
		// cols now holds W^T * dY, K x (m*P).
		kernel.Gemm(true, false, K, ld, f, 1, w, K, dyc, ld, 0, cols, ld)
		parallelRange(m, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d := dx[(n0+i)*chw : (n0+i+1)*chw]
				clear(d)
				col2im(g, cols[i*P:], ld, d)
			}
		})
	}
}

// convGeomOf checks the shapes of a convolution's input x [N, C, H, W],
// filters w [F, C, KH, KW] and bias b ([F] or nil), panicking in op's name
// when they do not fit, and returns its geometry.
func convGeomOf[T kernel.Float](op string, x, w, b *Tensor[T], stride, padding int) convGeom {
	if len(x.shape) != 4 || len(w.shape) != 4 {
		shapePanic(op, "input must be [N, C, H, W] and filters [F, C, KH, KW]", x.shape, w.shape)
	}
	if x.shape[1] != w.shape[1] {
		shapePanic(op, "input and filters have different channel counts", x.shape, w.shape)
	}
	if b != nil && (len(b.shape) != 1 || b.shape[0] != w.shape[0]) {
		shapePanic(op, "bias must be [F]", w.shape, b.shape)
	}
	g, ok := newConvGeom(x.shape[1], x.shape[2], x.shape[3], w.shape[2], w.shape[3], stride, padding)
	if !ok {
		shapePanic(op, fmt.Sprintf("stride %d, padding %d: no output pixel", stride, padding), x.shape, w.shape)
	}
	return g
}
