// emu.h: the host side of the primitives kernels.cu uses, for the CUDA
// emulator (driver.cpp). prelude.h includes it instead of its NVPTX
// definitions when SAJI_CUDA_EMU is defined, so that the same kernel source
// runs on the CPU: each thread block's threads are cooperative fibers, run
// one block after another on the calling thread.
//
// The contract with kernels.cu (see kernels/cuda/prelude.h):
//   KERNEL, DEVFN, SHARED; thread_x(), block_x(), block_y(), block_dim_x(),
//   grid_x(), grid_y(); sync_threads(); shfl_xor(float, int); k_sqrt(float).
// Nothing else here is for kernels.cu. This header includes no system
// header, so it cannot clash with the prelude's own math functions.
#ifndef SAJI_CUDA_EMU_H
#define SAJI_CUDA_EMU_H

#ifndef SAJI_CUDA_EMU
#error "emu.h is the CUDA emulator's; build with -DSAJI_CUDA_EMU"
#endif

// A kernel is a plain C function; the emulator's registry calls it once per
// emulated thread.
#define KERNEL extern "C" void
// A device function is an ordinary inline function.
#define DEVFN static inline
// Shared memory is a function-scope static: blocks run one after another,
// so each block has it to itself.
#define SHARED static

// saji_emu_index is the position of the fiber that is running: the scheduler
// sets it before it switches to a fiber.
struct saji_emu_index {
    unsigned tid_x;      // threadIdx.x
    unsigned bid_x;      // blockIdx.x
    unsigned bid_y;      // blockIdx.y
    unsigned bdim_x;     // blockDim.x
    unsigned gdim_x;     // gridDim.x
    unsigned gdim_y;     // gridDim.y
};

// saji_emu_cur is the running fiber's index (driver.cpp defines it).
extern saji_emu_index saji_emu_cur;

static inline unsigned thread_x() { return saji_emu_cur.tid_x; }
static inline unsigned block_x() { return saji_emu_cur.bid_x; }
static inline unsigned block_y() { return saji_emu_cur.bid_y; }
static inline unsigned block_dim_x() { return saji_emu_cur.bdim_x; }
static inline unsigned grid_x() { return saji_emu_cur.gdim_x; }
static inline unsigned grid_y() { return saji_emu_cur.gdim_y; }

// sync_threads is __syncthreads(): the fiber waits until every thread of
// the block reached it (or exited).
void sync_threads();

// shfl_xor is __shfl_xor_sync(0xffffffff, v, lane_mask): the fiber waits
// for the 32 lanes of its warp and returns the v of lane ^ lane_mask.
float shfl_xor(float v, int lane_mask);

// k_sqrt is the correctly rounded square root (IEEE, as sqrt.rn.f32).
static inline float k_sqrt(float x) { return __builtin_sqrtf(x); }

#endif
