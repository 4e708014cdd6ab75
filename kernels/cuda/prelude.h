// prelude.h: what kernels.cu needs from its target, and the math it shares
// between targets. kernels.cu includes it first.
//
// The same kernels.cu compiles two ways:
//
//   - for the GPU, with clang-14 as CUDA device code for NVPTX (gen.sh),
//     without the CUDA headers or libdevice: the target block below defines
//     the primitives with clang's NVPTX builtins;
//   - for the host, with g++ -std=c++17 -DSAJI_CUDA_EMU, where emu/emu.h
//     defines the same primitives over an emulated grid of thread blocks.
//
// kernels.cu uses nothing target-specific besides these primitives:
//
//   KERNEL       a kernel: extern "C", launched by name
//   DEVFN        a device function (static, inline)
//   SHARED       a block's shared-memory array, declared in a kernel
//   thread_x(), block_x(), block_y(), block_dim_x(), grid_x(), grid_y()
//   sync_threads()            barrier of the block; every thread reaches it
//   shfl_xor(v, lane_mask)    butterfly exchange over the 32 lanes of a warp,
//                             all of them active
//   k_sqrt(x)                 IEEE (correctly rounded) square root
//   k_dot4(a, b, c)           c + the dot product of the four signed bytes
//                             of a and of b (dp4a.s32.s32 on the GPU; plain
//                             C++ for the emulator, defined here beside
//                             emu.h's primitives: integers are exact)
//
// Everything else, exp, tanh, sin/cos and the half-precision conversions, is
// written below once in plain C++, so the emulator computes what the GPU
// computes. On the GPU a product followed by an addition may become one
// fused multiply-add (clang contracts them, CUDA's default, and so may
// ptxas), on the host it does not (g++ for x86-64 without -mfma), so code
// whose rounding matters calls k_fma explicitly and leaves no product
// feeding an addition.
#ifndef SAJI_CUDA_PRELUDE_H
#define SAJI_CUDA_PRELUDE_H

#ifdef SAJI_CUDA_EMU

#include "emu/emu.h"

static inline int k_dot4(unsigned a, unsigned b, int c) {
  for (int i = 0; i < 32; i += 8) {
    c += (int)(signed char)(a >> i) * (int)(signed char)(b >> i);
  }
  return c;
}

#else // NVPTX

#define KERNEL extern "C" __attribute__((global)) void
// Device functions are always inlined, as nvcc does: the dequantizers
// unroll into the loops that call them, keeping their arrays in registers.
#define DEVFN static __attribute__((device)) __attribute__((always_inline)) inline
#define SHARED __attribute__((shared))

DEVFN unsigned thread_x() { return __nvvm_read_ptx_sreg_tid_x(); }
DEVFN unsigned block_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
DEVFN unsigned block_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
DEVFN unsigned block_dim_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
DEVFN unsigned grid_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
DEVFN unsigned grid_y() { return __nvvm_read_ptx_sreg_nctaid_y(); }
DEVFN void sync_threads() { __syncthreads(); }
DEVFN float shfl_xor(float v, int lane_mask) {
  return __nvvm_shfl_sync_bfly_f32(0xffffffffu, v, lane_mask, 0x1f);
}
DEVFN float k_sqrt(float x) { return __nvvm_sqrt_rn_f(x); }
// dp4a (PTX ISA 5.0, sm_61 and later): d = c + Σ a.byte[i]·b.byte[i],
// bytes sign-extended. clang-14 has no builtin for it.
DEVFN int k_dot4(unsigned a, unsigned b, int c) {
  int d;
  asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

#endif // SAJI_CUDA_EMU

// ---- Shared by both targets: plain C++ from here on. ----

// Bits and floats.
DEVFN float k_from_bits(unsigned u) { return __builtin_bit_cast(float, u); }
DEVFN unsigned k_to_bits(float f) { return __builtin_bit_cast(unsigned, f); }

// k_fma is a·b+c rounded once (fma.rn.f32 on the GPU, fmaf on the host).
DEVFN float k_fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }

// UNROLL, before a loop with a constant trip count, unrolls it completely,
// so that the small arrays it indexes live in registers, not local memory.
#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 32")
#endif

// float4_v is four floats read with one load (the GNU vector extension,
// which g++ and clang share); its address must be 16-byte aligned.
typedef float float4_v __attribute__((vector_size(16)));

DEVFN float k_inf() { return __builtin_inff(); }
DEVFN float k_abs(float x) { return k_from_bits(k_to_bits(x) & 0x7fffffffu); }
DEVFN float k_copysign(float mag, float sgn) {
  return k_from_bits((k_to_bits(mag) & 0x7fffffffu) | (k_to_bits(sgn) & 0x80000000u));
}
DEVFN float k_max(float a, float b) { return a > b ? a : b; }

// k_rint rounds to the nearest integer, ties to even: adding and
// subtracting 2^23 leaves no fraction bits. Values of 2^23 and more (and
// NaN, infinities) are integers already.
DEVFN float k_rint(float x) {
  float a = k_abs(x);
  if (a < 8388608.0f) {
    a = (a + 8388608.0f) - 8388608.0f;
    return k_copysign(a, x);
  }
  return x;
}

// k_round rounds half away from zero (C's roundf).
DEVFN float k_round(float x) {
  float a = k_abs(x);
  if (!(a < 8388608.0f)) {
    return x;
  }
  float t = k_rint(a);
  if (t > a) {
    t -= 1.0f; // t = trunc(a)
  }
  if (a - t >= 0.5f) { // exact: t <= a < t+1
    t += 1.0f;
  }
  return k_copysign(t, x);
}

// Half precision (IEEE binary16), as its 16 bits.

// k_half_to_float converts exactly.
DEVFN float k_half_to_float(unsigned short h) {
  unsigned sign = (unsigned)(h & 0x8000u) << 16;
  unsigned em = h & 0x7fffu; // exponent and mantissa
  unsigned exp = em >> 10;
  if (exp - 1u < 30u) { // normal: rebias the exponent by 127 − 15
    return k_from_bits(sign | ((em << 13) + (112u << 23)));
  }
  if (exp == 31u) { // infinity, NaN
    return k_from_bits(sign | 0x7f800000u | ((em & 0x3ffu) << 13));
  }
  // zero or subnormal: mantissa·2^-24, exact in float
  float f = (float)em * 0x1p-24f;
  return sign ? -f : f;
}

// k_float_to_half rounds to nearest, ties to even (as F16C and ggml do);
// too large gives infinity, NaN a quiet NaN with its sign.
DEVFN unsigned short k_float_to_half(float f) {
  unsigned b = k_to_bits(f);
  unsigned sign = (b >> 16) & 0x8000u;
  unsigned a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { // NaN
    return (unsigned short)(sign | 0x7e00u);
  }
  if (a >= 0x477ff000u) { // rounds to 65520 or more: infinity
    return (unsigned short)(sign | 0x7c00u);
  }
  if (a >= 0x38800000u) { // normal half: rebias, round the 13 dropped bits
    unsigned v = a - (112u << 23);
    v += 0xfffu + ((v >> 13) & 1u);
    return (unsigned short)(sign | (v >> 13));
  }
  if (a < 0x33000000u) { // under half the smallest subnormal: zero
    return (unsigned short)sign;
  }
  // subnormal half: the 24-bit significand shifted right by 14..24
  unsigned shift = 126u - (a >> 23);
  unsigned mant = (a & 0x7fffffu) | 0x800000u;
  unsigned q = mant >> shift;
  unsigned rem = mant & ((1u << shift) - 1u);
  unsigned half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) {
    q++;
  }
  return (unsigned short)(sign | q);
}

// k_round_half rounds x to the nearest half-precision value, ties to even:
// k_half_to_float(k_float_to_half(x)) to the bit, in a few float
// operations (the F16 matrix products round every activation they read).
// Adding and subtracting c, 2^13 times the power of two of |x| (at least
// 2^-14, where halves turn subnormal), keeps exactly the bits a half has:
// the sum lies in c's binade, whose spacing is the half's. Magnitudes that
// round to 65520 or more are infinite; NaN stays NaN (k_float_to_half's
// quiet NaN may have another payload).
DEVFN float k_round_half(float x) {
  float a = k_abs(x);
  unsigned e = k_to_bits(a) & 0x7f800000u;
  e = e < 0x38800000u ? 0x38800000u : e; // below 2^-14: steps of 2^-24
  float c = k_from_bits(e + (13u << 23));
  unsigned r = k_to_bits((a + c) - c); // without branches: selected below
  r = a >= 65520.0f ? 0x7f800000u : r;
  return k_from_bits(r | (k_to_bits(x) & 0x80000000u));
}

// k_load_half reads the half at p, which is 2-byte aligned (every half of
// the block formats is).
DEVFN float k_load_half(const unsigned char* p) {
  return k_half_to_float(*(const unsigned short*)p);
}

// k_exp is e^x within about 1 ulp: x = n·ln2 + r with |r| <= ln2/2 (ln2 in
// two parts, so r is exact to float precision), e^r by its Taylor series to
// r^7 (truncation error 5e-9 relative), and 2^n added to the exponent, or
// for results near the ends of the range multiplied in two halves, so that
// subnormal results are rounded once.
DEVFN float k_exp(float x) {
  if (!(x == x)) {
    return x; // NaN
  }
  if (x > 0x1.62e42ep+6f) { // above ln(FLT_MAX)
    return k_inf();
  }
  if (x < -0x1.9fe368p+6f) { // below ln of half the smallest subnormal
    return 0.0f;
  }
  const float log2e = 0x1.715476p+0f;
  const float ln2_hi = 0x1.62e430p-1f;
  const float ln2_lo = -0x1.05c610p-29f;
  float n = k_rint(x * log2e);
  float r = k_fma(-n, ln2_hi, x);
  r = k_fma(-n, ln2_lo, r);
  float p = 1.0f / 5040.0f;
  p = k_fma(p, r, 1.0f / 720.0f);
  p = k_fma(p, r, 1.0f / 120.0f);
  p = k_fma(p, r, 1.0f / 24.0f);
  p = k_fma(p, r, 1.0f / 6.0f);
  p = k_fma(p, r, 0.5f);
  p = k_fma(p, r, 1.0f);
  p = k_fma(p, r, 1.0f);
  int e = (int)n; // -150..128
  if (e >= -125 && e <= 127) {
    // A normal result (p is in [0.70, 1.42]): add e to p's exponent.
    return k_from_bits(k_to_bits(p) + ((unsigned)e << 23));
  }
  int e1 = e / 2;
  int e2 = e - e1;
  p *= k_from_bits((unsigned)(e1 + 127) << 23); // exact
  return p * k_from_bits((unsigned)(e2 + 127) << 23);
}

// k_log is the natural logarithm of a positive normal x within about 2
// ulp: x = m·2^e with m in [√½, √2), log m = 2·atanh(s) with
// s = (m−1)/(m+1) (|s| <= 0.172) by its series to s^9 (truncation error
// 2e-9 relative), plus e·ln2 with ln2 in two parts.
DEVFN float k_log(float x) {
  unsigned u = k_to_bits(x);
  int e = (int)((u >> 23) & 0xffu) - 127;
  float m = k_from_bits((u & 0x007fffffu) | 0x3f800000u); // [1, 2)
  if (m > 0x1.6a09e6p+0f) { // √2
    m *= 0.5f;
    e += 1;
  }
  float s = (m - 1.0f) / (m + 1.0f);
  float s2 = s * s;
  float p = k_fma(s2, 1.0f / 9.0f, 1.0f / 7.0f);
  p = k_fma(p, s2, 1.0f / 5.0f);
  p = k_fma(p, s2, 1.0f / 3.0f);
  p = k_fma(p, s2, 1.0f);
  const float ln2_hi = 0x1.62e430p-1f;
  const float ln2_lo = -0x1.05c610p-29f;
  float fe = (float)e;
  return k_fma(fe, ln2_hi, k_fma(fe, ln2_lo, 2.0f * s * p));
}

// k_tanh is tanh(x) within about 2 ulp: an odd polynomial (fitted to
// tanh(x)/x on |x| < 0.55, error 4e-10) for small |x|, 1 − 2/(e^{2|x|}+1)
// above, where the result is at least 0.5 and the subtraction loses little.
DEVFN float k_tanh(float x) {
  float a = k_abs(x);
  if (a < 0.55f) {
    // tanh(x) = x + x³·g(x²)
    float t = x * x;
    float g = 0x1.4b239ap-9f;
    g = k_fma(g, t, -0x1.176410p-7f);
    g = k_fma(g, t, 0x1.657936p-6f);
    g = k_fma(g, t, -0x1.ba142ep-5f);
    g = k_fma(g, t, 0x1.111104p-3f);
    g = k_fma(g, t, -0x1.555556p-2f);
    return k_copysign(k_fma(x * t, g, x), x); // keeps −0
  }
  float e = k_exp(2.0f * a); // inf for large a: the result is 1
  float y = 1.0f - 2.0f / (e + 1.0f);
  return k_copysign(y, x); // NaN stays NaN
}

// k_sincos sets *s = sin(x), *c = cos(x), accurate to about 1e-7 absolute
// for |x| up to 1e6 (RoPE's angles are positions times frequencies): x
// less the nearest multiple n of π/2, with π/2 in three parts (72 bits) and
// fused multiply-adds, then Taylor series on |r| <= π/4 (truncation errors
// 2e-9 and 1e-10), and the quadrant n mod 4 picking and signing them.
DEVFN void k_sincos(float x, float* s, float* c) {
  const float two_over_pi = 0x1.45f306p-1f;
  const float pio2_1 = 0x1.921fb6p+0f;
  const float pio2_2 = -0x1.777a5cp-25f;
  const float pio2_3 = -0x1.ee59dap-50f;
  float n = k_rint(x * two_over_pi);
  float r = k_fma(-n, pio2_1, x);
  r = k_fma(-n, pio2_2, r);
  r = k_fma(-n, pio2_3, r);
  float t = r * r;
  float ps = 1.0f / 362880.0f;
  ps = k_fma(ps, t, -1.0f / 5040.0f);
  ps = k_fma(ps, t, 1.0f / 120.0f);
  ps = k_fma(ps, t, -1.0f / 6.0f);
  float sr = k_fma(r * t, ps, r);
  float pc = -1.0f / 3628800.0f;
  pc = k_fma(pc, t, 1.0f / 40320.0f);
  pc = k_fma(pc, t, -1.0f / 720.0f);
  pc = k_fma(pc, t, 1.0f / 24.0f);
  pc = k_fma(pc, t, -0.5f);
  float cr = k_fma(pc, t, 1.0f);
  // The quadrant is n mod 4; beyond 2^30 (and for infinities, NaN) the
  // angle has no meaning left in float.
  if (!(k_abs(n) < 0x1p+30f)) {
    *s = *c = k_from_bits(0x7fc00000u);
    return;
  }
  int q = (int)n & 3;
  if (q == 0) {
    *s = sr;
    *c = cr;
  } else if (q == 1) {
    *s = cr;
    *c = -sr;
  } else if (q == 2) {
    *s = -sr;
    *c = -cr;
  } else {
    *s = -cr;
    *c = sr;
  }
}

#endif // SAJI_CUDA_PRELUDE_H
