package kernel

// The Winograd filter transform U = G g Gᵀ and its adjoint dg = Gᵀ dU G for
// blocks of filters, in float64 with every product rounded before it is
// added and the sums taken in a fixed order: the operations of Comb3,
// Comb3To32, AddScaled and AddWidened applied to the rows of a block, done
// for four filters at a time without leaving the registers. G is a x 3
// (a = 6 or 7), given as its rows one after the other.
//
// Both take the filters' 3x3 values in groups of four filters: value e =
// 3i+j of filter k of the block at index (k/4)*36 + 4e + k%4 (a last group
// of fewer filters keeps the layout of a whole one).

// FilterTransform sets, for the n filters of the block g (values as
// above, widened to float64), the a*a values of G g Gᵀ,
// position (p, q) of filter k at u[(a*p+q)*stride+k]:
//
//	t[p][j] = G[p][0]*g[j] + G[p][1]*g[3+j] + G[p][2]*g[6+j]                    // Comb3
//	u[(a*p+q)*stride+k] = float32(G[q][0]*t[p][0] + G[q][1]*t[p][1] + G[q][2]*t[p][2])  // Comb3To32
func FilterTransform(u []float32, stride int, g []float64, n int, gm []float64) {
	a := len(gm) / 3
	checkFilterTransform(n, a, len(gm), len(g))
	if n == 0 {
		return
	}
	_ = u[(a*a-1)*stride+n-1]
	from := 0
	if useAsm32() && n >= 4 {
		if pairs := filterPairs(n); pairs > 0 {
			filterTransformAVX512(&u[0], stride, &g[0], pairs, &gm[0], a)
			from = 8 * pairs
		}
		if from+4 <= n {
			filterTransformAVX2(&u[from], stride, &g[from/4*36], (n-from)/4, &gm[0], a)
			from = n &^ 3
		}
	}
	filterTransformGo(u, stride, g, from, n, gm)
}

// FilterTransformAdj sets, for the n filters of a block, the adjoint of FilterTransform of the sum of the partial sums dus,
// each laid out as FilterTransform's u (stride apart): value e = 3r+c of
// filter k at out[(k/4)*36 + 4e + k%4], with, for each filter,
//
//	x[p][q] = 0 + float64(dus[0][(a*p+q)*stride+k]) + float64(dus[1][...]) + ...  // AddWidened
//	t[q][r] = 0 + G[0][r]*x[0][q] + G[1][r]*x[1][q] + ... + G[a-1][r]*x[a-1][q]    // AddScaled over p
//	out[e]  = float32(0 + G[0][c]*t[0][r] + G[1][c]*t[1][r] + ... + G[a-1][c]*t[a-1][r])
//
// each product rounded, the sums left to right.
func FilterTransformAdj(out []float32, dus [][]float32, stride, n int, gm []float64) {
	a := len(gm) / 3
	checkFilterTransform(n, a, len(gm), len(out))
	if n == 0 {
		return
	}
	for _, du := range dus {
		_ = du[(a*a-1)*stride+n-1]
	}
	from := 0
	if useAsm32() && n >= 4 && (len(dus) == 1 || len(dus) == 2) {
		var du1 *float32
		if len(dus) == 2 {
			du1 = &dus[1][0]
		}
		if pairs := filterPairs(n); pairs > 0 {
			filterTransformAdjAVX512(&out[0], &dus[0][0], du1, stride, pairs, &gm[0], a)
			from = 8 * pairs
		}
		if from+4 <= n {
			if du1 != nil {
				du1 = &dus[1][from]
			}
			filterTransformAdjAVX2(&out[from/4*36], &dus[0][from], du1, stride, (n-from)/4, &gm[0], a)
			from = n &^ 3
		}
	}
	filterTransformAdjGo(out, dus, stride, from, n, gm)
}

// filterPairs returns the pairs of groups of four filters that the AVX-512
// filter transforms take of n filters, or 0 when they are not in use; the
// AVX2 ones take a group left over.
func filterPairs(n int) int {
	if current.Load() != implAVX512 {
		return 0
	}
	return n / 8
}

// checkFilterTransform panics unless G has 6 or 7 rows of 3 and the block
// of lb values holds n filters in groups of 4.
func checkFilterTransform(n, a, lg, lb int) {
	if n < 0 || (a != 6 && a != 7) || lg != 3*a || lb < (n+3)/4*36 {
		panic(errLenMismatch)
	}
}

// filterTransformGo is FilterTransform for the filters [from, n), and
// filterTransformAVX2's reference.
func filterTransformGo(u []float32, stride int, g []float64, from, n int, gm []float64) {
	a := len(gm) / 3
	G := func(p, i int) float64 { return gm[3*p+i] }
	for k := from; k < n; k++ {
		gv := func(e int) float64 { return g[(k/4)*36+4*e+k%4] }
		for p := 0; p < a; p++ {
			var t [3]float64
			for j := range 3 {
				t[j] = float64(G(p, 0)*gv(j)) + float64(G(p, 1)*gv(3+j)) + float64(G(p, 2)*gv(6+j))
			}
			for q := 0; q < a; q++ {
				u[(a*p+q)*stride+k] = float32(float64(G(q, 0)*t[0]) + float64(G(q, 1)*t[1]) + float64(G(q, 2)*t[2]))
			}
		}
	}
}

// filterTransformAdjGo is FilterTransformAdj for the filters [from, n),
// and filterTransformAdjAVX2's reference.
func filterTransformAdjGo(out []float32, dus [][]float32, stride, from, n int, gm []float64) {
	a := len(gm) / 3
	G := func(p, i int) float64 { return gm[3*p+i] }
	for k := from; k < n; k++ {
		var s [9]float64
		for q := 0; q < a; q++ {
			var t [3]float64
			for p := 0; p < a; p++ {
				var x float64
				for _, du := range dus {
					x += float64(du[(a*p+q)*stride+k])
				}
				for r := range 3 {
					t[r] += float64(G(p, r) * x)
				}
			}
			for r := range 3 {
				for c := range 3 {
					s[3*r+c] += float64(G(q, c) * t[r])
				}
			}
		}
		for e, v := range s {
			out[(k/4)*36+4*e+k%4] = float32(v)
		}
	}
}
