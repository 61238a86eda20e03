package data

// Bilinear resizing with half-pixel centres (align_corners=false): output
// pixel j of an axis of length out samples the input at
//
//	x = (j+0.5)*in/out - 0.5, clamped below at 0,
//
// and blends pixels floor(x) and floor(x)+1 (the latter clamped to in-1) with
// weights 1-(x-floor(x)) and x-floor(x). This is the convention of PyTorch's
// F.interpolate(mode="bilinear", align_corners=False) without antialiasing,
// and for enlargement it coincides with PIL's BILINEAR filter. The digit
// loaders use it to bring MNIST (28x28) and USPS (16x16) to 32x32.

// axisTaps holds, for each output position of one axis, the two input
// positions and the weight of the second.
type axisTaps struct {
	i0, i1 []int
	w1     []float32
}

func newAxisTaps(in, out int) axisTaps {
	t := axisTaps{i0: make([]int, out), i1: make([]int, out), w1: make([]float32, out)}
	scale := float64(in) / float64(out)
	for j := 0; j < out; j++ {
		x := float64((float64(j)+0.5)*scale) - 0.5
		if x < 0 {
			x = 0
		}
		i0 := int(x)
		if i0 > in-1 {
			i0 = in - 1
		}
		i1 := i0 + 1
		if i1 > in-1 {
			i1 = in - 1
		}
		t.i0[j], t.i1[j], t.w1[j] = i0, i1, float32(x-float64(i0))
	}
	return t
}

// bilinear resizes single-channel images of inH x inW to outH x outW with the
// half-pixel convention above. It keeps the tap tables and a row buffer so
// that resizing many images allocates nothing.
type bilinear struct {
	inH, inW, outH, outW int
	rows, cols           axisTaps
	tmp                  []float32 // inH x outW: the image resized along x
}

func newBilinear(inH, inW, outH, outW int) *bilinear {
	return &bilinear{
		inH: inH, inW: inW, outH: outH, outW: outW,
		rows: newAxisTaps(inH, outH), cols: newAxisTaps(inW, outW),
		tmp: make([]float32, inH*outW),
	}
}

// resize writes the outH*outW resized image of src (inH*inW, row-major) into
// dst. Interpolating along x first and then along y gives the same result as
// the two-dimensional formula, which is separable.
func (b *bilinear) resize(dst, src []float32) {
	c := b.cols
	for y := 0; y < b.inH; y++ {
		s := src[y*b.inW : (y+1)*b.inW]
		t := b.tmp[y*b.outW : (y+1)*b.outW]
		for j := range t {
			a, w := s[c.i0[j]], c.w1[j]
			t[j] = a + float32(w*(s[c.i1[j]]-a))
		}
	}
	r := b.rows
	for i := 0; i < b.outH; i++ {
		t0 := b.tmp[r.i0[i]*b.outW : (r.i0[i]+1)*b.outW]
		t1 := b.tmp[r.i1[i]*b.outW : (r.i1[i]+1)*b.outW]
		w := r.w1[i]
		d := dst[i*b.outW : (i+1)*b.outW]
		for j := range d {
			d[j] = t0[j] + float32(w*(t1[j]-t0[j]))
		}
	}
}

// toPixel rounds v to the nearest byte value, half up, clamped to [0, 255],
// as an 8-bit image library stores a resized pixel.
func toPixel(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
