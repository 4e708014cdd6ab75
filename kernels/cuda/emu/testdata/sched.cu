// sched.cu: kernels that exercise the emulator's scheduler (barriers,
// shuffles, exits, deadlocks) and parameter passing, for
// kernels/cuda's emulator tests. They use only the primitives of emu.h.
#include "../emu.h"

// emu_ids writes each thread's position: 6 ints per thread, threads
// numbered row-major over the grid.
KERNEL emu_ids(int *out) {
    unsigned i = (block_y() * grid_x() + block_x()) * block_dim_x() + thread_x();
    int *o = out + 6 * i;
    o[0] = (int)thread_x();
    o[1] = (int)block_x();
    o[2] = (int)block_y();
    o[3] = (int)block_dim_x();
    o[4] = (int)grid_x();
    o[5] = (int)grid_y();
}

// emu_params stores its scalar arguments and the first value of a.
KERNEL emu_params(const float *a, int i, float f, float *out, int j) {
    if (thread_x() != 0) return;
    out[0] = a[0];
    out[1] = (float)i;
    out[2] = f;
    out[3] = (float)j;
}

// emu_block_sum sums each block's block_dim_x() values through shared
// memory, halving with a barrier between steps (block_dim_x() a power
// of two <= 1024).
KERNEL emu_block_sum(const float *x, float *out) {
    SHARED float s[1024];
    unsigned t = thread_x();
    s[t] = x[block_x() * block_dim_x() + t];
    sync_threads();
    for (unsigned h = block_dim_x() / 2; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        sync_threads();
    }
    if (t == 0) out[block_x()] = s[0];
}

// emu_warp_sum leaves in every lane the sum of its warp's 32 values, by
// a butterfly of shuffles.
KERNEL emu_warp_sum(const float *x, float *out) {
    unsigned i = block_x() * block_dim_x() + thread_x();
    float v = x[i];
    for (int m = 16; m > 0; m >>= 1) v += shfl_xor(v, m);
    out[i] = v;
}

// emu_exit_early: threads >= n exit before the barrier the others wait
// at; then thread t reads what thread n-1-t wrote.
KERNEL emu_exit_early(float *out, int n) {
    SHARED float s[1024];
    unsigned t = thread_x();
    if ((int)t >= n) return;
    s[t] = (float)t;
    sync_threads();
    out[t] = s[n - 1 - t];
}

// emu_shfl_exited shuffles in warps where lane 5 has exited.
KERNEL emu_shfl_exited(float *out) {
    if (thread_x() % 32 == 5) return;
    out[thread_x()] = shfl_xor(1.0f, 1);
}

// emu_deadlock: half of warp 0 shuffles while the other half waits at the
// block's barrier.
KERNEL emu_deadlock(float *out) {
    if (thread_x() < 16) {
        out[thread_x()] = shfl_xor(1.0f, 1);
    } else {
        sync_threads();
    }
}

// emu_store writes 1 at out[i], in bounds or not.
KERNEL emu_store(float *out, int i) {
    if (thread_x() == 0) out[i] = 1.0f;
}
