// kernels.cu: Saji's GPU kernels, the table kernels/gpu/spec.go lists, with
// exactly its names, parameters and launch geometry. gen.sh compiles this
// file to kernels.ptx, which ships inside the binary; with -DSAJI_CUDA_EMU
// it compiles for the host emulator instead (see prelude.h).
// kernels/metal/kernels.metal ports these kernels to Metal, family by family.
//
// Layout conventions (ggml order): a tensor is rows of values; row r of a
// weight or cache starts row_bytes·r bytes into it, in the block format of
// its type; activations are F32 rows of k (or cols) values. The matrix
// products take the activations in the weight type's dot-product format,
// as ggml's CPU backend does (spec.go ActType): quantize_q8_0 and
// quantize_q8_k convert them first for the quantized weights, F16 weights
// round them to F16 as they read them.
#include "prelude.h"

// Launch geometry, as in spec.go.
#define ELEM_BLOCK 256     // threads of element-wise and row kernels
#define MATVEC_ROWS 4      // weight rows (warps) of a mul_mat_vec block
#define MATVEC_TOKENS 8    // tokens of a mul_mat_vec block
#define TILE_M 64          // weight rows of a mul_mat block
#define TILE_N 64          // tokens of a mul_mat block
#define TILE_K 32          // values of a row per mul_mat step
#define TILE_STRIDE 33     // shared-memory row stride (no bank conflicts)
#define ATTN_WARPS 4       // warps of an attention block
#define ATTN_CELLS 4       // cells a warp takes per step
#define MAX_HEAD_DIM 256   // longest key or value head
#define HEAD_PER_LANE 8    // MAX_HEAD_DIM/32: head values a lane holds
#define ROPE_PAIRS 256     // rotation pairs whose angles a rope block holds at once

DEVFN int imin(int a, int b) { return a < b ? a : b; }
DEVFN int imax(int a, int b) { return a > b ? a : b; }
DEVFN int lane_id() { return (int)(thread_x() % 32u); }
DEVFN int warp_id() { return (int)(thread_x() / 32u); }

// warp_sum returns the sum of v over the 32 lanes of the warp, to every
// lane (all of them must call it).
DEVFN float warp_sum(float v) {
  UNROLL
  for (int o = 16; o > 0; o /= 2) {
    v += shfl_xor(v, o);
  }
  return v;
}

// warp_max returns the largest v of the warp to every lane.
DEVFN float warp_max(float v) {
  UNROLL
  for (int o = 16; o > 0; o /= 2) {
    v = k_max(v, shfl_xor(v, o));
  }
  return v;
}

// block_sum returns the sum of v over the block to every thread, through
// red (one value per warp). Every thread of the block must call it.
DEVFN float block_sum(float v, float* red) {
  v = warp_sum(v);
  if (lane_id() == 0) {
    red[warp_id()] = v;
  }
  sync_threads();
  float s = 0.0f;
  int warps = (int)(block_dim_x() / 32u);
  for (int w = 0; w < warps; w++) {
    s += red[w];
  }
  sync_threads(); // red may be reused
  return s;
}

// block_max returns the largest v of the block to every thread, through
// red (one value per warp). Every thread of the block must call it.
DEVFN float block_max(float v, float* red) {
  v = warp_max(v);
  if (lane_id() == 0) {
    red[warp_id()] = v;
  }
  sync_threads();
  float s = red[0];
  int warps = (int)(block_dim_x() / 32u);
  for (int w = 1; w < warps; w++) {
    s = k_max(s, red[w]);
  }
  sync_threads(); // red may be reused
  return s;
}

// ---- Loads ----

// load_bytes sets q[0..N) to the bytes p[0..N), N 1 or even. It reads
// two bytes at a time: every run of bytes the dequantizers read starts at
// an even offset of a block, and blocks start at even offsets.
template <int N> DEVFN void load_bytes(const unsigned char* p, int* q) {
  UNROLL
  for (int l = 0; l + 1 < N; l += 2) {
    unsigned u = *(const unsigned short*)(p + l);
    q[l] = (int)(u & 255u);
    q[l + 1] = (int)(u >> 8);
  }
  if (N % 2 != 0) {
    q[N - 1] = p[N - 1];
  }
}

// load_bytes4 is load_bytes four bytes at a time, for p 4-byte aligned
// where N >= 4 (the bytes past a multiple of 4 one at a time).
template <int N> DEVFN void load_bytes4(const unsigned char* p, int* q) {
  UNROLL
  for (int l = 0; l + 3 < N; l += 4) {
    unsigned u = *(const unsigned*)(p + l);
    q[l] = (int)(u & 255u);
    q[l + 1] = (int)((u >> 8) & 255u);
    q[l + 2] = (int)((u >> 16) & 255u);
    q[l + 3] = (int)(u >> 24);
  }
  UNROLL
  for (int l = N - N % 4; l < N; l++) {
    q[l] = p[l];
  }
}

// load_words sets w[0..W) to the little-endian 32-bit words at p, which is
// 2-byte aligned: two halves each (the quants of every block format start
// at an even offset).
template <int W> DEVFN void load_words(const unsigned char* p, unsigned* w) {
  const unsigned short* h = (const unsigned short*)p;
  UNROLL
  for (int i = 0; i < W; i++) {
    w[i] = (unsigned)h[2 * i] | (unsigned)h[2 * i + 1] << 16;
  }
}

// load_words4 is load_words for p 4-byte aligned: a word at a time.
template <int W> DEVFN void load_words4(const unsigned char* p, unsigned* w) {
  const unsigned* u = (const unsigned*)p;
  UNROLL
  for (int i = 0; i < W; i++) {
    w[i] = u[i];
  }
}

// load_floats sets out[0..N) to p[0..N), four at a time when ALIGNED (p
// 16-byte aligned, N a multiple of 4).
template <int N, bool ALIGNED> DEVFN void load_floats(const float* p, float* out) {
  if (ALIGNED) {
    UNROLL
    for (int l = 0; l < N; l += 4) {
      float4_v v = *(const float4_v*)(p + l);
      out[l] = v[0];
      out[l + 1] = v[1];
      out[l + 2] = v[2];
      out[l + 3] = v[3];
    }
  } else {
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = p[l];
    }
  }
}

// ---- Integer sub-blocks (mul_mat_vec of the quantized types) ----
//
// mul_mat_vec multiplies a quantized weight row by Q8 activations as ggml's
// dot products do: the int8 quants of a 32-value sub-block, four to a
// 32-bit word (value 4i+b in byte b of word i), are multiplied and summed
// exactly as integers (k_dot4), then scaled in float.

// XSub is a sub-block of activations: its quants, their scale d, and (Q8_K
// only) the sums of its two halves of 16 quants.
struct XSub {
  unsigned q[8];
  float d;
  int sum[2];
};

// WSub is a sub-block of a weight row: its quants and what its type scales
// them by (d and, for the K-quants, 6-bit scales, dmin and a 6-bit min).
struct WSub {
  unsigned q[8];
  float d, dmin;
  int sc[2], m;
};

// dot_words is the integer dot product of the quants of the first n
// words of w and x (n a constant: 8, or 4 for half a sub-block).
DEVFN int dot_words(const unsigned* w, const unsigned* x, int n) {
  int s = 0;
  UNROLL
  for (int i = 0; i < 8; i++) {
    if (i < n) {
      s = k_dot4(w[i], x[i], s);
    }
  }
  return s;
}

// dot_q8 is acc + d_w·d_x·Σ w·x, for Q4_0 and Q8_0 weights.
DEVFN float dot_q8(const WSub& w, const XSub& x, float acc) {
  return k_fma(w.d * x.d, (float)dot_words(w.q, x.q, 8), acc);
}

// dot_k4 is acc + d_x·(d·sc·Σ w·x − dmin·m·Σ x), for Q4_K and Q5_K
// weights (unsigned quants with a minimum).
DEVFN float dot_k4(const WSub& w, const XSub& x, float acc) {
  int isum = w.sc[0] * dot_words(w.q, x.q, 8);
  int msum = w.m * (x.sum[0] + x.sum[1]);
  acc = k_fma((float)isum, w.d * x.d, acc);
  return k_fma(-(float)msum, w.dmin * x.d, acc);
}

// nibbles_to_s8 maps each byte u (0..15) of a word to the signed byte
// u − 8: u + 0x78 stays within its byte, and flipping the top bit
// subtracts 128.
DEVFN unsigned nibbles_to_s8(unsigned u) { return (u + 0x78787878u) ^ 0x80808080u; }

// ---- Dequantization ----
//
// A type is a struct with BLOCK, the values of one of its blocks, and
//
//   template <int N> load(row, i0, out)
//
// setting out[0..N) to values i0..i0+N-1 of a row (its first byte at row).
// N is 1, 8 or 32 and i0 a multiple of N, so the N values lie in one 32-value
// sub-block: i0 & (31 & ~(N−1)), their offset in it, is 0 for N = 32, and
// the compiler sees the positions within the sub-block as constants. Block
// layouts as in kernels/quant; halves are 2-byte aligned in every format.

struct TypeF32 {
  static constexpr int BLOCK = 1;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const float* p = (const float*)row + i0;
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = p[l];
    }
  }
};

struct TypeF16 {
  static constexpr int BLOCK = 1;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const unsigned short* p = (const unsigned short*)row + i0;
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = k_half_to_float(p[l]);
    }
  }
};

// Q4_0: 18 bytes per 32 values {half d; u8 qs[16]}: value j < 16 is
// (qs[j] & 15) − 8, value j >= 16 is (qs[j−16] >> 4) − 8, times d.
struct TypeQ4_0 {
  static constexpr int BLOCK = 32;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 32) * 18;
    int j0 = i0 & (31 & ~(N - 1));
    float d = k_load_half(b);
    const int NB = N < 16 ? N : 16; // bytes: a byte holds values j and j+16
    int q[NB];
    load_bytes<NB>(b + 2 + (j0 & 15), q);
    UNROLL
    for (int l = 0; l < N; l++) { // value j0+l is in byte l & 15 of q
      int v = j0 + l < 16 ? (q[l & 15] & 15) : (q[l & 15] >> 4);
      out[l] = (float)(v - 8) * d;
    }
  }
  // sub sets w to block c: its quants less 8.
  DEVFN void sub(const unsigned char* row, int c, WSub& w) {
    const unsigned char* b = row + c * 18;
    w.d = k_load_half(b);
    unsigned raw[4];
    load_words<4>(b + 2, raw);
    UNROLL
    for (int i = 0; i < 4; i++) {
      w.q[i] = nibbles_to_s8(raw[i] & 0x0f0f0f0fu);
      w.q[4 + i] = nibbles_to_s8((raw[i] >> 4) & 0x0f0f0f0fu);
    }
  }
  DEVFN float dot(const WSub& w, const XSub& x, float acc) { return dot_q8(w, x, acc); }
};

// Q8_0: 34 bytes per 32 values {half d; i8 qs[32]}: value j is qs[j]·d.
struct TypeQ8_0 {
  static constexpr int BLOCK = 32;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 32) * 34;
    int j0 = i0 & (31 & ~(N - 1));
    float d = k_load_half(b);
    int q[N];
    load_bytes<N>(b + 2 + j0, q);
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = (float)(signed char)q[l] * d;
    }
  }
  DEVFN void sub(const unsigned char* row, int c, WSub& w) {
    const unsigned char* b = row + c * 34;
    w.d = k_load_half(b);
    load_words<8>(b + 2, w.q);
  }
  DEVFN float dot(const WSub& w, const XSub& x, float acc) { return dot_q8(w, x, acc); }
};

// scale_min_k4 unpacks the 6-bit scale and min of sub-block j (0..7) of a
// Q4_K or Q5_K block from its 12 packed bytes q: sub-blocks 0-3 in the low
// 6 bits of q[j] (scale) and q[j+4] (min); sub-blocks 4-7 in the nibbles
// of q[j+4], with their top 2 bits in the top bits of q[j−4] and q[j].
DEVFN void scale_min_k4(int j, const unsigned char* q, int* sc, int* m) {
  if (j < 4) {
    *sc = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *sc = (q[j + 4] & 15) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// Q4_K: 144 bytes per 256 values {half d, dmin; u8 scales[12]; u8 qs[128]}
// in 8 sub-blocks of 32: value l of sub-block j is d·sc·q − dmin·m, q in
// the low (j even) or high (j odd) nibbles of qs[32·(j/2) + l].
struct TypeQ4_K {
  static constexpr int BLOCK = 256;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 256) * 144;
    int j = (i0 % 256) / 32;
    int l0 = i0 & (31 & ~(N - 1));
    int sc, m;
    scale_min_k4(j, b + 4, &sc, &m);
    float dj = k_load_half(b) * (float)sc;
    float mj = k_load_half(b + 2) * (float)m;
    int shift = 4 * (j % 2);
    int q[N];
    load_bytes<N>(b + 16 + 32 * (j / 2) + l0, q);
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = k_fma(dj, (float)((q[l] >> shift) & 15), -mj);
    }
  }
  // sub sets w to sub-block c of the row (sub-block c % 8 of block c / 8).
  DEVFN void sub(const unsigned char* row, int c, WSub& w) {
    const unsigned char* b = row + (c / 8) * 144;
    int j = c % 8;
    scale_min_k4(j, b + 4, &w.sc[0], &w.m);
    w.d = k_load_half(b);
    w.dmin = k_load_half(b + 2);
    unsigned raw[8];
    load_words<8>(b + 16 + 32 * (j / 2), raw);
    int shift = 4 * (j % 2);
    UNROLL
    for (int i = 0; i < 8; i++) {
      w.q[i] = (raw[i] >> shift) & 0x0f0f0f0fu;
    }
  }
  DEVFN float dot(const WSub& w, const XSub& x, float acc) { return dot_k4(w, x, acc); }
};

// Q5_K: 176 bytes per 256 values {half d, dmin; u8 scales[12]; u8 qh[32];
// u8 qs[128]}: Q4_K's levels plus a fifth bit, bit j of qh[l] for value l
// of sub-block j.
struct TypeQ5_K {
  static constexpr int BLOCK = 256;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 256) * 176;
    int j = (i0 % 256) / 32;
    int l0 = i0 & (31 & ~(N - 1));
    int sc, m;
    scale_min_k4(j, b + 4, &sc, &m);
    float dj = k_load_half(b) * (float)sc;
    float mj = k_load_half(b + 2) * (float)m;
    int shift = 4 * (j % 2);
    int q[N], qh[N];
    load_bytes<N>(b + 48 + 32 * (j / 2) + l0, q);
    load_bytes<N>(b + 16 + l0, qh);
    UNROLL
    for (int l = 0; l < N; l++) {
      int v = ((q[l] >> shift) & 15) | (((qh[l] >> j) & 1) << 4);
      out[l] = k_fma(dj, (float)v, -mj);
    }
  }
  DEVFN void sub(const unsigned char* row, int c, WSub& w) {
    const unsigned char* b = row + (c / 8) * 176;
    int j = c % 8;
    scale_min_k4(j, b + 4, &w.sc[0], &w.m);
    w.d = k_load_half(b);
    w.dmin = k_load_half(b + 2);
    unsigned raw[8], qh[8];
    load_words<8>(b + 48 + 32 * (j / 2), raw);
    load_words<8>(b + 16, qh);
    int shift = 4 * (j % 2);
    UNROLL
    for (int i = 0; i < 8; i++) {
      w.q[i] = ((raw[i] >> shift) & 0x0f0f0f0fu) | (((qh[i] >> j) & 0x01010101u) << 4);
    }
  }
  DEVFN float dot(const WSub& w, const XSub& x, float acc) { return dot_k4(w, x, acc); }
};

// Q6_K: 210 bytes per 256 values {u8 ql[128]; u8 qh[64]; i8 scales[16];
// half d}: value i (half h = i/128, r = i%128) has low bits
// ql[64h + r%64] >> 4·(r/64), high bits qh[32h + r%32] >> 2·(r/32), and is
// d·scales[i/16]·(q − 32).
struct TypeQ6_K {
  static constexpr int BLOCK = 256;
  template <int N> DEVFN void load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 256) * 210;
    int i = i0 % 256;
    int h = i / 128, r0 = i % 128;
    int lshift = 4 * (r0 / 64), hshift = 2 * (r0 / 32);
    int ql[N], qh[N];
    load_bytes<N>(b + 64 * h + r0 % 64, ql);
    load_bytes<N>(b + 128 + 32 * h + (r0 & (31 & ~(N - 1))), qh);
    float d = k_load_half(b + 208);
    const signed char* scales = (const signed char*)(b + 192);
    UNROLL
    for (int l = 0; l < N; l++) {
      int q = ((ql[l] >> lshift) & 15) | (((qh[l] >> hshift) & 3) << 4);
      float ds = d * (float)scales[(i + l) / 16];
      out[l] = ds * (float)(q - 32);
    }
  }
  // sub sets w to sub-block c with its unsigned 6-bit quants (0..63) and
  // the scales of its two halves; dot takes 32 times the halves' sums off.
  DEVFN void sub(const unsigned char* row, int c, WSub& w) {
    const unsigned char* b = row + (c / 8) * 210;
    int r0 = 32 * (c % 4), h = (c % 8) / 4;
    unsigned ql[8], qh[8];
    load_words<8>(b + 64 * h + r0 % 64, ql);
    load_words<8>(b + 128 + 32 * h, qh);
    int lshift = 4 * (r0 / 64), hshift = 2 * (r0 / 32);
    UNROLL
    for (int i = 0; i < 8; i++) {
      w.q[i] = ((ql[i] >> lshift) & 0x0f0f0f0fu) | (((qh[i] >> hshift) & 0x03030303u) << 4);
    }
    w.d = k_load_half(b + 208);
    w.sc[0] = (signed char)b[192 + 2 * (c % 8)];
    w.sc[1] = (signed char)b[193 + 2 * (c % 8)];
  }
  DEVFN float dot(const WSub& w, const XSub& x, float acc) {
    int s0 = dot_words(w.q, x.q, 4) - 32 * x.sum[0];
    int s1 = dot_words(w.q + 4, x.q + 4, 4) - 32 * x.sum[1];
    return k_fma(w.d * x.d, (float)(w.sc[0] * s0 + w.sc[1] * s1), acc);
  }
};

// ---- Activation formats ----
//
// The formats the matrix products read x in (spec.go ActType). A format is
// a struct with SCALED, row_bytes(k), the bytes of a token's row of k
// values, and
//
//   template <int N, bool ALIGNED> float load(row, i0, out)
//
// setting out[0..N) to values i0..i0+N-1 of a row and returning their
// scale: value = scale·out[l]. The float formats return 1 (SCALED false)
// and read four floats at a time when ALIGNED (row + i0 16-byte aligned,
// N a multiple of 4); the Q8 formats set out to the int8 quants, exact in
// float, and return the block's d (SCALED true), N then 1, 8 or 32 and i0
// a multiple of N, the N values in one block.

struct ActF32 {
  static constexpr bool SCALED = false;
  DEVFN long long row_bytes(int k) { return 4LL * k; }
  template <int N, bool ALIGNED> DEVFN float load(const unsigned char* row, int i0, float* out) {
    load_floats<N, ALIGNED>((const float*)row + i0, out);
    return 1.0f;
  }
};

// ActF16 is F32 activations, each rounded to F16 (for F16 weights).
struct ActF16 {
  static constexpr bool SCALED = false;
  DEVFN long long row_bytes(int k) { return 4LL * k; }
  template <int N, bool ALIGNED> DEVFN float load(const unsigned char* row, int i0, float* out) {
    load_floats<N, ALIGNED>((const float*)row + i0, out);
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = k_round_half(out[l]);
    }
    return 1.0f;
  }
};

// ActQ8_0 is quantize_q8_0's blocks: 34 bytes per 32 values {half d;
// i8 q[32]}.
struct ActQ8_0 {
  static constexpr bool SCALED = true;
  DEVFN long long row_bytes(int k) { return (long long)(k / 32) * 34; }
  template <int N, bool ALIGNED> DEVFN float load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 32) * 34;
    int q[N];
    load_bytes<N>(b + 2 + (i0 & (31 & ~(N - 1))), q);
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = (float)(signed char)q[l];
    }
    return k_load_half(b);
  }
  // sub sets x to block c (no sums: the Q8_0 products need none).
  DEVFN void sub(const unsigned char* row, int c, XSub& x) {
    const unsigned char* b = row + c * 34;
    x.d = k_load_half(b);
    load_words<8>(b + 2, x.q);
    x.sum[0] = x.sum[1] = 0;
  }
};

// ActQ8_K is quantize_q8_k's blocks: 292 bytes per 256 values {float d;
// i8 q[256]; i16 bsums[16]} (the sums are for ggml's integer kernels;
// these products do not need them).
struct ActQ8_K {
  static constexpr bool SCALED = true;
  DEVFN long long row_bytes(int k) { return (long long)(k / 256) * 292; }
  template <int N, bool ALIGNED> DEVFN float load(const unsigned char* row, int i0, float* out) {
    const unsigned char* b = row + (i0 / 256) * 292;
    const unsigned char* p = b + 4 + (i0 % 256);
    int q[N];
    load_bytes4<N>(p, q); // blocks and their quants are 4-byte aligned
    UNROLL
    for (int l = 0; l < N; l++) {
      out[l] = (float)(signed char)q[l];
    }
    return *(const float*)b;
  }
  // sub sets x to sub-block c: quants 32·(c % 8).. of block c / 8, and
  // its two bsums.
  DEVFN void sub(const unsigned char* row, int c, XSub& x) {
    const unsigned char* b = row + (c / 8) * 292;
    x.d = *(const float*)b;
    load_words4<8>(b + 4 + 32 * (c % 8), x.q);
    unsigned sums = *(const unsigned*)(b + 260 + 4 * (c % 8));
    x.sum[0] = (short)(sums & 0xffffu);
    x.sum[1] = (short)(sums >> 16);
  }
};

// ---- get_rows: dst[r] = dequant(table row ids[r]). Grid X: rows. ----

template <class T>
DEVFN void get_rows(const unsigned char* table, const int* ids, float* dst, int cols, int row_bytes) {
  int r = (int)block_x();
  const unsigned char* row = table + (long long)ids[r] * row_bytes;
  float* out = dst + (long long)r * cols;
  int step = (int)block_dim_x();
  if (cols % 8 == 0) {
    for (int p = (int)thread_x(); p < cols / 8; p += step) {
      float v[8];
      T::template load<8>(row, 8 * p, v);
      UNROLL
      for (int e = 0; e < 8; e++) {
        out[8 * p + e] = v[e];
      }
    }
    return;
  }
  for (int e = (int)thread_x(); e < cols; e += step) { // F32, F16 only
    T::template load<1>(row, e, out + e);
  }
}

// ---- mul_mat_vec: dst[j][i] = Σ_l w[i][l]·x[j][l], a warp per row i. ----
//
// Warp w of block (bx, by) takes row bx·MATVEC_ROWS + w and tokens
// by·MATVEC_TOKENS.. (up to MATVEC_TOKENS of them). Its lanes stride over
// the row's 32-value sub-blocks, and for every token accumulate the dot
// product of each sub-block with the token's, then add up across the warp:
// float rows (F32, F16) dequantized into registers and multiplied by float
// activations (format A), quantized rows through integer sub-blocks.

// mat_vec_store adds up the lanes' sums acc of row i for tokens j0.. (nt of
// them) and stores them.
DEVFN void mat_vec_store(const float* acc, int nt, float* dst, int j0, int m, int i) {
  UNROLL
  for (int t = 0; t < MATVEC_TOKENS; t++) {
    if (t < nt) { // the same for every lane
      float s = warp_sum(acc[t]);
      if (lane_id() == 0) {
        dst[(long long)(j0 + t) * m + i] = s;
      }
    }
  }
}

template <class T, class A, bool ALIGNED>
DEVFN void mul_mat_vec_rows(const unsigned char* w, const unsigned char* x, float* dst, int k, int m, int n,
                            int row_bytes) {
  static_assert(!A::SCALED, "float rows take float activations");
  int lane = lane_id();
  int i = (int)block_x() * MATVEC_ROWS + warp_id();
  if (i >= m) {
    return; // the whole warp
  }
  int j0 = (int)block_y() * MATVEC_TOKENS;
  int nt = imin(MATVEC_TOKENS, n - j0);
  const unsigned char* row = w + (long long)i * row_bytes;
  long long xrow = A::row_bytes(k);
  const unsigned char* xs = x + j0 * xrow;
  float acc[MATVEC_TOKENS];
  UNROLL
  for (int t = 0; t < MATVEC_TOKENS; t++) {
    acc[t] = 0.0f;
  }
  int subs = k / 32;
  for (int c = lane; c < subs; c += 32) {
    float v[32];
    T::template load<32>(row, 32 * c, v);
    const unsigned char* xt = xs; // token t's row
    UNROLL
    for (int t = 0; t < MATVEC_TOKENS; t++) {
      if (t < nt) {
        float xv[32];
        A::template load<32, ALIGNED>(xt, 32 * c, xv);
        xt += xrow;
        float s = acc[t];
        UNROLL
        for (int l = 0; l < 32; l++) {
          s = k_fma(v[l], xv[l], s);
        }
        acc[t] = s;
      }
    }
  }
  for (int e = 32 * subs + lane; e < k; e += 32) { // rows of k % 32 != 0
    float v;
    T::template load<1>(row, e, &v);
    UNROLL
    for (int t = 0; t < MATVEC_TOKENS; t++) {
      if (t < nt) {
        float xv;
        A::template load<1, false>(xs + t * xrow, e, &xv);
        acc[t] = k_fma(v, xv, acc[t]);
      }
    }
  }
  mat_vec_store(acc, nt, dst, j0, m, i);
}

// mul_mat_vec, for F32 and F16 rows, reads the activations four floats at
// a time where their rows are 16-byte aligned (x is, and k a multiple of
// 4), one at a time else.
template <class T, class A>
DEVFN void mul_mat_vec(const unsigned char* w, const unsigned char* x, float* dst, int k, int m, int n,
                       int row_bytes) {
  if (((unsigned long long)x & 15u) == 0 && k % 4 == 0) {
    mul_mat_vec_rows<T, A, true>(w, x, dst, k, m, n, row_bytes);
  } else {
    mul_mat_vec_rows<T, A, false>(w, x, dst, k, m, n, row_bytes);
  }
}

// mul_mat_vec_q is mul_mat_vec for quantized rows (k a multiple of 256 or
// 32) and activations in Q8_0 or Q8_K (format A): each lane decodes its
// weight sub-block once (T::sub), then for every token takes the integer
// products with the token's sub-block and scales them (T::dot).
template <class T, class A>
DEVFN void mul_mat_vec_q(const unsigned char* w, const unsigned char* x, float* dst, int k, int m, int n,
                         int row_bytes) {
  int lane = lane_id();
  int i = (int)block_x() * MATVEC_ROWS + warp_id();
  if (i >= m) {
    return; // the whole warp
  }
  int j0 = (int)block_y() * MATVEC_TOKENS;
  int nt = imin(MATVEC_TOKENS, n - j0);
  const unsigned char* row = w + (long long)i * row_bytes;
  long long xrow = A::row_bytes(k);
  const unsigned char* xs = x + j0 * xrow;
  float acc[MATVEC_TOKENS];
  UNROLL
  for (int t = 0; t < MATVEC_TOKENS; t++) {
    acc[t] = 0.0f;
  }
  int subs = k / 32;
  for (int c = lane; c < subs; c += 32) {
    WSub ws;
    T::sub(row, c, ws);
    const unsigned char* xt = xs; // token t's row
    UNROLL
    for (int t = 0; t < MATVEC_TOKENS; t++) {
      if (t < nt) {
        XSub xv;
        A::sub(xt, c, xv);
        xt += xrow;
        acc[t] = T::dot(ws, xv, acc[t]);
      }
    }
  }
  mat_vec_store(acc, nt, dst, j0, m, i);
}

// ---- mul_mat: the same product in 64×64 tiles of dst. ----
//
// Block (bx, by) computes weight rows bx·TILE_M.. for tokens by·TILE_N..,
// TILE_K values of k at a time: its 256 threads dequantize a TILE_M×TILE_K
// slice of w and a TILE_N×TILE_K slice of x (in format A) into shared
// memory (8 values each), then each accumulates a 4×4 tile of dst, rows
// tx+16a and tokens ty+16b (tx = thread%16, ty = thread/16), which keeps
// the shared reads free of bank conflicts.

template <class T, class A>
DEVFN void mul_mat(float* ws, float* xs, const unsigned char* w, const unsigned char* x, float* dst,
                   int k, int m, int n, int row_bytes) {
  int tid = (int)thread_x();
  int i0 = (int)block_x() * TILE_M;
  int j0 = (int)block_y() * TILE_N;
  // What this thread loads: row (or token) lr of the tile, values lp..lp+7
  // of each TILE_K slice.
  int lr = tid / 4, lp = 8 * (tid % 4);
  bool w_ok = i0 + lr < m, x_ok = j0 + lr < n;
  const unsigned char* wrow = w + (w_ok ? (long long)(i0 + lr) * row_bytes : 0);
  const unsigned char* xrow = x + (x_ok ? (j0 + lr) * A::row_bytes(k) : 0);
  int tx = tid % 16, ty = tid / 16;
  float acc[4][4];
  UNROLL
  for (int a = 0; a < 4; a++) {
    UNROLL
    for (int b = 0; b < 4; b++) {
      acc[a][b] = 0.0f;
    }
  }
  for (int k0 = 0; k0 < k; k0 += TILE_K) {
    float v[8];
    if (w_ok && k0 + TILE_K <= k) {
      T::template load<8>(wrow, k0 + lp, v);
    } else {
      UNROLL
      for (int e = 0; e < 8; e++) { // past m, or the F32/F16 tail of k
        v[e] = 0.0f;
        if (w_ok && k0 + lp + e < k) {
          T::template load<1>(wrow, k0 + lp + e, v + e);
        }
      }
    }
    UNROLL
    for (int e = 0; e < 8; e++) {
      ws[lr * TILE_STRIDE + lp + e] = v[e];
    }
    if (x_ok && k0 + TILE_K <= k) {
      float u[8];
      float d = A::template load<8, false>(xrow, k0 + lp, u);
      UNROLL
      for (int e = 0; e < 8; e++) {
        xs[lr * TILE_STRIDE + lp + e] = A::SCALED ? d * u[e] : u[e];
      }
    } else {
      UNROLL
      for (int e = 0; e < 8; e++) { // past n, or the F32/F16 tail of k
        float u = 0.0f;
        if (x_ok && k0 + lp + e < k) {
          float d = A::template load<1, false>(xrow, k0 + lp + e, &u);
          u = A::SCALED ? d * u : u;
        }
        xs[lr * TILE_STRIDE + lp + e] = u;
      }
    }
    sync_threads();
    UNROLL
    for (int kk = 0; kk < TILE_K; kk++) {
      float wv[4], xv[4];
      UNROLL
      for (int a = 0; a < 4; a++) {
        wv[a] = ws[(tx + 16 * a) * TILE_STRIDE + kk];
      }
      UNROLL
      for (int b = 0; b < 4; b++) {
        xv[b] = xs[(ty + 16 * b) * TILE_STRIDE + kk];
      }
      UNROLL
      for (int a = 0; a < 4; a++) {
        UNROLL
        for (int b = 0; b < 4; b++) {
          acc[a][b] = k_fma(wv[a], xv[b], acc[a][b]);
        }
      }
    }
    sync_threads();
  }
  UNROLL
  for (int a = 0; a < 4; a++) {
    UNROLL
    for (int b = 0; b < 4; b++) {
      int i = i0 + tx + 16 * a, j = j0 + ty + 16 * b;
      if (i < m && j < n) {
        dst[(long long)j * m + i] = acc[a][b];
      }
    }
  }
}

// The weight kernels, one set per weight type, with the activation format
// of spec.go's ActType.

#define MUL_MAT_PARAMS \
  const unsigned char *w, const unsigned char *x, float *dst, int k, int m, int n, int row_bytes
#define MUL_MAT_SHARED                   \
  SHARED float ws[TILE_M * TILE_STRIDE]; \
  SHARED float xs[TILE_N * TILE_STRIDE]

// WEIGHT_KERNELS defines get_rows_S, mul_mat_vec_S (through MV) and
// mul_mat_S for weights of type T with activations in format A.
#define WEIGHT_KERNELS(S, T, A, MV)                                                                  \
  KERNEL get_rows_##S(const unsigned char* table, const int* ids, float* dst, int cols, int row_bytes) { \
    get_rows<T>(table, ids, dst, cols, row_bytes);                                                   \
  }                                                                                                  \
  KERNEL mul_mat_vec_##S(MUL_MAT_PARAMS) { MV<T, A>(w, x, dst, k, m, n, row_bytes); }                \
  KERNEL mul_mat_##S(MUL_MAT_PARAMS) {                                                               \
    MUL_MAT_SHARED;                                                                                  \
    mul_mat<T, A>(ws, xs, w, x, dst, k, m, n, row_bytes);                                            \
  }

WEIGHT_KERNELS(f32, TypeF32, ActF32, mul_mat_vec)
WEIGHT_KERNELS(f16, TypeF16, ActF16, mul_mat_vec)
WEIGHT_KERNELS(q4_0, TypeQ4_0, ActQ8_0, mul_mat_vec_q)
WEIGHT_KERNELS(q8_0, TypeQ8_0, ActQ8_0, mul_mat_vec_q)
WEIGHT_KERNELS(q4_k, TypeQ4_K, ActQ8_K, mul_mat_vec_q)
WEIGHT_KERNELS(q5_k, TypeQ5_K, ActQ8_K, mul_mat_vec_q)
WEIGHT_KERNELS(q6_k, TypeQ6_K, ActQ8_K, mul_mat_vec_q)

// ---- set_rows: row rows[r] of dst = src row r converted. Grid X: rows. ----

KERNEL set_rows_f32(const float* src, const int* rows, unsigned char* dst, int cols, int row_bytes) {
  int r = (int)block_x();
  const float* in = src + (long long)r * cols;
  float* out = (float*)(dst + (long long)rows[r] * row_bytes);
  for (int e = (int)thread_x(); e < cols; e += (int)block_dim_x()) {
    out[e] = in[e];
  }
}

KERNEL set_rows_f16(const float* src, const int* rows, unsigned char* dst, int cols, int row_bytes) {
  int r = (int)block_x();
  const float* in = src + (long long)r * cols;
  unsigned short* out = (unsigned short*)(dst + (long long)rows[r] * row_bytes);
  for (int e = (int)thread_x(); e < cols; e += (int)block_dim_x()) {
    out[e] = k_float_to_half(in[e]);
  }
}

// set_rows_q8_0 quantizes as ggml's quantize_row_q8_0 reference: per block
// of 32, d = amax/127, q = round(x·(1/d)) (half away from zero; 0 when d is
// 0), d stored as F16. A warp per block, a lane per value.
KERNEL set_rows_q8_0(const float* src, const int* rows, unsigned char* dst, int cols, int row_bytes) {
  int r = (int)block_x();
  const float* in = src + (long long)r * cols;
  unsigned char* out = dst + (long long)rows[r] * row_bytes;
  int lane = lane_id();
  int warps = (int)(block_dim_x() / 32u);
  for (int b = warp_id(); b < cols / 32; b += warps) {
    float v = in[32 * b + lane];
    float amax = warp_max(k_abs(v));
    float d = amax / 127.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    float q = k_round(v * id);
    unsigned char* blk = out + 34 * b;
    if (lane == 0) {
      *(unsigned short*)blk = k_float_to_half(d);
    }
    blk[2 + lane] = (unsigned char)(signed char)(q == q ? (int)q : 0);
  }
}

// ---- quantize: the activations of a quantized product, in Q8_0 or Q8_K. ----
//
// As ggml's CPU backend quantizes them for its dot products (kernels/cpu,
// actquant.go), bit for bit: the scales are divisions and the quants
// products rounded half to even, each rounded once on both targets.

// q8_quant is the int8 quant of the rounded product r, which is within
// ±127 when finite. Infinities and NaN, from activations too small to
// scale (127/amax overflows) or not finite, give 0, as ggml's reference
// rounding (nearest_int) and the CPU backend on x86-64 do.
DEVFN int q8_quant(float r) { return k_abs(r) <= 127.0f ? (int)r : 0; }

// quantize_q8_0: block b of 32 values (a warp, a lane per value) to
// {half d; i8 q[32]}: amax = max|x|, d = amax/127 rounded to F16, q =
// x·(127/amax) rounded half to even (0 when amax is 0). Grid X: ⌈nb/8⌉.
KERNEL quantize_q8_0(const float* x, unsigned char* dst, int nb) {
  int b = (int)block_x() * (int)(block_dim_x() / 32u) + warp_id();
  if (b >= nb) {
    return; // the whole warp
  }
  int lane = lane_id();
  float v = x[32LL * b + lane];
  float amax = warp_max(k_abs(v));
  float id = amax != 0.0f ? 127.0f / amax : 0.0f;
  unsigned char* blk = dst + 34LL * b;
  if (lane == 0) {
    *(unsigned short*)blk = k_float_to_half(amax / 127.0f);
  }
  blk[2 + lane] = (unsigned char)(signed char)q8_quant(k_rint(v * id));
}

// quantize_q8_k: block b of 256 values (a thread per value) to {float d;
// i8 q[256]; i16 bsums[16]}: the first value of the largest magnitude,
// max, maps to −127: iscale = −127/max, q = min(127, x·iscale rounded half
// to even), d = 1/iscale, bsums[g] = Σ q[16g..16g+15]; all zero when max
// is 0. Grid X: nb; ELEM_BLOCK threads.
KERNEL quantize_q8_k(const float* x, unsigned char* dst, int nb) {
  SHARED float red[ELEM_BLOCK / 32];
  (void)nb; // a block per Q8_K block: the grid is nb wide
  int tid = (int)thread_x();
  const float* xb = x + 256LL * block_x();
  unsigned char* blk = dst + 292LL * block_x();
  float v = xb[tid];
  float amax = block_max(k_abs(v), red);
  // The first value of magnitude amax: the largest −index among them (a
  // NaN amax matches none; index 0 then).
  int first = -(int)block_max(k_abs(v) == amax ? -(float)tid : -256.0f, red);
  float mx = xb[first < 256 ? first : 0];
  float iscale = amax != 0.0f ? -127.0f / mx : 0.0f;
  int q = amax != 0.0f ? q8_quant(k_rint(v * iscale)) : 0;
  blk[4 + tid] = (unsigned char)(signed char)q;
  // The sums of each 16 quants: lanes 0-15 and 16-31 of a warp. Sums of
  // integers this small are exact in float.
  float s = (float)q;
  UNROLL
  for (int o = 1; o < 16; o *= 2) {
    s += shfl_xor(s, o);
  }
  if (tid % 16 == 0) {
    *(short*)(blk + 260 + 2 * (tid / 16)) = (short)(int)s;
  }
  if (tid == 0) {
    *(float*)blk = amax != 0.0f ? 1.0f / iscale : 0.0f;
  }
}

// ---- attention: causal attention of query row j, head h. ----
//
// Grid X: heads, Y: query rows × splits; 4 warps. Block y takes slice
// y % splits of query row y / splits's visible cells. Warp w walks the
// slice's cells first+w, first+w+4, ... (ATTN_CELLS at a time) with an
// online softmax: a running maximum m, the sum l of e^(s−m), and for each
// value the sum of e^(s−m)·v, a lane holding values lane, lane+32, ...; the
// score q·k is summed the same way across the lanes. At the end the warps'
// partial results are combined through shared memory, and written to dst
// (one slice) or, unnormalized, to part for attention_merge.

template <class T>
DEVFN void attention(float* part_m, float* part_l, float* part_acc, const float* q, const unsigned char* kc,
                     const unsigned char* vc, const int* cells, const int* pos, float* dst, int heads,
                     int kv_heads, int head_dim, int value_dim, int k_row_bytes, int v_row_bytes, int len,
                     int window, float scale, float softcap, int has_cells, float* part, int splits,
                     const float* sinks, int has_sinks) {
  int h = (int)block_x(), j = (int)block_y() / splits, z = (int)block_y() % splits;
  int lane = lane_id(), warp = warp_id();
  int kh = h / (heads / kv_heads);
  int p = pos[j];
  int first = window > 0 ? imax(0, p - window + 1) : 0;
  int last = imin(p, len - 1);
  if (splits > 1 && last >= first) { // this block's slice
    int per = (last - first + splits) / splits;
    first += z * per;
    last = imin(last, first + per - 1);
  }
  float* out = dst + ((long long)j * heads + h) * value_dim;
  float* slice = part + (((long long)j * heads + h) * splits + z) * (value_dim + 2);
  if (last < first) { // nothing visible: the same for the whole block
    for (int d = (int)thread_x(); d < value_dim; d += (int)block_dim_x()) {
      if (splits > 1) {
        slice[2 + d] = 0.0f;
      } else {
        out[d] = 0.0f;
      }
    }
    if (splits > 1 && thread_x() == 0) {
      slice[0] = -k_inf();
      slice[1] = 0.0f;
    }
    return;
  }
  const float* qh = q + ((long long)j * heads + h) * head_dim;
  float qv[HEAD_PER_LANE];
  UNROLL
  for (int i = 0; i < HEAD_PER_LANE; i++) {
    int d = lane + 32 * i;
    qv[i] = d < head_dim ? qh[d] : 0.0f;
  }
  int koff = kh * head_dim, voff = kh * value_dim;
  float inv_cap = softcap > 0.0f ? 1.0f / softcap : 0.0f;
  float m = -k_inf(), l = 0.0f;
  float acc[HEAD_PER_LANE];
  UNROLL
  for (int i = 0; i < HEAD_PER_LANE; i++) {
    acc[i] = 0.0f;
  }
  // Each step takes ATTN_CELLS of the warp's cells, c0, c0+4, ..., so that
  // their loads and reductions overlap; cells past last count as −inf.
  for (int c0 = first + warp; c0 <= last; c0 += ATTN_WARPS * ATTN_CELLS) {
    float s[ATTN_CELLS];
    int rows[ATTN_CELLS];
    UNROLL
    for (int u = 0; u < ATTN_CELLS; u++) {
      int c = c0 + u * ATTN_WARPS;
      s[u] = 0.0f;
      rows[u] = 0;
      if (c <= last) { // the same for the whole warp
        rows[u] = has_cells ? cells[c] : c;
        const unsigned char* kr = kc + (long long)rows[u] * k_row_bytes;
        UNROLL
        for (int i = 0; i < HEAD_PER_LANE; i++) {
          int d = lane + 32 * i;
          if (d < head_dim) {
            float kv;
            T::template load<1>(kr, koff + d, &kv);
            s[u] = k_fma(qv[i], kv, s[u]);
          }
        }
      }
    }
    // The scores s·scale, and their largest, mn. The exponents below take
    // s·scale − mn as one fused multiply-add, as ptxas could fuse a product
    // and a subtraction by itself; this way the emulator computes the same.
    float mn = m;
    UNROLL
    for (int u = 0; u < ATTN_CELLS; u++) {
      s[u] = warp_sum(s[u]);
      if (softcap > 0.0f) {
        s[u] = k_tanh(s[u] * inv_cap) * softcap;
      }
      if (c0 + u * ATTN_WARPS <= last) {
        mn = k_max(mn, s[u] * scale);
      }
    }
    float corr = k_exp(m - mn); // 0 at the first step (m = −inf)
    float e[ATTN_CELLS];
    UNROLL
    for (int u = 0; u < ATTN_CELLS; u++) {
      e[u] = c0 + u * ATTN_WARPS <= last ? k_exp(k_fma(s[u], scale, -mn)) : 0.0f;
    }
    l = k_fma(l, corr, e[0]);
    UNROLL
    for (int u = 1; u < ATTN_CELLS; u++) {
      l += e[u];
    }
    UNROLL
    for (int i = 0; i < HEAD_PER_LANE; i++) {
      int d = lane + 32 * i;
      if (d < value_dim) {
        float a = acc[i] * corr;
        UNROLL
        for (int u = 0; u < ATTN_CELLS; u++) {
          if (c0 + u * ATTN_WARPS <= last) {
            float vv;
            T::template load<1>(vc + (long long)rows[u] * v_row_bytes, voff + d, &vv);
            a = k_fma(e[u], vv, a);
          }
        }
        acc[i] = a;
      }
    }
    m = mn;
  }
  // Combine the warps: rescale each to the largest maximum.
  if (lane == 0) {
    part_m[warp] = m;
    part_l[warp] = l;
  }
  UNROLL
  for (int i = 0; i < HEAD_PER_LANE; i++) {
    int d = lane + 32 * i;
    if (d < value_dim) {
      part_acc[warp * MAX_HEAD_DIM + d] = acc[i];
    }
  }
  sync_threads();
  float mx = part_m[0];
  UNROLL
  for (int w = 1; w < ATTN_WARPS; w++) {
    mx = k_max(mx, part_m[w]);
  }
  // A sink (one slice: attention_merge adds it otherwise) is a score
  // without a value.
  float sink = splits == 1 && has_sinks ? sinks[h] : -k_inf();
  mx = k_max(mx, sink);
  float f[ATTN_WARPS];
  float sum = 0.0f;
  UNROLL
  for (int w = 0; w < ATTN_WARPS; w++) {
    f[w] = k_exp(part_m[w] - mx); // 0 for a warp without cells
    sum = k_fma(part_l[w], f[w], sum);
  }
  if (sink != -k_inf()) {
    sum += k_exp(sink - mx);
  }
  for (int d = (int)thread_x(); d < value_dim; d += (int)block_dim_x()) {
    float num = 0.0f;
    UNROLL
    for (int w = 0; w < ATTN_WARPS; w++) {
      num = k_fma(part_acc[w * MAX_HEAD_DIM + d], f[w], num);
    }
    if (splits > 1) {
      slice[2 + d] = num;
    } else {
      out[d] = num / sum;
    }
  }
  if (splits > 1 && thread_x() == 0) {
    slice[0] = mx;
    slice[1] = sum;
  }
}

#define ATTENTION_PARAMS                                                                               \
  const float *q, const unsigned char *k, const unsigned char *v, const int *cells, const int *pos,   \
      float *dst, int heads, int kv_heads, int head_dim, int value_dim, int k_row_bytes,              \
      int v_row_bytes, int len, int window, float scale, float softcap, int has_cells, float *part,  \
      int splits, const float *sinks, int has_sinks
#define ATTENTION_SHARED                            \
  SHARED float part_m[ATTN_WARPS];                  \
  SHARED float part_l[ATTN_WARPS];                  \
  SHARED float part_acc[ATTN_WARPS * MAX_HEAD_DIM]
#define ATTENTION_ARGS                                                                                     \
  part_m, part_l, part_acc, q, k, v, cells, pos, dst, heads, kv_heads, head_dim, value_dim, k_row_bytes, \
      v_row_bytes, len, window, scale, softcap, has_cells, part, splits, sinks, has_sinks

KERNEL attention_f32(ATTENTION_PARAMS) {
  ATTENTION_SHARED;
  attention<TypeF32>(ATTENTION_ARGS);
}
KERNEL attention_f16(ATTENTION_PARAMS) {
  ATTENTION_SHARED;
  attention<TypeF16>(ATTENTION_ARGS);
}
KERNEL attention_q8_0(ATTENTION_PARAMS) {
  ATTENTION_SHARED;
  attention<TypeQ8_0>(ATTENTION_ARGS);
}

// ---- attention_merge: the slices' partial softmaxes of row j, head h. ----

KERNEL attention_merge(const float* part, float* dst, int heads, int value_dim, int splits, const float* sinks,
                       int has_sinks) {
  int h = (int)block_x(), j = (int)block_y();
  const float* slices = part + ((long long)j * heads + h) * splits * (value_dim + 2);
  float mx = -k_inf();
  for (int z = 0; z < splits; z++) {
    mx = k_max(mx, slices[z * (value_dim + 2)]);
  }
  float sum = 0.0f;
  if (has_sinks) { // a score without a value
    mx = k_max(mx, sinks[h]);
    sum = k_exp(sinks[h] - mx);
  }
  for (int z = 0; z < splits; z++) {
    const float* sl = slices + z * (value_dim + 2);
    if (sl[0] != -k_inf()) {
      sum = k_fma(sl[1], k_exp(sl[0] - mx), sum);
    }
  }
  float* out = dst + ((long long)j * heads + h) * value_dim;
  for (int d = (int)thread_x(); d < value_dim; d += (int)block_dim_x()) {
    float num = 0.0f;
    for (int z = 0; z < splits; z++) {
      const float* sl = slices + z * (value_dim + 2);
      if (sl[0] != -k_inf()) {
        num = k_fma(sl[2 + d], k_exp(sl[0] - mx), num);
      }
    }
    out[d] = sum > 0.0f ? num / sum : 0.0f;
  }
}

// ---- rms_norm: y = x/√(mean(x²)+eps)·(has_w ? w : 1) per group of n. ----

KERNEL rms_norm(const float* x, const float* w, float* dst, int n, float eps, int has_w) {
  SHARED float red[ELEM_BLOCK / 32];
  const float* in = x + (long long)block_x() * n;
  float* out = dst + (long long)block_x() * n;
  int step = (int)block_dim_x();
  float s = 0.0f;
  for (int i = (int)thread_x(); i < n; i += step) {
    s = k_fma(in[i], in[i], s);
  }
  s = block_sum(s, red);
  float scale = 1.0f / k_sqrt(s / (float)n + eps);
  for (int i = (int)thread_x(); i < n; i += step) {
    float y = in[i] * scale;
    out[i] = has_w ? y * w[i] : y;
  }
}

// ---- rope: rotate the heads of row r by position pos[r]. Grid X: rows. ----
//
// Pair p (< dims/2) turns by θ_p = pos·theta_scale^p (p float
// multiplications, as ggml), / factors[p] when has_factors, ·freq_scale
// (0 meaning 1); with ext_factor, YaRN mixes freq_scale·θ_p with θ_p by
// the ramp r_p = ext_factor·yarn_ramp(p), and the cosine and sine are
// multiplied by mscale. The pair is (p, p+dims/2) when neox, else
// (2p, 2p+1). The angles of ROPE_PAIRS pairs at a time go through shared
// memory.
//
// With sections (mrope 1: in order, 2: in turn, 3: vision; ggml's
// rope_multi), pos holds four positions a row, as four runs of rows, and
// each section's angle starts at its position and is multiplied by
// theta_scale at every pair, the pair taking its section's (rope_section);
// the vision mode starts a section's angle again where the section starts
// (rope_restart) and turns the pairs (p, p+dims) of whole heads.

// rope_section is the section (0 to 3) whose position pair p takes
// (kernels.RopeParams.Section).
DEVFN int rope_section(int p, int s0, int s1, int s2, int s3, int interleaved) {
  int sector = p % (s0 + s1 + s2 + s3);
  if (interleaved) {
    if (sector % 3 == 1 && sector < 3 * s1) {
      return 1;
    }
    if (sector % 3 == 2 && sector < 3 * s2) {
      return 2;
    }
    if (sector % 3 == 0 && sector < 3 * s0) {
      return 0;
    }
    return 3;
  }
  if (sector < s0) {
    return 0;
  }
  if (sector < s0 + s1) {
    return 1;
  }
  return sector < s0 + s1 + s2 ? 2 : 3;
}

// rope_restart is the section whose angle the vision mode starts again at
// pair p, or -1 (kernels.RopeParams.Restart).
DEVFN int rope_restart(int p, int s0, int s1, int s2, int s3) {
  int sector = p % (s0 + s1 + s2 + s3);
  if (sector == 0) {
    return 0;
  }
  if (sector == s0) {
    return 1;
  }
  if (sector == s0 + s1) {
    return 2;
  }
  return sector == s0 + s1 + s2 ? 3 : -1;
}

// rope_theta is pair p's unscaled angle for row r of rows.
DEVFN float rope_theta(const int* pos, int r, int rows, int p, float theta_scale, int mrope, int s0, int s1, int s2,
                       int s3) {
  if (mrope == 0) {
    float theta = (float)pos[r];
    for (int i = 0; i < p; i++) {
      theta *= theta_scale;
    }
    return theta;
  }
  float th[4];
  for (int k = 0; k < 4; k++) {
    th[k] = (float)pos[r + k * rows];
  }
  for (int i = 0;; i++) {
    if (mrope == 3) {
      int k = rope_restart(i, s0, s1, s2, s3);
      if (k >= 0) {
        th[k] = (float)pos[r + k * rows];
      }
    }
    if (i == p) {
      break;
    }
    for (int k = 0; k < 4; k++) {
      th[k] *= theta_scale;
    }
  }
  return th[rope_section(p, s0, s1, s2, s3, mrope == 2)];
}

// yarn_ramp is YaRN's ramp for pair p: 1 below the correction dim low, 0
// above high, linear between.
DEVFN float yarn_ramp(float low, float high, int p) {
  float y = k_max(0.0f, ((float)p - low) / k_max(0.001f, high - low));
  return 1.0f - (y < 1.0f ? y : 1.0f);
}

KERNEL rope(const float* x, float* dst, const int* pos, const float* factors, int cols, int head_dim, int dims,
            float theta_scale, float freq_scale, int neox, int has_factors, float ext_factor, float mscale,
            float corr_low, float corr_high, int rows, int mrope, int s0, int s1, int s2, int s3) {
  SHARED float cos_p[ROPE_PAIRS];
  SHARED float sin_p[ROPE_PAIRS];
  int r = (int)block_x(), tid = (int)thread_x(), step = (int)block_dim_x();
  const float* in = x + (long long)r * cols;
  float* out = dst + (long long)r * cols;
  // The vision mode turns whole heads: pairs (p, p+dims).
  int turned = mrope == 3 ? 2 * dims : dims;
  int heads = cols / head_dim, pairs = turned / 2;
  if (mrope == 3) {
    neox = 1;
  }
  if (freq_scale == 0.0f) {
    freq_scale = 1.0f;
  }
  for (int p0 = 0; p0 < pairs; p0 += ROPE_PAIRS) {
    int np = imin(ROPE_PAIRS, pairs - p0);
    for (int t = tid; t < np; t += step) {
      float theta = rope_theta(pos, r, rows, p0 + t, theta_scale, mrope, s0, s1, s2, s3);
      if (has_factors) {
        theta /= factors[p0 + t];
      }
      float angle = freq_scale * theta;
      if (ext_factor != 0.0f) {
        float mix = yarn_ramp(corr_low, corr_high, p0 + t) * ext_factor;
        angle = k_fma(angle, 1.0f - mix, theta * mix);
      }
      k_sincos(angle, &sin_p[t], &cos_p[t]);
      sin_p[t] *= mscale;
      cos_p[t] *= mscale;
    }
    sync_threads();
    for (int t = tid; t < heads * np; t += step) {
      int hd = t / np, p = p0 + t % np;
      int i0 = neox ? p : 2 * p;
      int i1 = neox ? p + pairs : 2 * p + 1;
      const float* xh = in + hd * head_dim;
      float x0 = xh[i0], x1 = xh[i1];
      float c = cos_p[t % np], s = sin_p[t % np];
      out[hd * head_dim + i0] = k_fma(x0, c, -(x1 * s));
      out[hd * head_dim + i1] = k_fma(x0, s, x1 * c);
    }
    sync_threads();
  }
  int rest = head_dim - turned;
  for (int t = tid; t < heads * rest; t += step) { // values past the turned ones pass through
    int e = (t / rest) * head_dim + turned + t % rest;
    out[e] = in[e];
  }
}

// ---- Element-wise kernels. Grid X: ⌈n/256⌉. ----

DEVFN int elem_index() { return (int)(block_x() * block_dim_x() + thread_x()); }

KERNEL add(const float* a, const float* b, float* dst, int n, int bn) {
  int i = elem_index();
  if (i < n) {
    dst[i] = a[i] + b[i % bn];
  }
}

KERNEL mul(const float* a, const float* b, float* dst, int n, int bn) {
  int i = elem_index();
  if (i < n) {
    dst[i] = a[i] * b[i % bn];
  }
}

KERNEL scale(const float* x, float* dst, int n, float s) {
  int i = elem_index();
  if (i < n) {
    dst[i] = x[i] * s;
  }
}

// softcap: c·tanh(x/c), computed as tanh(x·(1/c))·c like the CPU backend.
KERNEL softcap(const float* x, float* dst, int n, float c) {
  int i = elem_index();
  if (i < n) {
    dst[i] = k_tanh(x[i] * (1.0f / c)) * c;
  }
}

KERNEL glu_silu(const float* gate, const float* up, float* dst, int n) {
  int i = elem_index();
  if (i < n) {
    float g = gate[i];
    dst[i] = g / (1.0f + k_exp(-g)) * up[i];
  }
}

// glu_swiglu_oai is gpt-oss's clamped SwiGLU (ggml's swiglu_oai, alpha
// 1.702, limit 7): the gate clamped above at 7, the input to [−7, 7],
// gate/(1+e^(−1.702·gate))·(up+1).
KERNEL glu_swiglu_oai(const float* gate, const float* up, float* dst, int n) {
  int i = elem_index();
  if (i < n) {
    float g = gate[i], u = up[i];
    g = g > 7.0f ? 7.0f : g;
    u = u < -7.0f ? -7.0f : (u > 7.0f ? 7.0f : u);
    dst[i] = g / (1.0f + k_exp(1.702f * (-g))) * (u + 1.0f);
  }
}

// glu_relu is ReGLU with a +0 where the gate is not positive: with the
// input as gate and up, Nemotron-H's squared ReLU.
KERNEL glu_relu(const float* gate, const float* up, float* dst, int n) {
  int i = elem_index();
  if (i < n) {
    float g = gate[i];
    dst[i] = g > 0.0f ? g * up[i] : 0.0f;
  }
}

// gelu_f16 is GELU as ggml's CPU backend evaluates it: 0 for x <= −10, x
// for x >= 10, else the tanh approximation of x rounded to F16, its result
// rounded to F16 (ggml looks it up in a table of F16 values).
DEVFN float gelu_f16(float x) {
  if (x <= -10.0f) {
    return 0.0f;
  }
  if (x >= 10.0f) {
    return x;
  }
  const float sqrt_2_over_pi = 0.79788456080286535587989211986876f;
  const float coef_a = 0.044715f;
  float h = k_round_half(x);
  float t = k_tanh(sqrt_2_over_pi * h * k_fma(coef_a * h, h, 1.0f));
  return k_round_half(0.5f * h * (1.0f + t));
}

KERNEL glu_gelu(const float* gate, const float* up, float* dst, int n) {
  int i = elem_index();
  if (i < n) {
    dst[i] = gelu_f16(gate[i]) * up[i];
  }
}

// ---- Recurrent layers (gpu.Kernels: ssm_scan, gated_delta_net).

// softplus is ggml's: x above 20, else log(1+e^x).
DEVFN float softplus(float x) { return x > 20.0f ? x : k_log(1.0f + k_exp(x)); }

// ssm_scan: a thread per state row of a head of a sequence (block y), over
// the sequence's tokens in order.
KERNEL ssm_scan(const float* x, const float* dt, const float* a, const float* b, const float* c,
                float* states, const int* seqs, float* y, int heads, int head_dim, int state_dim, int groups,
                const float* dt_bias, const float* d_skip, int has_bias, int has_d) {
  int i = elem_index();
  if (i >= heads * head_dim) {
    return;
  }
  int first = seqs[3 * block_y()], tokens = seqs[3 * block_y() + 1], slot = seqs[3 * block_y() + 2];
  int h = i / head_dim, g = h / (heads / groups);
  float* st = states + ((long)slot * heads * head_dim + i) * state_dim;
  for (int t = 0; t < tokens; t++) {
    int r = first + t;
    float dtv = dt[r * heads + h];
    if (has_bias) {
      dtv += dt_bias[h];
    }
    float d = softplus(dtv);
    float da = k_exp(d * a[h]);
    float xv = x[(long)r * heads * head_dim + i];
    float xd = xv * d;
    const float* br = b + ((long)r * groups + g) * state_dim;
    const float* cr = c + ((long)r * groups + g) * state_dim;
    float sum = 0.0f;
    for (int n = 0; n < state_dim; n++) {
      float bx = br[n] * xd;
      float s = k_fma(st[n], da, bx);
      st[n] = s;
      sum = k_fma(s, cr[n], sum);
    }
    if (has_d) {
      float skip = xv * d_skip[h];
      sum += skip;
    }
    y[(long)r * heads * head_dim + i] = sum;
  }
}

// short_conv: a thread per channel of a sequence (block y): the causal
// depthwise convolution over the sequence's window (its slot's k−1 rows,
// then its rows of x), each tap fused into the sum from the oldest, then
// the window's last k−1 rows back to the slot (in increasing order, each
// read before it is overwritten).
KERNEL short_conv(const float* x, const float* w, float* states, const int* seqs, float* y, int c, int k) {
  int i = elem_index();
  if (i >= c) {
    return;
  }
  int first = seqs[3 * block_y()], tokens = seqs[3 * block_y() + 1], slot = seqs[3 * block_y() + 2];
  float* st = states + (long)slot * (k - 1) * c;
  for (int t = 0; t < tokens; t++) {
    float sum = 0.0f;
    for (int j = 0; j < k; j++) {
      int r = t + j;
      float v = r < k - 1 ? st[(long)r * c + i] : x[(long)(first + r - (k - 1)) * c + i];
      sum = k_fma(v, w[(long)j * c + i], sum);
    }
    y[(long)(first + t) * c + i] = sum;
  }
  for (int m = 0; m < k - 1; m++) {
    int r = tokens + m;
    st[(long)m * c + i] = r < k - 1 ? st[(long)r * c + i] : x[(long)(first + r - (k - 1)) * c + i];
  }
}

// gated_delta_net: a thread per row of a head's transposed state of a
// sequence (block y), over the sequence's tokens in order.
KERNEL gated_delta_net(const float* q, const float* k, const float* v, const float* g, const float* beta,
                       float* states, const int* seqs, float* out, int heads, int k_heads, int head_dim, float scale,
                       float norm_eps, const float* a, const float* dt_bias, int has_gate, int has_bias, int beta_logits) {
  int i = elem_index();
  if (i >= heads * head_dim) {
    return;
  }
  int first = seqs[3 * block_y()], tokens = seqs[3 * block_y() + 1], slot = seqs[3 * block_y() + 2];
  int h = i / head_dim, j = i % head_dim, kh = h % k_heads;
  float* row = states + ((long)slot * heads * head_dim + i) * head_dim;
  for (int t = 0; t < tokens; t++) {
    int r = first + t;
    const float* kr = k + ((long)r * k_heads + kh) * head_dim;
    const float* qr = q + ((long)r * k_heads + kh) * head_dim;
    float ks = 1.0f, qs = 1.0f; // the heads' L2 normalization
    if (norm_eps > 0.0f) {
      float kk = 0.0f, qq = 0.0f;
      for (int n = 0; n < head_dim; n++) {
        kk = k_fma(kr[n], kr[n], kk);
        qq = k_fma(qr[n], qr[n], qq);
      }
      ks = 1.0f / k_max(k_sqrt(kk), norm_eps);
      qs = 1.0f / k_max(k_sqrt(qq), norm_eps);
    }
    float gv = g[r * heads + h], bv = beta[r * heads + h];
    if (has_gate) {
      gv = softplus(has_bias ? gv + dt_bias[h] : gv) * a[h];
    }
    if (beta_logits) {
      bv = 1.0f / (1.0f + k_exp(-bv));
    }
    float decay = k_exp(gv);
    float dot = 0.0f;
    for (int n = 0; n < head_dim; n++) {
      float s = row[n] * decay;
      row[n] = s;
      dot = k_fma(s, kr[n] * ks, dot);
    }
    float delta = (v[((long)r * heads + h) * head_dim + j] - dot) * bv;
    float o = 0.0f;
    for (int n = 0; n < head_dim; n++) {
      float s = k_fma(kr[n] * ks, delta, row[n]);
      row[n] = s;
      o = k_fma(s, qr[n] * qs, o);
    }
    out[((long)r * heads + h) * head_dim + j] = o * scale;
  }
}
