// The MSL emulator's main program (test only): runs one kernel of
// kernels.metal on the CPU. emu_test.go writes kernels.inc (kernels.metal
// with its threadgroup arrays made static) and dispatch.inc (a table that
// calls each kernel with its arguments and builtins), compiles this file
// against them and metal_stdlib, and runs it once per launch:
//
//	driver DIR
//
// DIR/job.txt describes the launch:
//
//	kernel NAME
//	grid X Y Z
//	block X Y Z
//	buffers N          (DIR/buf0 ... DIR/bufN-1 hold their bytes)
//	args N
//	p BUF OFF          (a pointer: byte OFF of buffer BUF, -1 for none)
//	i VALUE            (a 32-bit integer)
//	f BITS             (a 32-bit float, as its bits in decimal)
//
// The buffers are written back in place afterwards. Each buffer ends at a
// page that is not readable, so that a read or write past its end stops the
// program with SIGSEGV instead of passing unnoticed.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include "kernels.inc"

struct EmuArg {
    void* p;
    int i;
    float f;
};

struct EmuKernel {
    const char* name;
    void (*fn)(EmuArg*);
};

#include "dispatch.inc"

namespace {

[[noreturn]] void die(const std::string& msg) {
    std::cerr << "msl emulator: " << msg << "\n";
    std::exit(2);
}

struct Buffer {
    unsigned char* data;
    size_t size;
};

Buffer load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) die("cannot open " + path);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    size_t padded = (bytes.size() + 15) / 16 * 16;
    size_t span = (padded + page - 1) / page * page + page;
    void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) die("mmap failed");
    unsigned char* base = static_cast<unsigned char*>(m);
    if (mprotect(base + span - page, page, PROT_NONE) != 0) die("mprotect failed");
    unsigned char* data = base + span - page - padded;
    std::memcpy(data, bytes.data(), bytes.size());
    return Buffer{data, bytes.size()};
}

void store(const std::string& path, const Buffer& b) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data), std::streamsize(b.size));
    if (!out) die("cannot write " + path);
}

struct Call {
    void (*fn)(EmuArg*);
    EmuArg* args;
};

void body(void* p) {
    Call* c = static_cast<Call*>(p);
    c->fn(c->args);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) die("usage: driver DIR");
    std::string dir = argv[1];
    std::ifstream job(dir + "/job.txt");
    if (!job) die("no job.txt in " + dir);
    std::string word, name;
    uint3 grid{}, blk{};
    size_t nbuf = 0, nargs = 0;
    job >> word >> name;
    job >> word >> grid.x >> grid.y >> grid.z;
    job >> word >> blk.x >> blk.y >> blk.z;
    job >> word >> nbuf;
    std::vector<Buffer> bufs;
    for (size_t i = 0; i < nbuf; i++) bufs.push_back(load(dir + "/buf" + std::to_string(i)));
    job >> word >> nargs;
    std::vector<EmuArg> args(nargs);
    for (size_t i = 0; i < nargs; i++) {
        std::string kind;
        job >> kind;
        EmuArg& a = args[i];
        a = EmuArg{nullptr, 0, 0};
        if (kind == "p") {
            long b, off;
            job >> b >> off;
            if (b >= 0) {
                if (size_t(b) >= bufs.size() || off < 0 || size_t(off) > bufs[size_t(b)].size) die("bad pointer argument");
                a.p = bufs[size_t(b)].data + off;
            }
        } else if (kind == "i") {
            job >> a.i;
        } else if (kind == "f") {
            uint32_t bits;
            job >> bits;
            std::memcpy(&a.f, &bits, 4);
        } else {
            die("bad argument kind " + kind);
        }
    }
    if (!job) die("malformed job.txt");

    void (*fn)(EmuArg*) = nullptr;
    for (const EmuKernel& k : emu_kernels) {
        if (name == k.name) fn = k.fn;
    }
    if (fn == nullptr) die("no kernel " + name);

    Call call{fn, args.data()};
    msl_emu::group g{};
    g.size = blk.x * blk.y * blk.z;
    g.body = body;
    g.arg = &call;
    for (uint z = 0; z < grid.z; z++) {
        for (uint y = 0; y < grid.y; y++) {
            for (uint x = 0; x < grid.x; x++) {
                g.pos = uint3{x, y, z};
                msl_emu::run_group(g);
            }
        }
    }
    for (size_t i = 0; i < bufs.size(); i++) store(dir + "/buf" + std::to_string(i), bufs[i]);
    return 0;
}
