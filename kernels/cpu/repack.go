package cpu

// interleaveRows is the number of weight rows an interleaved weight takes
// block by block: groups of four, as ggml's Q4_0x4, Q4_Kx4 and Q8_0x4.
const interleaveRows = 4

// interleave copies m weight rows of rowBytes each, in blocks of
// blockBytes, from src (the file's layout, row after row) to dst (as long)
// with each full group of interleaveRows rows interleaved block by block:
// row 4g+r's block b lands at 4g·rowBytes + (4b + r)·blockBytes, so a
// group's blocks are read as one stream. The m%4 rows after the last group
// are copied as they are. The groups are spread over the backend's threads.
func (b *Backend) interleave(dst, src []byte, m, rowBytes, blockBytes int) {
	groups := m / interleaveRows
	nb := rowBytes / blockBytes
	b.parallel(groups, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			base := g * interleaveRows * rowBytes
			for r := range interleaveRows {
				row := src[base+r*rowBytes : base+(r+1)*rowBytes]
				for k := range nb {
					o := base + (interleaveRows*k+r)*blockBytes
					copy(dst[o:o+blockBytes], row[k*blockBytes:(k+1)*blockBytes])
				}
			}
		}
	})
	tail := groups * interleaveRows * rowBytes
	copy(dst[tail:m*rowBytes], src[tail:m*rowBytes])
}
