package numerics

import "math"

// Exp returns e**x: math.Exp in the default mode, PortableExp in the
// reference mode.
func Exp(x float64) float64 {
	if IsReference() {
		return PortableExp(x)
	}
	return math.Exp(x)
}

// Log returns the natural logarithm: math.Log in the default mode,
// PortableLog in the reference mode.
func Log(x float64) float64 {
	if IsReference() {
		return PortableLog(x)
	}
	return math.Log(x)
}

// Tanh returns the hyperbolic tangent: math.Tanh in the default mode,
// PortableTanh in the reference mode.
func Tanh(x float64) float64 {
	if IsReference() {
		return PortableTanh(x)
	}
	return math.Tanh(x)
}

// Pow returns x**y: math.Pow in the default mode, PortablePow in the
// reference mode.
func Pow(x, y float64) float64 {
	if IsReference() {
		return PortablePow(x, y)
	}
	return math.Pow(x, y)
}

// ln2 split into a high part whose last 21 significand bits are zero, so
// that k*ln2Hi is exact for |k| < 2**21, and the float64 nearest to the rest
// (ln2 - ln2Hi), which carries ln2 to about 85 bits.
var (
	ln2Hi = math.Float64frombits(0x3fe62e42fee00000)
	ln2Lo = math.Float64frombits(0x3dea39ef35793c76)
)

// expTaylor holds 1/n! for n = 13 down to 0, the coefficients of the Taylor
// polynomial of e**r in Horner order. For |r| <= ln2/2 its truncation error
// is below 5e-18 relative.
var expTaylor = func() [14]float64 {
	var c [14]float64
	f := 1.0
	for n := 1; n <= 13; n++ {
		f *= float64(n)
	}
	for i := range c {
		c[i] = 1 / f
		f /= float64(13 - i)
	}
	return c
}()

// PortableExp returns e**x, within 2 ulp, with the same bits on every
// platform. The steps: k = round(x*log2(e)); r = (x - k*ln2Hi) - k*ln2Lo;
// p = the degree-13 Taylor polynomial of e**r by Horner's rule, every
// product rounded; the result is math.Ldexp(p, k). Overflow gives +Inf,
// underflow 0 (with subnormal results on the way), NaN stays NaN.
func PortableExp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 709.8:
		return math.Inf(1)
	case x < -745.2:
		return 0
	}
	k := math.RoundToEven(float64(x * math.Log2E))
	r := float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo)
	p := expTaylor[0]
	for _, c := range expTaylor[1:] {
		p = float64(p*r) + c
	}
	return math.Ldexp(p, int(k))
}

// PortableExpm1 returns e**x - 1, accurate also for small |x|, with the same
// bits on every platform: for |x| < 0.5 the degree-17 Taylor polynomial
// x + x**2/2! + ... by Horner's rule, every product rounded (truncation
// error below 1e-19 relative); otherwise PortableExp(x) - 1.
func PortableExpm1(x float64) float64 {
	if x != x || math.Abs(x) >= 0.5 {
		return PortableExp(x) - 1
	}
	// p = 1/17!, then p = p*x + 1/n! for n = 16 ... 1; result p*x.
	p := expm1Taylor[0]
	for _, c := range expm1Taylor[1:] {
		p = float64(p*x) + c
	}
	return float64(p * x)
}

// expm1Taylor holds 1/n! for n = 17 down to 1.
var expm1Taylor = func() [17]float64 {
	var c [17]float64
	for i := range c {
		n := 17 - i
		f := 1.0
		for j := 2; j <= n; j++ {
			f *= float64(j)
		}
		c[i] = 1 / f
	}
	return c
}()

// logSeries holds 1/(2n+1) for n = 11 down to 1: log(f) = 2s + 2s*z*t(z)
// with s = (f-1)/(f+1), z = s*s and t(z) = 1/3 + z/5 + z**2/7 + ... For f in
// [sqrt(2)/2, sqrt(2)], z <= 0.0295 and the terms left out are below 1e-18
// relative.
var logSeries = func() [11]float64 {
	var c [11]float64
	for i := range c {
		c[i] = 1 / float64(2*(11-i)+1)
	}
	return c
}()

// PortableLog returns the natural logarithm of x, within 2 ulp, with the
// same bits on every platform. x = f * 2**e with f in [sqrt(2)/2, sqrt(2));
// s = (f-1)/(f+1); log(f) = 2s + 2s*z*t(z) (z = s*s, t the series of
// logSeries by Horner's rule); the result is e*ln2Hi + (e*ln2Lo + log(f)),
// every product rounded. Log(0) is -Inf, the log of a negative number or
// NaN is NaN, Log(+Inf) is +Inf.
func PortableLog(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	f, e := math.Frexp(x) // f in [0.5, 1)
	if f < math.Sqrt2/2 {
		f *= 2
		e--
	}
	u := f - 1 // exact: f is within a factor 2 of 1
	s := u / (2 + u)
	z := float64(s * s)
	t := logSeries[0]
	for _, c := range logSeries[1:] {
		t = float64(t*z) + c
	}
	s2 := 2 * s // exact
	logf := s2 + float64(float64(s2*z)*t)
	fe := float64(e)
	return float64(fe*ln2Hi) + (float64(fe*ln2Lo) + logf)
}

// PortableTanh returns the hyperbolic tangent of x with the same bits on
// every platform: with m = PortableExpm1(2|x|), tanh|x| = m/(m+2), and the
// sign of x restored; |x| > 22 gives ±1 (tanh is 1 to double precision
// there), NaN stays NaN, ±0 stays ±0.
func PortableTanh(x float64) float64 {
	if x != x || x == 0 {
		return x
	}
	a := math.Abs(x)
	var t float64
	if a > 22 {
		t = 1
	} else {
		m := PortableExpm1(2 * a)
		t = m / (m + 2)
	}
	return math.Copysign(t, x)
}

// PortablePow returns x**y with the same bits on every platform. Integer
// exponents with |y| <= 64 multiply by repeated squaring (x**-n = 1/x**n);
// y = 0.5 is math.Sqrt (exact); other exponents of positive x are
// PortableExp(y*PortableLog(x)), whose relative error grows with |y*log x|
// (about (1+|y log x|) * 2**-52). Special cases: x**0 = 1 for any x; 1**y =
// 1; NaN in gives NaN; a negative x with a non-integer y gives NaN; 0**y is
// 0 for y > 0 and +Inf for y < 0 (signed for odd integer y).
func PortablePow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case x != x || y != y:
		return math.NaN()
	case y == 1:
		return x
	case y == 0.5 && x >= 0:
		return math.Sqrt(x)
	}
	isInt := y == math.Trunc(y) && !math.IsInf(y, 0)
	if isInt && math.Abs(y) <= 64 {
		n := int(math.Abs(y))
		r, b := 1.0, x
		for n > 0 {
			if n&1 == 1 {
				r = float64(r * b)
			}
			b = float64(b * b)
			n >>= 1
		}
		if y < 0 {
			return 1 / r
		}
		return r
	}
	if x == 0 || math.IsInf(x, 0) {
		return math.Pow(x, y) // exact special values, no arithmetic
	}
	if x < 0 {
		if !isInt {
			return math.NaN()
		}
		r := PortableExp(float64(y * PortableLog(-x)))
		if math.Mod(y, 2) != 0 {
			return -r
		}
		return r
	}
	return PortableExp(float64(y * PortableLog(x)))
}
