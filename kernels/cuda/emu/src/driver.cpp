// driver.cpp: a fake libcuda that runs Saji's CUDA kernels on the CPU, so
// that the purego binding (kernels/cuda) and the kernels themselves are
// tested on machines without an NVIDIA GPU.
//
// It exports the driver API functions kernels/cuda binds, with the same
// signatures and CUresult codes. Device memory is host memory; the PTX
// handed to cuModuleLoadDataEx is ignored; cuModuleGetFunction finds a
// kernel of kernels.cu (compiled into this library, see registry.inc) by
// name; cuLaunchKernel runs it before it returns. Each thread block's
// threads run as cooperative fibers (ucontext, then _setjmp/_longjmp) on
// the calling thread,
// blocks one after another: sync_threads is a barrier of the block,
// shfl_xor an exchange between the 32 lanes of a warp. A shuffle with a
// lane that exited, or a deadlock, fails the launch with an error code and
// a message on stderr instead of hanging.
//
// Built by the tests (kernels/cuda/emu/emu.go: Go refuses C++ files in a
// package folder without cgo, hence src/) with
//   g++ -std=c++17 -O2 -shared -fPIC -DSAJI_CUDA_EMU -I BUILD_DIR driver.cpp
// where BUILD_DIR holds the generated registry.inc (one REG(name) line per
// kernel of gpu.Kernels). SAJI_EMU_KERNELS may name another kernel source
// than ../../kernels.cu (the emulator's own tests use a small one).
//
// Environment variables read at call time, for tests of the error paths:
//   SAJI_CUDA_EMU_MEMORY  the device's memory in bytes (default 8 GiB)
//   SAJI_CUDA_EMU_CC      the compute capability, "major.minor" (default 8.0)
//   SAJI_CUDA_EMU_JIT_ERROR  when set, cuModuleLoadDataEx fails with
//                         CUDA_ERROR_INVALID_PTX and this text in the error log
//   SAJI_CUDA_EMU_GUARD   0 to allocate with malloc; by default every
//                         allocation lies between inaccessible pages, so a
//                         kernel that reads or writes outside its buffers
//                         crashes the test at once instead of reading what
//                         happens to lie there
//
// The emulator is single-threaded: one mutex serializes every call.

// _longjmp between stacks is what the fibers do: the fortified longjmp
// would call it an error.
#undef _FORTIFY_SOURCE

#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef SAJI_EMU_KERNELS
#define SAJI_EMU_KERNELS "../../kernels.cu"
#endif

// The kernels are internal to the library: only the driver API is exported.
#pragma GCC visibility push(hidden)
#include SAJI_EMU_KERNELS
#pragma GCC visibility pop

#define EMU_API extern "C" __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

// CUresult codes (cuda.h).
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_SUPPORTED = 801,
};

// CUjit_option values the emulator honours.
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

// CUdevice_attribute values the emulator answers.
enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// ---------------------------------------------------------------------------
// The kernel registry: REG(name) records a kernel, a function that calls it
// with the values kernelParams points to (their types deduced from the
// kernel's own parameter list), and its signature ('p' pointer, 'i' 32-bit
// integer, 'f' float) for validation.

namespace {

template <typename T>
constexpr char kind_of() {
    if constexpr (std::is_pointer_v<T>) {
        return 'p';
    } else if constexpr (std::is_same_v<T, float>) {
        return 'f';
    } else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) {
        return 'i';
    } else {
        return '?';
    }
}

template <typename... A>
struct signature {
    static constexpr char str[] = {kind_of<A>()..., '\0'};
};

template <typename... A, std::size_t... I>
void call_with(void (*f)(A...), void **params, std::index_sequence<I...>) {
    f(*static_cast<std::remove_cv_t<A> *>(params[I])...);
}

template <typename... A>
void call(void (*f)(A...), void **params) {
    call_with(f, params, std::index_sequence_for<A...>{});
}

template <typename... A>
const char *signature_of(void (*)(A...)) {
    return signature<A...>::str;
}

struct kernel_entry {
    const char *name;
    void (*invoke)(void **params);
    const char *sig;
};

#define REG(name) {#name, [](void **params) { call(&name, params); }, signature_of(&name)},

const kernel_entry registry[] = {
#include "registry.inc"
    {nullptr, nullptr, nullptr},  // the end (and an empty registry compiles)
};
constexpr size_t registry_size = sizeof registry / sizeof registry[0] - 1;

#undef REG

const kernel_entry *find_kernel(const char *name) {
    for (size_t i = 0; i < registry_size; i++) {
        if (std::strcmp(registry[i].name, name) == 0) return &registry[i];
    }
    return nullptr;
}

// ---------------------------------------------------------------------------
// Driver state.

std::mutex mu;  // serializes every call

bool initialized;

struct context {
    int refs;
};
context primary;  // the one device's primary context

thread_local context *current;  // the context current on this thread

struct module {
    int unused;
};
std::set<module *> modules;

struct stream {
    int unused;
};
std::set<stream *> streams;

// allocations maps each device allocation's address to its size.
std::map<uintptr_t, size_t> allocations;
size_t allocated;

// guarded maps the allocations made with guard pages to their mappings.
struct mapping {
    void *base;
    size_t len;
};
std::map<uintptr_t, mapping> guarded;

constexpr size_t alloc_align = 256;  // cudaMalloc's alignment

unsigned long long env_number(const char *name, unsigned long long def) {
    const char *s = std::getenv(name);
    if (s == nullptr || *s == '\0') return def;
    return std::strtoull(s, nullptr, 10);
}

size_t total_memory() { return env_number("SAJI_CUDA_EMU_MEMORY", 8ull << 30); }

void compute_capability(int *major, int *minor) {
    *major = 8;
    *minor = 0;
    const char *s = std::getenv("SAJI_CUDA_EMU_CC");
    if (s != nullptr && *s != '\0') std::sscanf(s, "%d.%d", major, minor);
}

// in_allocation reports whether n bytes at p lie inside one allocation.
bool in_allocation(uintptr_t p, size_t n) {
    auto it = allocations.upper_bound(p);
    if (it == allocations.begin()) return false;
    --it;
    return p >= it->first && n <= it->second && p - it->first <= it->second - n;
}

// ready is the check of every call that needs a current context.
CUresult ready() {
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (current == nullptr || current->refs == 0) return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

bool valid_stream(void *s) { return s == nullptr || streams.count(static_cast<stream *>(s)) > 0; }

// ---------------------------------------------------------------------------
// The fiber scheduler.
//
// Thread t of a block runs on fiber t, which has its own stack and lives
// as long as the library: its entry function loops, running the kernel
// once per block it is resumed for. makecontext and swapcontext start a
// fiber the first time; after that the fibers and the scheduler switch
// with _setjmp/_longjmp, which unlike swapcontext make no system call
// (swapcontext saves and restores the signal mask each time, and a kernel
// switches at every barrier and shuffle of every thread).

enum fiber_state { READY, AT_BARRIER, AT_SHUFFLE, EXITED };

struct fiber {
    ucontext_t start;  // the fiber's first context (makecontext)
    jmp_buf resume;    // where the fiber waits to go on
    bool started;      // the fiber runs its loop and waits in resume
    fiber_state state;
    float value;  // a shuffle's contribution
    int mask;     // a shuffle's lane mask
    float out;    // a shuffle's result
};

constexpr unsigned warp_size = 32;
constexpr unsigned max_threads = 1024;
constexpr size_t stack_size = 256 << 10;

fiber fibers[max_threads];
jmp_buf scheduler;  // where the scheduler waits for a fiber to yield
unsigned running;   // index of the running fiber
const kernel_entry *launching;
void **launch_params;

char *stacks;  // max_threads stacks, each above a guard page
size_t page_size;

bool map_stacks() {
    if (stacks != nullptr) return true;
    page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t span = page_size + stack_size;
    void *p = mmap(nullptr, span * max_threads, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    stacks = static_cast<char *>(p);
    for (unsigned i = 0; i < max_threads; i++) mprotect(stacks + i * span, page_size, PROT_NONE);
    return true;
}

// yield switches from the running fiber back to the scheduler.
void yield(fiber_state st) {
    fiber &f = fibers[running];
    f.state = st;
    if (_setjmp(f.resume) == 0) _longjmp(scheduler, 1);
}

// fiber_main is every fiber's entry: it runs the kernel for a thread of
// each block it is resumed for, and never returns.
void fiber_main() {
    for (;;) {
        launching->invoke(launch_params);
        yield(EXITED);
    }
}

// resume runs fiber t until it yields.
void resume(unsigned t) {
    fiber &f = fibers[t];
    running = t;
    if (_setjmp(scheduler) != 0) return;
    if (f.started) _longjmp(f.resume, 1);
    static ucontext_t from;  // not used again: the fiber comes back by _longjmp
    size_t span = page_size + stack_size;
    getcontext(&f.start);
    f.start.uc_stack.ss_sp = stacks + t * span + page_size;
    f.start.uc_stack.ss_size = stack_size;
    f.start.uc_link = nullptr;
    makecontext(&f.start, fiber_main, 0);
    f.started = true;
    swapcontext(&from, &f.start);
}

// abandon forgets the fibers of a block that failed, stopped in the middle
// of its kernel: they start afresh next time.
void abandon(unsigned n) {
    for (unsigned t = 0; t < n; t++) fibers[t].started = false;
}

// run_block runs one thread block to its end. It returns CUDA_SUCCESS or
// the failure of a shuffle with an exited lane or a deadlock.
CUresult run_block(unsigned bx, unsigned by, unsigned gx, unsigned gy, unsigned n) {
    for (unsigned t = 0; t < n; t++) fibers[t].state = READY;
    // Every other block runs its threads last to first: a kernel missing a
    // barrier, whose thread reads what a later thread writes, then fails.
    bool backwards = (bx + by) % 2 == 1;
    for (;;) {
        for (unsigned i = 0; i < n; i++) {
            unsigned t = backwards ? n - 1 - i : i;
            if (fibers[t].state != READY) continue;
            saji_emu_cur = saji_emu_index{t, bx, by, n, gx, gy};
            resume(t);
        }
        // Every fiber waits or has exited: release a warp whose lanes all
        // shuffle, else the block if every live thread is at the barrier.
        bool released = false;
        unsigned exited = 0, at_barrier = 0;
        for (unsigned w = 0; w < n; w += warp_size) {
            unsigned lanes = n - w < warp_size ? n - w : warp_size;
            unsigned shuffling = 0, gone = 0;
            for (unsigned l = 0; l < lanes; l++) {
                fiber_state s = fibers[w + l].state;
                shuffling += s == AT_SHUFFLE;
                gone += s == EXITED;
                at_barrier += s == AT_BARRIER;
            }
            exited += gone;
            if (shuffling == 0) continue;
            if (gone > 0) {
                std::fprintf(stderr, "cuda emulator: %s block (%u,%u): shfl_xor in warp %u with %u exited lanes\n",
                             launching->name, bx, by, w / warp_size, gone);
                abandon(n);
                return CUDA_ERROR_LAUNCH_FAILED;
            }
            if (shuffling < lanes) continue;
            for (unsigned l = 0; l < lanes; l++) {
                unsigned src = l ^ static_cast<unsigned>(fibers[w + l].mask);
                if (src >= lanes) {
                    std::fprintf(stderr, "cuda emulator: %s block (%u,%u): shfl_xor lane mask %d outside the warp\n",
                                 launching->name, bx, by, fibers[w + l].mask);
                    abandon(n);
                    return CUDA_ERROR_LAUNCH_FAILED;
                }
                fibers[w + l].out = fibers[w + src].value;
            }
            for (unsigned l = 0; l < lanes; l++) fibers[w + l].state = READY;
            released = true;
        }
        if (exited == n) return CUDA_SUCCESS;
        if (released) continue;
        if (at_barrier + exited == n) {
            for (unsigned t = 0; t < n; t++) {
                if (fibers[t].state == AT_BARRIER) fibers[t].state = READY;
            }
            continue;
        }
        std::fprintf(stderr,
                     "cuda emulator: %s block (%u,%u) deadlocked: %u threads at sync_threads, %u exited, "
                     "%u in shfl_xor waiting for lanes at sync_threads\n",
                     launching->name, bx, by, at_barrier, exited, n - at_barrier - exited);
        abandon(n);
        return CUDA_ERROR_LAUNCH_TIMEOUT;
    }
}

}  // namespace

saji_emu_index saji_emu_cur;

void sync_threads() { yield(AT_BARRIER); }

float shfl_xor(float v, int lane_mask) {
    fiber &f = fibers[running];
    f.value = v;
    f.mask = lane_mask;
    yield(AT_SHUFFLE);
    return fibers[running].out;
}

// ---------------------------------------------------------------------------
// The driver API.

EMU_API CUresult cuInit(unsigned flags) {
    std::lock_guard<std::mutex> lock(mu);
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    initialized = true;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDriverGetVersion(int *version) {
    if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *version = 12040;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDeviceGetCount(int *count) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    std::snprintf(name, static_cast<size_t>(len), "%s", "Saji CUDA emulator");
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *bytes = total_memory();
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDeviceGetAttribute(int *value, int attr, CUdevice dev) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
    int major, minor;
    compute_capability(&major, &minor);
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = max_threads; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = warp_size; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = minor; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice dev) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    primary.refs++;
    *ctx = &primary;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (primary.refs == 0) return CUDA_ERROR_INVALID_CONTEXT;
    primary.refs--;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuCtxSetCurrent(void *ctx) {
    std::lock_guard<std::mutex> lock(mu);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx != nullptr && ctx != &primary) return CUDA_ERROR_INVALID_CONTEXT;
    current = static_cast<context *>(ctx);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *options, void **values) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (mod == nullptr || image == nullptr || (n > 0 && (options == nullptr || values == nullptr))) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const char *fail = std::getenv("SAJI_CUDA_EMU_JIT_ERROR");
    bool failed = fail != nullptr && *fail != '\0';
    const char *info = failed ? "" : "cuda emulator: the PTX is not compiled; the kernels run on the CPU";
    char *info_buf = nullptr, *err_buf = nullptr;
    size_t info_size = 0, err_size = 0;
    for (unsigned i = 0; i < n; i++) {
        switch (options[i]) {
        case CU_JIT_INFO_LOG_BUFFER: info_buf = static_cast<char *>(values[i]); break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: info_size = reinterpret_cast<uintptr_t>(values[i]); break;
        case CU_JIT_ERROR_LOG_BUFFER: err_buf = static_cast<char *>(values[i]); break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: err_size = reinterpret_cast<uintptr_t>(values[i]); break;
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    }
    // As the driver does, write each log and the bytes written (with the
    // NUL) back into the size option's value.
    auto log = [&](char *buf, size_t size, const char *text, unsigned size_option) {
        if (buf == nullptr || size == 0) return;
        std::snprintf(buf, size, "%s", text);
        size_t used = std::strlen(buf) + 1;
        for (unsigned i = 0; i < n; i++) {
            if (options[i] == static_cast<int>(size_option)) values[i] = reinterpret_cast<void *>(used);
        }
    };
    log(info_buf, info_size, info, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
    if (failed) {
        log(err_buf, err_size, fail, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
        return CUDA_ERROR_INVALID_PTX;
    }
    log(err_buf, err_size, "", CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
    module *m = new module{};
    modules.insert(m);
    *mod = m;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (fn == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (modules.count(static_cast<module *>(mod)) == 0) return CUDA_ERROR_INVALID_HANDLE;
    const kernel_entry *k = find_kernel(name);
    if (k == nullptr) return CUDA_ERROR_NOT_FOUND;
    *fn = const_cast<kernel_entry *>(k);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuModuleUnload(void *mod) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    auto it = modules.find(static_cast<module *>(mod));
    if (it == modules.end()) return CUDA_ERROR_INVALID_HANDLE;
    delete *it;
    modules.erase(it);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t size) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (ptr == nullptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
    if (size > total_memory() - allocated || allocated > total_memory()) return CUDA_ERROR_OUT_OF_MEMORY;
    size_t rounded = (size + alloc_align - 1) / alloc_align * alloc_align;
    void *p;
    if (env_number("SAJI_CUDA_EMU_GUARD", 1) != 0) {
        // The allocation ends where an inaccessible page begins, and one
        // precedes it: a kernel that reads or writes out of its buffer
        // (by more than the rounding to 256 bytes) crashes at once.
        size_t ps = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        size_t len = (rounded + ps - 1) / ps * ps + 2 * ps;
        void *base = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
        char *b = static_cast<char *>(base);
        mprotect(b, ps, PROT_NONE);
        mprotect(b + len - ps, ps, PROT_NONE);
        p = b + len - ps - rounded;
        guarded[reinterpret_cast<uintptr_t>(p)] = mapping{base, len};
    } else {
        p = std::aligned_alloc(alloc_align, rounded);
        if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    }
    // Device memory is not zeroed: fill it with NaNs (and -1s), so a
    // kernel that reads what nobody wrote shows.
    std::memset(p, 0xff, rounded);
    allocations[reinterpret_cast<uintptr_t>(p)] = size;
    allocated += size;
    *ptr = reinterpret_cast<uintptr_t>(p);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuMemFree_v2(CUdeviceptr ptr) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    auto it = allocations.find(static_cast<uintptr_t>(ptr));
    if (it == allocations.end()) return CUDA_ERROR_INVALID_VALUE;
    allocated -= it->second;
    auto g = guarded.find(it->first);
    if (g != guarded.end()) {
        munmap(g->second.base, g->second.len);
        guarded.erase(g);
    } else {
        std::free(reinterpret_cast<void *>(it->first));
    }
    allocations.erase(it);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *total = total_memory();
    *free = allocated < *total ? *total - allocated : 0;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (n == 0) return CUDA_SUCCESS;
    if (src == nullptr || !in_allocation(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(reinterpret_cast<void *>(dst), src, n);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (n == 0) return CUDA_SUCCESS;
    if (dst == nullptr || !in_allocation(src, n)) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(dst, reinterpret_cast<const void *>(src), n);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, void *s) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (n == 0) return CUDA_SUCCESS;
    if (!in_allocation(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    std::memset(reinterpret_cast<void *>(dst), value, n);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuStreamCreate(void **s, unsigned flags) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (s == nullptr || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    stream *st = new stream{};
    streams.insert(st);
    *s = st;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuStreamSynchronize(void *s) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    return CUDA_SUCCESS;  // every operation completed before it returned
}

EMU_API CUresult cuStreamDestroy_v2(void *s) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    auto it = streams.find(static_cast<stream *>(s));
    if (it == streams.end()) return CUDA_ERROR_INVALID_HANDLE;
    delete *it;
    streams.erase(it);
    return CUDA_SUCCESS;
}

EMU_API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned shared_bytes, void *s, void **params, void **extra) {
    std::lock_guard<std::mutex> lock(mu);
    if (CUresult r = ready()) return r;
    const kernel_entry *k = static_cast<const kernel_entry *>(fn);
    if (k < registry || k >= registry + registry_size) return CUDA_ERROR_INVALID_HANDLE;
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || gy > 65535 || gz > 65535) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (bx * by * bz > max_threads) return CUDA_ERROR_INVALID_VALUE;
    if (by != 1 || bz != 1 || gz != 1) {
        std::fprintf(stderr, "cuda emulator: %s: only one-dimensional blocks and two-dimensional grids are emulated\n",
                     k->name);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (shared_bytes != 0) return CUDA_ERROR_NOT_SUPPORTED;  // no dynamic shared memory
    if (extra != nullptr) return CUDA_ERROR_NOT_SUPPORTED;
    if (params == nullptr && k->sig[0] != '\0') return CUDA_ERROR_INVALID_VALUE;
    // Every pointer argument must point into device memory (or be null):
    // a host pointer or a stale address would crash the emulator.
    for (size_t i = 0; k->sig[i] != '\0'; i++) {
        if (k->sig[i] != 'p') continue;
        uintptr_t p = *static_cast<const uintptr_t *>(params[i]);
        if (p != 0 && !in_allocation(p, 0)) {
            std::fprintf(stderr, "cuda emulator: %s: argument %zu (0x%llx) is not device memory\n", k->name, i,
                         static_cast<unsigned long long>(p));
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    if (!map_stacks()) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    launching = k;
    launch_params = params;
    for (unsigned y = 0; y < gy; y++) {
        for (unsigned x = 0; x < gx; x++) {
            if (CUresult r = run_block(x, y, gx, gy, bx)) return r;
        }
    }
    return CUDA_SUCCESS;
}

namespace {

struct error_text {
    CUresult code;
    const char *name, *desc;
};

const error_text errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

const error_text *find_error(CUresult code) {
    for (const error_text &e : errors) {
        if (e.code == code) return &e;
    }
    return nullptr;
}

}  // namespace

EMU_API CUresult cuGetErrorName(CUresult code, const char **str) {
    if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const error_text *e = find_error(code);
    if (e == nullptr) {
        *str = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *str = e->name;
    return CUDA_SUCCESS;
}

EMU_API CUresult cuGetErrorString(CUresult code, const char **str) {
    if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const error_text *e = find_error(code);
    if (e == nullptr) {
        *str = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *str = e->desc;
    return CUDA_SUCCESS;
}

// sajiEmuSignature is the emulator's own: the parameter kinds of kernel
// name as its definition in kernels.cu declares them ('p' pointer, 'i'
// 32-bit integer, 'f' float, '?' anything else), or null when there is no
// such kernel. The tests check them against gpu.Kernels.
EMU_API const char *sajiEmuSignature(const char *name) {
    const kernel_entry *k = find_kernel(name);
    return k == nullptr ? nullptr : k->sig;
}
