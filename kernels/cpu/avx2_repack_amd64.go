package cpu

// The decode tiles of avx2_gemv_amd64.go with the block and group steps as
// arguments (avx2_repack_amd64.s), so that one piece of code reads a weight
// in the file's layout and in the layout interleaved by four rows
// (interleaveRows): the measurement of what repacking weights at load
// gains, with the arithmetic, and so every output bit, unchanged.

// gemvQ4KStepAVX2 is gemvQ4KAVX2 (rows a multiple of four, a.n at least 1)
// with row r's super-block b at a.w + r·a.wstride + b·bstep and each group
// of four rows gstep bytes after the one before.
//
//go:noescape
func gemvQ4KStepAVX2(a *tileArgs, rows, bstep, gstep int)

// gemvQ80StepAVX2 is gemvQ80AVX2 (rows a multiple of four, a.n at least
// 1) with row r's block b at a.w + r·a.wstride + b·bstep and each group of
// four rows gstep bytes after the one before.
//
//go:noescape
func gemvQ80StepAVX2(a *tileArgs, rows, bstep, gstep int)
