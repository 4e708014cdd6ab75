// Saji's Metal kernels: every kernel of gpu.Kernels (kernels/gpu/spec.go),
// with exactly the parameters listed there, bound at [[buffer(0)]],
// [[buffer(1)]], ... in order: pointers as device pointers (the Device binds
// each buffer at its offset), 32-bit integers and floats as constant
// references (the Device sets them with setBytes). The package compiles this
// file at run time (newLibraryWithSource) with fast math off.
//
// The code assumes SIMD groups of 32 threads (the Device refuses a pipeline
// whose threadExecutionWidth is not 32) and the thread-group sizes of the
// spec. Threadgroup arrays are declared at kernel scope, one declaration a
// line ("threadgroup TYPE NAME[N];"): the tests that run these kernels on
// the CPU rely on that form.
//
// Quantized blocks are only 2-byte aligned (18, 34, 210 bytes): their F16
// scales are read byte by byte. F32 activations, F32 and F16 weights, F32
// and F16 caches and the float scales of Q8_K activation blocks (292 bytes)
// are read through typed pointers, so their buffers' offsets must be
// multiples of 4 (2 for F16).

#include <metal_stdlib>
using namespace metal;

// ---------------------------------------------------------------------------
// Helpers.

// load_half reads the little-endian F16 at p (any alignment).
inline float load_half(device const uchar* p) {
    return float(as_type<half>(ushort(ushort(p[0]) | (ushort(p[1]) << 8))));
}

// store_half writes v rounded to F16 (nearest, ties to even) at p.
inline void store_half(device uchar* p, float v) {
    ushort h = as_type<ushort>(half(v));
    p[0] = uchar(h & 0xff);
    p[1] = uchar(h >> 8);
}

// sbyte is the signed value of a byte.
inline int sbyte(uchar v) { return int(v) - (int(v & 0x80) << 1); }

// round_f16 rounds x to the nearest F16 value.
inline float round_f16(float x) { return float(half(x)); }

// sin_cos returns sin(t) and cos(t), reducing t by multiples of π/2 with a
// three-part Cody-Waite constant first, so that RoPE's large angles (up to
// positions of 10^5 radians) keep an absolute error near 1e-7.
inline float2 sin_cos(float t) {
    float k = rint(t * 6.366197467e-01f);
    float r = fma(-k, 1.570796371e+00f, t);
    r = fma(-k, -4.371138829e-08f, r);
    r = fma(-k, -1.715124510e-15f, r);
    float s = precise::sin(r);
    float c = precise::cos(r);
    switch (int(k) & 3) {
    case 0:
        return float2(s, c);
    case 1:
        return float2(c, -s);
    case 2:
        return float2(-s, -c);
    default:
        return float2(-c, s);
    }
}

// ---------------------------------------------------------------------------
// Weight and cache types. deq(T(), row, i) is element i of a row of type T
// that starts at row.

struct F32 {};
struct F16 {};
struct Q4_0 {};
struct Q8_0 {};
struct Q4_K {};
struct Q5_K {};
struct Q6_K {};

inline float deq(F32, device const uchar* row, int i) {
    return ((device const float*)row)[i];
}

inline float deq(F16, device const uchar* row, int i) {
    return float(((device const half*)row)[i]);
}

// Q4_0: 18 bytes per 32 values {f16 d; u8 qs[16]}: value j < 16 is the low
// nibble of qs[j], value j >= 16 the high nibble of qs[j-16]; (q-8)·d.
inline float deq(Q4_0, device const uchar* row, int i) {
    device const uchar* b = row + 18 * (i / 32);
    int j = i % 32;
    int q = j < 16 ? (b[2 + j] & 15) : (b[2 + j - 16] >> 4);
    return float(q - 8) * load_half(b);
}

// Q8_0: 34 bytes per 32 values {f16 d; i8 qs[32]}: qs[j]·d.
inline float deq(Q8_0, device const uchar* row, int i) {
    device const uchar* b = row + 34 * (i / 32);
    return float(sbyte(b[2 + i % 32])) * load_half(b);
}

// scale_min_k4 unpacks the 6-bit scale and min of sub-block j from the 12
// packed bytes q of a Q4_K or Q5_K block.
inline void scale_min_k4(int j, device const uchar* q, thread int& sc, thread int& m) {
    if (j < 4) {
        sc = q[j] & 63;
        m = q[j + 4] & 63;
    } else {
        sc = (q[j + 4] & 15) | ((q[j - 4] >> 6) << 4);
        m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

// Q4_K: 144 bytes per 256 values {f16 d, dmin; u8 scales[12]; u8 qs[128]}
// in 8 sub-blocks of 32: d·sc·q − dmin·m; sub-blocks 2p and 2p+1 share the
// 32 bytes qs[32p..], low nibbles then high nibbles.
inline float deq(Q4_K, device const uchar* row, int i) {
    device const uchar* b = row + 144 * (i / 256);
    int r = i % 256, j = r / 32, l = r % 32;
    int sc, m;
    scale_min_k4(j, b + 4, sc, m);
    int q = (b[16 + 32 * (j / 2) + l] >> (4 * (j % 2))) & 15;
    return load_half(b) * float(sc) * float(q) - load_half(b + 2) * float(m);
}

// Q5_K: 176 bytes per 256 values {f16 d, dmin; u8 scales[12]; u8 qh[32];
// u8 qs[128]}: Q4_K's layout plus bit 4 of value r in bit r/32 of qh[r%32].
inline float deq(Q5_K, device const uchar* row, int i) {
    device const uchar* b = row + 176 * (i / 256);
    int r = i % 256, j = r / 32, l = r % 32;
    int sc, m;
    scale_min_k4(j, b + 4, sc, m);
    int q = ((b[48 + 32 * (j / 2) + l] >> (4 * (j % 2))) & 15) | (((b[16 + l] >> j) & 1) << 4);
    return load_half(b) * float(sc) * float(q) - load_half(b + 2) * float(m);
}

// Q6_K: 210 bytes per 256 values {u8 ql[128]; u8 qh[64]; i8 scales[16];
// f16 d} in 16 sub-blocks of 16: d·scale·(q−32). In each half of 128
// values, ql byte l holds values l (low nibble) and l+64 (high), qh byte l
// bits 4-5 of values l, l+32, l+64, l+96.
inline float deq(Q6_K, device const uchar* row, int i) {
    device const uchar* b = row + 210 * (i / 256);
    int r = i % 256, h = r / 128, rr = r % 128;
    int lo = (b[64 * h + rr % 64] >> (4 * (rr / 64))) & 15;
    int hi = (b[128 + 32 * h + rr % 32] >> (2 * (rr / 32))) & 3;
    int q = (lo | (hi << 4)) - 32;
    return load_half(b + 208) * float(sbyte(b[192 + r / 16])) * float(q);
}

// Q8_K: the activations of K-quant products, 292 bytes per 256 values
// {float d; i8 q[256]; i16 bsums[16]}: q[j]·d.
struct Q8_K {};

inline float deq(Q8_K, device const uchar* row, int i) {
    device const uchar* b = row + 292 * (i / 256);
    return *(device const float*)b * float(sbyte(b[4 + i % 256]));
}

// ---------------------------------------------------------------------------
// The activations of a matrix product (gpu.ActType): act_of(T()) is the
// format of x for weights of type T, deq(act_of(T()), row, i) value i of a
// token row that starts at row, act_row_bytes its length. As ggml's CPU
// backend, F32 weights multiply F32 activations, F16 weights F32 ones
// rounded to F16 (F32H), Q4_0 and Q8_0 weights Q8_0 blocks and the
// K-quants Q8_K blocks (quantize_q8_0, quantize_q8_k).

struct F32H {};

inline float deq(F32H, device const uchar* row, int i) {
    return round_f16(((device const float*)row)[i]);
}

inline F32 act_of(F32) { return F32(); }
inline F32H act_of(F16) { return F32H(); }
inline Q8_0 act_of(Q4_0) { return Q8_0(); }
inline Q8_0 act_of(Q8_0) { return Q8_0(); }
inline Q8_K act_of(Q4_K) { return Q8_K(); }
inline Q8_K act_of(Q5_K) { return Q8_K(); }
inline Q8_K act_of(Q6_K) { return Q8_K(); }

inline ulong act_row_bytes(F32, int k) { return ulong(k) * 4; }
inline ulong act_row_bytes(F32H, int k) { return ulong(k) * 4; }
inline ulong act_row_bytes(Q8_0, int k) { return ulong(k / 32) * 34; }
inline ulong act_row_bytes(Q8_K, int k) { return ulong(k / 256) * 292; }

// The query as attention multiplies it: rounded to F16 over an F16 cache,
// as ggml does.
inline float attn_query(F32, float x) { return x; }
inline float attn_query(F16, float x) { return round_f16(x); }
inline float attn_query(Q8_0, float x) { return x; }

// ---------------------------------------------------------------------------
// Family bodies, instantiated per type by the kernels at the end.

// get_rows: thread group r copies row ids[r] of table, dequantized.
template <typename T>
inline void get_rows_impl(T t, device const uchar* table, device const int* ids, device float* dst,
                          int cols, int row_bytes, uint r, uint tid) {
    device const uchar* row = table + ulong(uint(ids[r])) * ulong(row_bytes);
    device float* out = dst + ulong(r) * ulong(cols);
    for (int i = int(tid); i < cols; i += 256) {
        out[i] = deq(t, row, i);
    }
}

// mul_mat_vec: SIMD group sg of thread group (x, y) takes weight row
// 4x+sg for tokens 8y..8y+7; lane l handles values l, l+32, ... of the
// row, keeping one accumulator per token, and simd_sum adds the lanes.
// x is in the activation format of T (act_of), dequantized as it is read.
template <typename T>
inline void mul_mat_vec_impl(T t, device const uchar* w, device const uchar* x, device float* dst,
                             int k, int m, int n, int row_bytes, uint3 tg, uint sg, uint lane) {
    int row = int(tg.x) * 4 + int(sg);
    if (row >= m) {
        return; // the whole SIMD group
    }
    int t0 = int(tg.y) * 8;
    int nt = min(8, n - t0);
    auto a = act_of(t);
    ulong xrb = act_row_bytes(a, k);
    device const uchar* wr = w + ulong(row) * ulong(row_bytes);
    device const uchar* xr = x + ulong(t0) * xrb;
    float acc[8];
    for (int j = 0; j < 8; ++j) {
        acc[j] = 0.0f;
    }
    for (int i = int(lane); i < k; i += 32) {
        float v = deq(t, wr, i);
        for (int j = 0; j < 8; ++j) {
            if (j < nt) {
                acc[j] = fma(v, deq(a, xr + ulong(j) * xrb, i), acc[j]);
            }
        }
    }
    for (int j = 0; j < 8; ++j) {
        float s = simd_sum(acc[j]);
        if (lane == 0 && j < nt) {
            dst[ulong(t0 + j) * ulong(m) + ulong(row)] = s;
        }
    }
}

// mul_mat: thread group (x, y) computes the 64×64 tile of dst of weight
// rows 64x.. and tokens 64y..; per step of 32 values of k it dequantizes a
// 64×32 tile of w and one of x (in the activation format of T) into
// threadgroup memory (rows padded to 33 floats), and each thread
// accumulates a 4×4 block: weight rows tx+16i, tokens ty+16j.
template <typename T>
inline void mul_mat_impl(T t, device const uchar* w, device const uchar* x, device float* dst,
                         int k, int m, int n, int row_bytes, uint3 tg, uint tid,
                         threadgroup float* ws, threadgroup float* xs) {
    int r0 = int(tg.x) * 64, c0 = int(tg.y) * 64;
    int tx = int(tid) % 16, ty = int(tid) / 16;
    auto a = act_of(t);
    ulong xrb = act_row_bytes(a, k);
    float acc[4][4];
    for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 4; ++i) {
            acc[j][i] = 0.0f;
        }
    }
    for (int kb = 0; kb < k; kb += 32) {
        for (int e = 0; e < 8; ++e) {
            int idx = int(tid) + 256 * e;
            int r = idx / 32, c = idx % 32, kk = kb + c;
            int wr = r0 + r, xr = c0 + r;
            ws[r * 33 + c] = (wr < m && kk < k) ? deq(t, w + ulong(wr) * ulong(row_bytes), kk) : 0.0f;
            xs[r * 33 + c] = (xr < n && kk < k) ? deq(a, x + ulong(xr) * xrb, kk) : 0.0f;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (int c = 0; c < 32; ++c) {
            float a[4], b[4];
            for (int i = 0; i < 4; ++i) {
                a[i] = ws[(tx + 16 * i) * 33 + c];
                b[i] = xs[(ty + 16 * i) * 33 + c];
            }
            for (int j = 0; j < 4; ++j) {
                for (int i = 0; i < 4; ++i) {
                    acc[j][i] = fma(a[i], b[j], acc[j][i]);
                }
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (int j = 0; j < 4; ++j) {
        int tok = c0 + ty + 16 * j;
        for (int i = 0; i < 4; ++i) {
            int row = r0 + tx + 16 * i;
            if (row < m && tok < n) {
                dst[ulong(tok) * ulong(m) + ulong(row)] = acc[j][i];
            }
        }
    }
}

// attention: thread group (h, y) computes head h of slice y % splits of
// query row y / splits's visible cells. Its 4 SIMD groups walk the slice's
// cells first+sg, first+sg+4, ... each with an online softmax (running
// maximum m, sum l, and per lane the values lane+32e of the weighted sum);
// the groups' partial results are combined through threadgroup memory at
// the end, and written to dst (one slice) or, unnormalized, to part for
// attention_merge.
template <typename T>
inline void attention_impl(T t, device const float* q, device const uchar* k, device const uchar* v,
                           device const int* cells, device const int* pos, device float* dst,
                           int heads, int kv_heads, int head_dim, int value_dim,
                           int k_row_bytes, int v_row_bytes, int len, int window,
                           float scale, float softcap, int has_cells,
                           device float* part, int splits,
                           device const float* sinks, int has_sinks,
                           uint3 tg, uint tid, uint sg, uint lane,
                           threadgroup float* qs, threadgroup float* accs,
                           threadgroup float* ms, threadgroup float* ls) {
    int h = int(tg.x), j = int(tg.y) / splits, z = int(tg.y) % splits;
    int kh = h / (heads / kv_heads);
    int p = pos[j];
    int last = min(p, len - 1);
    int first = window > 0 ? max(0, p - window + 1) : 0;
    if (splits > 1 && last >= first) { // this thread group's slice
        int per = (last - first + splits) / splits;
        first += z * per;
        last = min(last, first + per - 1);
    }
    device float* out = dst + (ulong(j) * ulong(heads) + ulong(h)) * ulong(value_dim);
    device float* slice = part + ((ulong(j) * ulong(heads) + ulong(h)) * ulong(splits) + ulong(z)) * ulong(value_dim + 2);
    if (last < first) {
        for (int i = int(tid); i < value_dim; i += 128) {
            if (splits > 1) {
                slice[2 + i] = 0.0f;
            } else {
                out[i] = 0.0f;
            }
        }
        if (splits > 1 && tid == 0) {
            slice[0] = -INFINITY;
            slice[1] = 0.0f;
        }
        return; // the whole thread group
    }
    device const float* qh = q + (ulong(j) * ulong(heads) + ulong(h)) * ulong(head_dim);
    for (int i = int(tid); i < head_dim; i += 128) {
        qs[i] = attn_query(t, qh[i]);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    int koff = kh * head_dim, voff = kh * value_dim;
    float mx = -INFINITY, l = 0.0f;
    float acc[8];
    for (int e = 0; e < 8; ++e) {
        acc[e] = 0.0f;
    }
    for (int c = first + int(sg); c <= last; c += 4) {
        int row = has_cells != 0 ? cells[c] : c;
        device const uchar* kr = k + ulong(uint(row)) * ulong(k_row_bytes);
        float s = 0.0f;
        for (int d = int(lane); d < head_dim; d += 32) {
            s = fma(qs[d], deq(t, kr, koff + d), s);
        }
        s = simd_sum(s);
        if (softcap > 0.0f) {
            s = precise::tanh(s * (1.0f / softcap)) * softcap;
        }
        s *= scale;
        float mn = max(mx, s);
        float corr = precise::exp(mx - mn); // 0 for the first cell
        float pr = precise::exp(s - mn);
        l = fma(l, corr, pr);
        device const uchar* vr = v + ulong(uint(row)) * ulong(v_row_bytes);
        for (int e = 0; e < 8; ++e) {
            int d = int(lane) + 32 * e;
            if (d < value_dim) {
                acc[e] = fma(acc[e], corr, pr * deq(t, vr, voff + d));
            }
        }
        mx = mn;
    }

    if (lane == 0) {
        ms[sg] = mx;
        ls[sg] = l;
    }
    for (int e = 0; e < 8; ++e) {
        int d = int(lane) + 32 * e;
        if (d < value_dim) {
            accs[int(sg) * 256 + d] = acc[e];
        }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float big = max(max(ms[0], ms[1]), max(ms[2], ms[3]));
    // A sink (one slice: attention_merge adds it otherwise) is a score
    // without a value.
    bool sink = splits == 1 && has_sinks != 0;
    if (sink) {
        big = max(big, sinks[h]);
    }
    float f[4];
    float sum = 0.0f;
    for (int g = 0; g < 4; ++g) {
        f[g] = ms[g] == -INFINITY ? 0.0f : precise::exp(ms[g] - big);
        sum = fma(ls[g], f[g], sum);
    }
    if (sink) {
        sum += precise::exp(sinks[h] - big);
    }
    float inv = 1.0f / sum;
    for (int i = int(tid); i < value_dim; i += 128) {
        float o = 0.0f;
        for (int g = 0; g < 4; ++g) {
            if (f[g] != 0.0f) {
                o = fma(accs[g * 256 + i], f[g], o);
            }
        }
        if (splits > 1) {
            slice[2 + i] = o;
        } else {
            out[i] = o * inv;
        }
    }
    if (splits > 1 && tid == 0) {
        slice[0] = big;
        slice[1] = sum;
    }
}

// gelu_f16 is GELU as ggml's CPU backend evaluates it: the tanh
// approximation of the input rounded to F16, rounded to F16; 0 at or below
// -10 and the input at or above 10.
inline float gelu_f16(float x) {
    if (x <= -10.0f) {
        return 0.0f;
    }
    if (x >= 10.0f) {
        return x;
    }
    float h = round_f16(x);
    float g = 0.5f * h * (1.0f + precise::tanh(0.797884561f * h * fma(0.044715f * h, h, 1.0f)));
    return round_f16(g);
}

// ---------------------------------------------------------------------------
// get_rows_T (grid X: ids).

kernel void get_rows_f32(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                         constant int& row_bytes [[buffer(4)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(F32(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

kernel void get_rows_f16(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                         constant int& row_bytes [[buffer(4)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(F16(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

kernel void get_rows_q4_0(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                          device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                          constant int& row_bytes [[buffer(4)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(Q4_0(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

kernel void get_rows_q8_0(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                          device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                          constant int& row_bytes [[buffer(4)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(Q8_0(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

kernel void get_rows_q4_k(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                          device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                          constant int& row_bytes [[buffer(4)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(Q4_K(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

kernel void get_rows_q5_k(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                          device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                          constant int& row_bytes [[buffer(4)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(Q5_K(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

kernel void get_rows_q6_k(device const uchar* table [[buffer(0)]], device const int* ids [[buffer(1)]],
                          device float* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                          constant int& row_bytes [[buffer(4)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    get_rows_impl(Q6_K(), table, ids, dst, cols, row_bytes, tg.x, tid);
}

// ---------------------------------------------------------------------------
// mul_mat_vec_T (4 SIMD groups; grid X: ⌈m/4⌉, Y: ⌈n/8⌉).

kernel void mul_mat_vec_f32(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                            device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                            constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                            constant int& row_bytes [[buffer(6)]],
                            uint3 tg [[threadgroup_position_in_grid]],
                            uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(F32(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

kernel void mul_mat_vec_f16(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                            device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                            constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                            constant int& row_bytes [[buffer(6)]],
                            uint3 tg [[threadgroup_position_in_grid]],
                            uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(F16(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

kernel void mul_mat_vec_q4_0(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                             device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                             constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                             constant int& row_bytes [[buffer(6)]],
                             uint3 tg [[threadgroup_position_in_grid]],
                             uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(Q4_0(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

kernel void mul_mat_vec_q8_0(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                             device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                             constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                             constant int& row_bytes [[buffer(6)]],
                             uint3 tg [[threadgroup_position_in_grid]],
                             uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(Q8_0(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

kernel void mul_mat_vec_q4_k(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                             device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                             constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                             constant int& row_bytes [[buffer(6)]],
                             uint3 tg [[threadgroup_position_in_grid]],
                             uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(Q4_K(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

kernel void mul_mat_vec_q5_k(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                             device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                             constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                             constant int& row_bytes [[buffer(6)]],
                             uint3 tg [[threadgroup_position_in_grid]],
                             uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(Q5_K(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

kernel void mul_mat_vec_q6_k(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                             device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                             constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                             constant int& row_bytes [[buffer(6)]],
                             uint3 tg [[threadgroup_position_in_grid]],
                             uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    mul_mat_vec_impl(Q6_K(), w, x, dst, k, m, n, row_bytes, tg, sg, lane);
}

// ---------------------------------------------------------------------------
// mul_mat_T (256 threads; grid X: ⌈m/64⌉, Y: ⌈n/64⌉).

kernel void mul_mat_f32(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                        device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                        constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                        constant int& row_bytes [[buffer(6)]],
                        uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(F32(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

kernel void mul_mat_f16(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                        device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                        constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                        constant int& row_bytes [[buffer(6)]],
                        uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(F16(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

kernel void mul_mat_q4_0(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                         constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                         constant int& row_bytes [[buffer(6)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(Q4_0(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

kernel void mul_mat_q8_0(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                         constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                         constant int& row_bytes [[buffer(6)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(Q8_0(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

kernel void mul_mat_q4_k(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                         constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                         constant int& row_bytes [[buffer(6)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(Q4_K(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

kernel void mul_mat_q5_k(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                         constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                         constant int& row_bytes [[buffer(6)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(Q5_K(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

kernel void mul_mat_q6_k(device const uchar* w [[buffer(0)]], device const uchar* x [[buffer(1)]],
                         device float* dst [[buffer(2)]], constant int& k [[buffer(3)]],
                         constant int& m [[buffer(4)]], constant int& n [[buffer(5)]],
                         constant int& row_bytes [[buffer(6)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float ws[64 * 33];
    threadgroup float xs[64 * 33];
    mul_mat_impl(Q6_K(), w, x, dst, k, m, n, row_bytes, tg, tid, ws, xs);
}

// ---------------------------------------------------------------------------
// set_rows_T (grid X: rows).

kernel void set_rows_f32(device const float* src [[buffer(0)]], device const int* rows [[buffer(1)]],
                         device uchar* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                         constant int& row_bytes [[buffer(4)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    device const float* s = src + ulong(tg.x) * ulong(cols);
    device float* d = (device float*)(dst + ulong(uint(rows[tg.x])) * ulong(row_bytes));
    for (int i = int(tid); i < cols; i += 256) {
        d[i] = s[i];
    }
}

kernel void set_rows_f16(device const float* src [[buffer(0)]], device const int* rows [[buffer(1)]],
                         device uchar* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                         constant int& row_bytes [[buffer(4)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    device const float* s = src + ulong(tg.x) * ulong(cols);
    device half* d = (device half*)(dst + ulong(uint(rows[tg.x])) * ulong(row_bytes));
    for (int i = int(tid); i < cols; i += 256) {
        d[i] = half(s[i]);
    }
}

// set_rows_q8_0: SIMD group sg quantizes blocks sg, sg+8, ... of the row,
// lane l value l of the block, as ggml's quantize_row_q8_0_ref:
// d = max|x|/127, q = round(x/d) half away from zero, d stored as F16.
kernel void set_rows_q8_0(device const float* src [[buffer(0)]], device const int* rows [[buffer(1)]],
                          device uchar* dst [[buffer(2)]], constant int& cols [[buffer(3)]],
                          constant int& row_bytes [[buffer(4)]],
                          uint3 tg [[threadgroup_position_in_grid]],
                          uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    device const float* s = src + ulong(tg.x) * ulong(cols);
    device uchar* d = dst + ulong(uint(rows[tg.x])) * ulong(row_bytes);
    for (int b = int(sg); b < cols / 32; b += 8) {
        float v = s[32 * b + int(lane)];
        float amax = simd_max(fabs(v));
        float scale = amax / 127.0f;
        float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
        device uchar* blk = d + 34 * b;
        if (lane == 0) {
            store_half(blk, scale);
        }
        blk[2 + lane] = uchar(int(round(v * inv)) & 0xff);
    }
}

// ---------------------------------------------------------------------------
// quantize_q8_0, quantize_q8_k: the activations of quantized matrix
// products in the weight type's dot-product format, byte for byte as ggml's
// CPU backend (and kernels/cpu) makes them.

// quantize_q8_0 (grid X: ⌈nb/8⌉): SIMD group sg of thread group g
// quantizes block 8g+sg, lane l value l: d = max|x|/127 stored as F16
// (nearest, ties to even), q = x·(127/max|x|) rounded half to even (0 when
// max|x| is 0).
kernel void quantize_q8_0(device const float* x [[buffer(0)]], device uchar* dst [[buffer(1)]],
                          constant int& nb [[buffer(2)]],
                          uint3 tg [[threadgroup_position_in_grid]],
                          uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    int b = int(tg.x) * 8 + int(sg);
    if (b >= nb) {
        return; // the whole SIMD group
    }
    float v = x[ulong(b) * 32 + lane];
    float amax = simd_max(fabs(v));
    float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    device uchar* blk = dst + ulong(b) * 34;
    if (lane == 0) {
        store_half(blk, amax / 127.0f);
    }
    blk[2 + lane] = uchar(int(rint(v * id)) & 0xff);
}

// quantize_q8_k (grid X: nb): thread group g quantizes block g, thread t
// value t. The value of largest magnitude (the first one, on ties) max maps
// to −127: iscale = −127/max, q = min(127, x·iscale rounded half to even),
// d = 1/iscale; bsums[i] is the sum of quants 16i..16i+15. A block of zeros
// stays all zeros.
kernel void quantize_q8_k(device const float* x [[buffer(0)]], device uchar* dst [[buffer(1)]],
                          constant int& nb [[buffer(2)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                          uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float amaxs[8];
    threadgroup float firsts[8];
    device const float* xb = x + ulong(tg.x) * 256;
    device uchar* blk = dst + ulong(tg.x) * 292;
    float v = xb[tid];
    float a = fabs(v);
    float gmax = simd_max(a);
    if (lane == 0) {
        amaxs[sg] = gmax;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float amax = amaxs[0];
    for (int g = 1; g < 8; ++g) {
        amax = max(amax, amaxs[g]);
    }
    // The first index holding the largest magnitude (indexes are exact as
    // floats).
    float gfirst = simd_min(a == amax ? float(tid) : 256.0f);
    if (lane == 0) {
        firsts[sg] = gfirst;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float first = firsts[0];
    for (int g = 1; g < 8; ++g) {
        first = min(first, firsts[g]);
    }
    bool zero = !(amax > 0.0f); // a block of zeros (or, never on the CPU, a NaN maximum)
    float maxv = xb[min(int(first), 255)];
    float iscale = zero ? 0.0f : -127.0f / maxv;
    int q = zero ? 0 : int(min(127.0f, rint(iscale * v)));
    blk[4 + tid] = uchar(q & 0xff);
    // The sum of each 16 quants: lanes 0-15 and 16-31 of a SIMD group.
    float s = float(q);
    s += simd_shuffle_xor(s, ushort(1));
    s += simd_shuffle_xor(s, ushort(2));
    s += simd_shuffle_xor(s, ushort(4));
    s += simd_shuffle_xor(s, ushort(8));
    if ((lane & 15) == 0) {
        ((device short*)(blk + 260))[tid / 16] = short(int(s));
    }
    if (tid == 0) {
        *(device float*)blk = zero ? 0.0f : 1.0f / iscale;
    }
}

// ---------------------------------------------------------------------------
// attention_T (4 SIMD groups; grid X: heads, Y: query rows × splits).

kernel void attention_f32(device const float* q [[buffer(0)]], device const uchar* k [[buffer(1)]],
                          device const uchar* v [[buffer(2)]], device const int* cells [[buffer(3)]],
                          device const int* pos [[buffer(4)]], device float* dst [[buffer(5)]],
                          constant int& heads [[buffer(6)]], constant int& kv_heads [[buffer(7)]],
                          constant int& head_dim [[buffer(8)]], constant int& value_dim [[buffer(9)]],
                          constant int& k_row_bytes [[buffer(10)]], constant int& v_row_bytes [[buffer(11)]],
                          constant int& len [[buffer(12)]], constant int& window [[buffer(13)]],
                          constant float& scale [[buffer(14)]], constant float& softcap [[buffer(15)]],
                          constant int& has_cells [[buffer(16)]],
                          device float* part [[buffer(17)]], constant int& splits [[buffer(18)]],
                          device const float* sinks [[buffer(19)]], constant int& has_sinks [[buffer(20)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                          uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float qs[256];
    threadgroup float accs[4 * 256];
    threadgroup float ms[4];
    threadgroup float ls[4];
    attention_impl(F32(), q, k, v, cells, pos, dst, heads, kv_heads, head_dim, value_dim,
                   k_row_bytes, v_row_bytes, len, window, scale, softcap, has_cells,
                   part, splits, sinks, has_sinks, tg, tid, sg, lane, qs, accs, ms, ls);
}

kernel void attention_f16(device const float* q [[buffer(0)]], device const uchar* k [[buffer(1)]],
                          device const uchar* v [[buffer(2)]], device const int* cells [[buffer(3)]],
                          device const int* pos [[buffer(4)]], device float* dst [[buffer(5)]],
                          constant int& heads [[buffer(6)]], constant int& kv_heads [[buffer(7)]],
                          constant int& head_dim [[buffer(8)]], constant int& value_dim [[buffer(9)]],
                          constant int& k_row_bytes [[buffer(10)]], constant int& v_row_bytes [[buffer(11)]],
                          constant int& len [[buffer(12)]], constant int& window [[buffer(13)]],
                          constant float& scale [[buffer(14)]], constant float& softcap [[buffer(15)]],
                          constant int& has_cells [[buffer(16)]],
                          device float* part [[buffer(17)]], constant int& splits [[buffer(18)]],
                          device const float* sinks [[buffer(19)]], constant int& has_sinks [[buffer(20)]],
                          uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                          uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float qs[256];
    threadgroup float accs[4 * 256];
    threadgroup float ms[4];
    threadgroup float ls[4];
    attention_impl(F16(), q, k, v, cells, pos, dst, heads, kv_heads, head_dim, value_dim,
                   k_row_bytes, v_row_bytes, len, window, scale, softcap, has_cells,
                   part, splits, sinks, has_sinks, tg, tid, sg, lane, qs, accs, ms, ls);
}

kernel void attention_q8_0(device const float* q [[buffer(0)]], device const uchar* k [[buffer(1)]],
                           device const uchar* v [[buffer(2)]], device const int* cells [[buffer(3)]],
                           device const int* pos [[buffer(4)]], device float* dst [[buffer(5)]],
                           constant int& heads [[buffer(6)]], constant int& kv_heads [[buffer(7)]],
                           constant int& head_dim [[buffer(8)]], constant int& value_dim [[buffer(9)]],
                           constant int& k_row_bytes [[buffer(10)]], constant int& v_row_bytes [[buffer(11)]],
                           constant int& len [[buffer(12)]], constant int& window [[buffer(13)]],
                           constant float& scale [[buffer(14)]], constant float& softcap [[buffer(15)]],
                           constant int& has_cells [[buffer(16)]],
                          device float* part [[buffer(17)]], constant int& splits [[buffer(18)]],
                          device const float* sinks [[buffer(19)]], constant int& has_sinks [[buffer(20)]],
                           uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                           uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float qs[256];
    threadgroup float accs[4 * 256];
    threadgroup float ms[4];
    threadgroup float ls[4];
    attention_impl(Q8_0(), q, k, v, cells, pos, dst, heads, kv_heads, head_dim, value_dim,
                   k_row_bytes, v_row_bytes, len, window, scale, softcap, has_cells,
                   part, splits, sinks, has_sinks, tg, tid, sg, lane, qs, accs, ms, ls);
}

// ---------------------------------------------------------------------------
// attention_merge: the slices' partial softmaxes of query row j, head h
// (grid X: heads, Y: query rows).

kernel void attention_merge(device const float* part [[buffer(0)]], device float* dst [[buffer(1)]],
                            constant int& heads [[buffer(2)]], constant int& value_dim [[buffer(3)]],
                            constant int& splits [[buffer(4)]], device const float* sinks [[buffer(5)]],
                            constant int& has_sinks [[buffer(6)]],
                            uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int h = int(tg.x), j = int(tg.y);
    device const float* slices = part + (ulong(j) * ulong(heads) + ulong(h)) * ulong(splits) * ulong(value_dim + 2);
    float mx = -INFINITY;
    for (int z = 0; z < splits; ++z) {
        mx = max(mx, slices[z * (value_dim + 2)]);
    }
    float sum = 0.0f;
    if (has_sinks != 0) { // a score without a value
        mx = max(mx, sinks[h]);
        sum = precise::exp(sinks[h] - mx);
    }
    for (int z = 0; z < splits; ++z) {
        device const float* sl = slices + z * (value_dim + 2);
        if (sl[0] != -INFINITY) {
            sum = fma(sl[1], precise::exp(sl[0] - mx), sum);
        }
    }
    device float* out = dst + (ulong(j) * ulong(heads) + ulong(h)) * ulong(value_dim);
    for (int d = int(tid); d < value_dim; d += 256) {
        float num = 0.0f;
        for (int z = 0; z < splits; ++z) {
            device const float* sl = slices + z * (value_dim + 2);
            if (sl[0] != -INFINITY) {
                num = fma(sl[2 + d], precise::exp(sl[0] - mx), num);
            }
        }
        out[d] = sum > 0.0f ? num / sum : 0.0f;
    }
}

// ---------------------------------------------------------------------------
// rms_norm (grid X: groups of n values).

kernel void rms_norm(device const float* x [[buffer(0)]], device const float* w [[buffer(1)]],
                     device float* dst [[buffer(2)]], constant int& n [[buffer(3)]],
                     constant float& eps [[buffer(4)]], constant int& has_w [[buffer(5)]],
                     uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                     uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float part[8];
    device const float* xs = x + ulong(tg.x) * ulong(n);
    device float* ys = dst + ulong(tg.x) * ulong(n);
    float s = 0.0f;
    for (int i = int(tid); i < n; i += 256) {
        s = fma(xs[i], xs[i], s);
    }
    s = simd_sum(s);
    if (lane == 0) {
        part[sg] = s;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float total = 0.0f;
    for (int g = 0; g < 8; ++g) {
        total += part[g];
    }
    float scale = 1.0f / sqrt(total / float(n) + eps);
    for (int i = int(tid); i < n; i += 256) {
        float y = xs[i] * scale;
        if (has_w != 0) {
            y *= w[i];
        }
        ys[i] = y;
    }
}

// ---------------------------------------------------------------------------
// rope (grid X: rows). Pairs are handled 256 at a time: thread p computes
// the angle of pair p0+p (p repeated multiplications by theta_scale, as
// ggml builds it) into threadgroup memory, then the threads rotate that
// chunk's pairs of every head. dst may be x: each value is read and written
// by one thread. With sections (mrope 1: in order, 2: in turn, 3: vision),
// pos holds four positions a row as four runs of rows and each section's
// angle starts at its own position (rope_theta; the CUDA kernel's).

// rope_section is the section (0 to 3) whose position pair p takes.
static int rope_section(int p, int s0, int s1, int s2, int s3, bool interleaved) {
    int sector = p % (s0 + s1 + s2 + s3);
    if (interleaved) {
        if (sector % 3 == 1 && sector < 3 * s1) return 1;
        if (sector % 3 == 2 && sector < 3 * s2) return 2;
        if (sector % 3 == 0 && sector < 3 * s0) return 0;
        return 3;
    }
    if (sector < s0) return 0;
    if (sector < s0 + s1) return 1;
    return sector < s0 + s1 + s2 ? 2 : 3;
}

// rope_restart is the section whose angle the vision mode starts again at
// pair p, or -1.
static int rope_restart(int p, int s0, int s1, int s2, int s3) {
    int sector = p % (s0 + s1 + s2 + s3);
    if (sector == 0) return 0;
    if (sector == s0) return 1;
    if (sector == s0 + s1) return 2;
    return sector == s0 + s1 + s2 ? 3 : -1;
}

// rope_theta is pair p's unscaled angle for row r of rows.
static float rope_theta(device const int* pos, int r, int rows, int p, float theta_scale, int mrope,
                        int s0, int s1, int s2, int s3) {
    if (mrope == 0) {
        float theta = float(pos[r]);
        for (int e = 0; e < p; ++e) {
            theta *= theta_scale;
        }
        return theta;
    }
    float th[4];
    for (int k = 0; k < 4; ++k) {
        th[k] = float(pos[r + k * rows]);
    }
    for (int i = 0;; ++i) {
        if (mrope == 3) {
            int k = rope_restart(i, s0, s1, s2, s3);
            if (k >= 0) {
                th[k] = float(pos[r + k * rows]);
            }
        }
        if (i == p) {
            break;
        }
        for (int k = 0; k < 4; ++k) {
            th[k] *= theta_scale;
        }
    }
    return th[rope_section(p, s0, s1, s2, s3, mrope == 2)];
}

kernel void rope(device const float* x [[buffer(0)]], device float* dst [[buffer(1)]],
                 device const int* pos [[buffer(2)]], device const float* factors [[buffer(3)]],
                 constant int& cols [[buffer(4)]], constant int& head_dim [[buffer(5)]],
                 constant int& dims [[buffer(6)]], constant float& theta_scale [[buffer(7)]],
                 constant float& freq_scale [[buffer(8)]], constant int& neox [[buffer(9)]],
                 constant int& has_factors [[buffer(10)]], constant float& ext_factor [[buffer(11)]],
                 constant float& mscale [[buffer(12)]], constant float& corr_low [[buffer(13)]],
                 constant float& corr_high [[buffer(14)]], constant int& rows [[buffer(15)]],
                 constant int& mrope [[buffer(16)]], constant int& s0 [[buffer(17)]],
                 constant int& s1 [[buffer(18)]], constant int& s2 [[buffer(19)]],
                 constant int& s3 [[buffer(20)]],
                 uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float cs[2 * 256];
    device const float* xr = x + ulong(tg.x) * ulong(cols);
    device float* yr = dst + ulong(tg.x) * ulong(cols);
    // The vision mode turns whole heads: pairs (p, p+dims).
    int turned = mrope == 3 ? 2 * dims : dims;
    int half_dims = turned / 2, heads = cols / head_dim;
    bool nx = neox != 0 || mrope == 3;
    for (int p0 = 0; p0 < half_dims; p0 += 256) {
        int pair = p0 + int(tid);
        if (pair < half_dims) {
            float theta = rope_theta(pos, int(tg.x), rows, pair, theta_scale, mrope, s0, s1, s2, s3);
            if (has_factors != 0) {
                theta /= factors[pair];
            }
            float angle = freq_scale * theta;
            if (ext_factor != 0.0f) { // YaRN: mix in the unscaled angle by the ramp
                float y = min(max((float(pair) - corr_low) / max(0.001f, corr_high - corr_low), 0.0f), 1.0f);
                float mix = (1.0f - y) * ext_factor;
                angle = fma(angle, 1.0f - mix, theta * mix);
            }
            float2 sc = sin_cos(angle);
            cs[2 * tid] = sc.y * mscale;
            cs[2 * tid + 1] = sc.x * mscale;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        int chunk = min(256, half_dims - p0);
        for (int e = int(tid); e < heads * chunk; e += 256) {
            int h = e / chunk, c = e % chunk, pr = p0 + c;
            int i0 = nx ? pr : 2 * pr;
            int i1 = nx ? pr + half_dims : 2 * pr + 1;
            int base = h * head_dim;
            float cosv = cs[2 * c], sinv = cs[2 * c + 1];
            float x0 = xr[base + i0], x1 = xr[base + i1];
            yr[base + i0] = fma(x0, cosv, -(x1 * sinv));
            yr[base + i1] = fma(x0, sinv, x1 * cosv);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    int rest = head_dim - turned;
    if (rest > 0) {
        for (int e = int(tid); e < heads * rest; e += 256) {
            int i = (e / rest) * head_dim + turned + e % rest;
            yr[i] = xr[i];
        }
    }
}

// ---------------------------------------------------------------------------
// Element-wise kernels (grid X: ⌈n/256⌉).

kernel void add(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
                device float* dst [[buffer(2)]], constant int& n [[buffer(3)]], constant int& bn [[buffer(4)]],
                uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        dst[i] = a[i] + b[i % bn];
    }
}

kernel void mul(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
                device float* dst [[buffer(2)]], constant int& n [[buffer(3)]], constant int& bn [[buffer(4)]],
                uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        dst[i] = a[i] * b[i % bn];
    }
}

kernel void scale(device const float* x [[buffer(0)]], device float* dst [[buffer(1)]],
                  constant int& n [[buffer(2)]], constant float& s [[buffer(3)]],
                  uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        dst[i] = x[i] * s;
    }
}

kernel void softcap(device const float* x [[buffer(0)]], device float* dst [[buffer(1)]],
                    constant int& n [[buffer(2)]], constant float& c [[buffer(3)]],
                    uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        dst[i] = precise::tanh(x[i] * (1.0f / c)) * c;
    }
}

kernel void glu_silu(device const float* gate [[buffer(0)]], device const float* up [[buffer(1)]],
                     device float* dst [[buffer(2)]], constant int& n [[buffer(3)]],
                     uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        float g = gate[i];
        dst[i] = g / (1.0f + precise::exp(-g)) * up[i];
    }
}

// glu_swiglu_oai: gpt-oss's clamped SwiGLU (ggml's swiglu_oai, alpha
// 1.702, limit 7).
kernel void glu_swiglu_oai(device const float* gate [[buffer(0)]], device const float* up [[buffer(1)]],
                           device float* dst [[buffer(2)]], constant int& n [[buffer(3)]],
                           uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        float g = gate[i] > 7.0f ? 7.0f : gate[i];
        float u = up[i] < -7.0f ? -7.0f : (up[i] > 7.0f ? 7.0f : up[i]);
        dst[i] = g / (1.0f + precise::exp(1.702f * (-g))) * (u + 1.0f);
    }
}

// glu_relu: ReGLU with a +0 where the gate is not positive (with the
// input as gate and up, Nemotron-H's squared ReLU).
kernel void glu_relu(device const float* gate [[buffer(0)]], device const float* up [[buffer(1)]],
                     device float* dst [[buffer(2)]], constant int& n [[buffer(3)]],
                     uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        float g = gate[i];
        dst[i] = g > 0.0f ? g * up[i] : 0.0f;
    }
}

kernel void glu_gelu(device const float* gate [[buffer(0)]], device const float* up [[buffer(1)]],
                     device float* dst [[buffer(2)]], constant int& n [[buffer(3)]],
                     uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i < n) {
        dst[i] = gelu_f16(gate[i]) * up[i];
    }
}

// ---- Recurrent layers (gpu.Kernels: ssm_scan, gated_delta_net, short_conv).

// softplus is ggml's: x above 20, else log(1+e^x).
inline float softplus(float x) { return x > 20.0f ? x : precise::log(1.0f + precise::exp(x)); }

// ssm_scan: a thread per state row of a head of a sequence (threadgroup
// y), over the sequence's tokens in order.
kernel void ssm_scan(device const float* x [[buffer(0)]], device const float* dt [[buffer(1)]],
                     device const float* a [[buffer(2)]], device const float* b [[buffer(3)]],
                     device const float* c [[buffer(4)]], device float* states [[buffer(5)]],
                     device const int* seqs [[buffer(6)]], device float* y [[buffer(7)]],
                     constant int& heads [[buffer(8)]], constant int& head_dim [[buffer(9)]],
                     constant int& state_dim [[buffer(10)]], constant int& groups [[buffer(11)]],
                     device const float* dt_bias [[buffer(12)]], device const float* d_skip [[buffer(13)]],
                     constant int& has_bias [[buffer(14)]], constant int& has_d [[buffer(15)]],
                     uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i >= heads * head_dim) {
        return;
    }
    int first = seqs[3 * tg.y], tokens = seqs[3 * tg.y + 1], slot = seqs[3 * tg.y + 2];
    int h = i / head_dim, g = h / (heads / groups);
    device float* st = states + (long(slot) * heads * head_dim + i) * state_dim;
    for (int t = 0; t < tokens; t++) {
        int r = first + t;
        float dtv = dt[r * heads + h];
        if (has_bias != 0) {
            dtv += dt_bias[h];
        }
        float d = softplus(dtv);
        float da = precise::exp(d * a[h]);
        float xv = x[long(r) * heads * head_dim + i];
        float xd = xv * d;
        device const float* br = b + (long(r) * groups + g) * state_dim;
        device const float* cr = c + (long(r) * groups + g) * state_dim;
        float sum = 0.0f;
        for (int n = 0; n < state_dim; n++) {
            float bx = br[n] * xd;
            float s = fma(st[n], da, bx);
            st[n] = s;
            sum = fma(s, cr[n], sum);
        }
        if (has_d != 0) {
            float skip = xv * d_skip[h];
            sum += skip;
        }
        y[long(r) * heads * head_dim + i] = sum;
    }
}

// short_conv: a thread per channel of a sequence (threadgroup y): the
// causal depthwise convolution over the sequence's window (its slot's k−1
// rows, then its rows of x), each tap fused into the sum from the oldest,
// then the window's last k−1 rows back to the slot.
kernel void short_conv(device const float* x [[buffer(0)]], device const float* w [[buffer(1)]],
                       device float* states [[buffer(2)]], device const int* seqs [[buffer(3)]],
                       device float* y [[buffer(4)]], constant int& c [[buffer(5)]], constant int& k [[buffer(6)]],
                       uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i >= c) {
        return;
    }
    int first = seqs[3 * tg.y], tokens = seqs[3 * tg.y + 1], slot = seqs[3 * tg.y + 2];
    device float* st = states + long(slot) * (k - 1) * c;
    for (int t = 0; t < tokens; t++) {
        float sum = 0.0f;
        for (int j = 0; j < k; j++) {
            int r = t + j;
            float v = r < k - 1 ? st[long(r) * c + i] : x[long(first + r - (k - 1)) * c + i];
            sum = fma(v, w[long(j) * c + i], sum);
        }
        y[long(first + t) * c + i] = sum;
    }
    for (int m = 0; m < k - 1; m++) {
        int r = tokens + m;
        st[long(m) * c + i] = r < k - 1 ? st[long(r) * c + i] : x[long(first + r - (k - 1)) * c + i];
    }
}

// gated_delta_net: a thread per row of a head's transposed state of a
// sequence (threadgroup y), over the sequence's tokens in order.
kernel void gated_delta_net(device const float* q [[buffer(0)]], device const float* k [[buffer(1)]],
                            device const float* v [[buffer(2)]], device const float* g [[buffer(3)]],
                            device const float* beta [[buffer(4)]], device float* states [[buffer(5)]],
                            device const int* seqs [[buffer(6)]], device float* out [[buffer(7)]],
                            constant int& heads [[buffer(8)]], constant int& k_heads [[buffer(9)]],
                            constant int& head_dim [[buffer(10)]], constant float& scale [[buffer(11)]],
                            constant float& norm_eps [[buffer(12)]], device const float* a [[buffer(13)]],
                            device const float* dt_bias [[buffer(14)]], constant int& has_gate [[buffer(15)]],
                            constant int& has_bias [[buffer(16)]], constant int& beta_logits [[buffer(17)]],
                            uint3 tg [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
    int i = int(tg.x) * 256 + int(tid);
    if (i >= heads * head_dim) {
        return;
    }
    int first = seqs[3 * tg.y], tokens = seqs[3 * tg.y + 1], slot = seqs[3 * tg.y + 2];
    int h = i / head_dim, j = i % head_dim, kh = h % k_heads;
    device float* row = states + (long(slot) * heads * head_dim + i) * head_dim;
    for (int t = 0; t < tokens; t++) {
        int r = first + t;
        device const float* kr = k + (long(r) * k_heads + kh) * head_dim;
        device const float* qr = q + (long(r) * k_heads + kh) * head_dim;
        float ks = 1.0f, qs = 1.0f; // the heads' L2 normalization
        if (norm_eps > 0.0f) {
            float kk = 0.0f, qq = 0.0f;
            for (int n = 0; n < head_dim; n++) {
                kk = fma(kr[n], kr[n], kk);
                qq = fma(qr[n], qr[n], qq);
            }
            ks = 1.0f / max(sqrt(kk), norm_eps);
            qs = 1.0f / max(sqrt(qq), norm_eps);
        }
        float gv = g[r * heads + h], bv = beta[r * heads + h];
        if (has_gate != 0) {
            gv = softplus(has_bias != 0 ? gv + dt_bias[h] : gv) * a[h];
        }
        if (beta_logits != 0) {
            bv = 1.0f / (1.0f + precise::exp(-bv));
        }
        float decay = precise::exp(gv);
        float dot = 0.0f;
        for (int n = 0; n < head_dim; n++) {
            float s = row[n] * decay;
            row[n] = s;
            dot = fma(s, kr[n] * ks, dot);
        }
        float delta = (v[(long(r) * heads + h) * head_dim + j] - dot) * bv;
        float o = 0.0f;
        for (int n = 0; n < head_dim; n++) {
            float s = fma(kr[n] * ks, delta, row[n]);
            row[n] = s;
            o = fma(s, qr[n] * qs, o);
        }
        out[(long(r) * heads + h) * head_dim + j] = o * scale;
    }
}
