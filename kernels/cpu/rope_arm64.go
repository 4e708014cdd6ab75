package cpu

// ropeNEON rotates n pairs (a multiple of 4) as ropePairs does from 0 to
// 2n: with half = 0 the adjacent pairs (x[2k], x[2k+1]), otherwise the
// pairs (x[k], x[k+half]), by cs[2k], cs[2k+1]. y may be x.
//
//go:noescape
func ropeNEON(y, x, cs *float32, n int, half int)

// ropeHead rotates the first nd elements of one head x into y as
// ropePairs(y, x, cs, 0, nd, neox) does: NEON for the pairs in fours, Go
// for the rest.
func ropeHead(y, x, cs []float32, nd int, neox bool) {
	n := nd / 2 &^ 3
	if n > 0 {
		_, _, _ = y[nd-1], x[nd-1], cs[nd-1]
		half := 0
		if neox {
			half = nd / 2
		}
		ropeNEON(&y[0], &x[0], &cs[0], n, half)
	}
	ropePairs(y, x, cs, 2*n, nd, neox)
}
