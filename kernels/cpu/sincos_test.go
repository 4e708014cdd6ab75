package cpu

import (
	"math"
	"testing"
)

// glibcSinCos are angles RoPE produces (positions times powers of its
// frequency step) where Go's float64 sin/cos, rounded to float32, differ
// from glibc's sinf/cosf, with glibc's results (recorded on x86-64 glibc).
var glibcSinCos = [][3]float32{
	{0x1.33281cp-2, 0x1.2e9242p-2, 0x1.e9238p-1},
	{0x1.1466e8p-3, 0x1.13904cp-3, 0x1.fb5818p-1},
	{0x1.7ad00cp-4, 0x1.7a45dep-4, 0x1.fdcfdcp-1},
	{0x1.ab704ap-3, 0x1.a8579ap-3, 0x1.f4e39ap-1},
	{0x1.18b886p+2, -0x1.e5034p-1, -0x1.4810b2p-2},
	{0x1.88p+6, -0x1.25924ep-1, -0x1.a379cp-1},
	{0x1.2b26ap-2, 0x1.26e9fp-2, 0x1.ea4e76p-1},
	{0x1.186a18p-1, 0x1.0a9abap-1, 0x1.b51c6ep-1},
	{0x1.33334ep-2, 0x1.2e9cf4p-2, 0x1.e921dap-1},
	{0x1.580e5p+3, -0x1.f0db0ap-1, -0x1.ee6cbep-3},
	{0x1.04264cp-1, 0x1.f232e2p-2, 0x1.bf517p-1},
	{0x1.b98736p-1, 0x1.84cd74p-1, 0x1.4d21a8p-1},
	{0x1.af0574p+0, 0x1.fcbdd2p-1, -0x1.cd60b8p-4},
	{0x1.279fd8p+3, 0x1.7bc6p-3, -0x1.f71ebap-1},
	{0x1.0b3a12p-4, 0x1.0b098ep-4, 0x1.fee928p-1},
	{0x1.1124cep+4, -0x1.f50a7ap-1, -0x1.a576dap-3},
	{0x1.d5e256p-5, 0x1.d5a064p-5, 0x1.ff2872p-1},
	{0x1.31a6e2p-2, 0x1.2d2226p-2, 0x1.e95c48p-1},
	{0x1.186a08p+1, 0x1.a0b94ap-1, -0x1.2976fcp-1},
	{0x1.aa1ea8p-3, 0x1.a70d46p-3, 0x1.f4f51p-1},
	{0x1.99b73p+3, 0x1.e1533p-3, 0x1.f1a8aep-1},
	{0x1.b6f0a8p-1, 0x1.831d18p-1, 0x1.4f17b2p-1},
	{0x1.3b7744p+2, -0x1.f404aep-1, 0x1.b8779ap-3},
	{0x1.a252acp+3, 0x1.f08348p-2, 0x1.bfc958p-1},
	{0x1.63cf44p+1, 0x1.6a7b6p-2, -0x1.ded92cp-1},
	{0x1.b8e4fap+1, -0x1.317194p-2, -0x1.e8b132p-1},
	{0x1.aac974p+3, 0x1.64afa4p-1, 0x1.6f503p-1},
	{0x1.031236p+3, 0x1.f114eap-1, -0x1.eac686p-3},
	{0x1.abde86p+0, 0x1.fd69bcp-1, -0x1.9b3b62p-4},
	{0x1.523398p+1, 0x1.ea62e4p-2, -0x1.c1789ep-1},
	{0x1.172fe8p+0, 0x1.c616c8p-1, 0x1.d91028p-2},
	{0x1.1f6c4p-2, 0x1.1ba9e2p-2, 0x1.ebf692p-1},
	{0x1.8p+6, 0x1.f798dp-1, -0x1.718586p-3},
	{0x1.d75e92p-3, 0x1.d337fep-3, 0x1.f27f98p-1},
	{0x1.ab69bep-1, 0x1.7b78d6p-1, 0x1.57b8e6p-1},
	{0x1.4f757cp+1, 0x1.fd889ap-2, -0x1.bc1d5ep-1},
	{0x1.3b54dap+2, -0x1.f43f9cp-1, 0x1.b443ep-3},
	{0x1.9e5a76p-3, 0x1.9b8846p-3, 0x1.f58e8p-1},
	{0x1.222b8cp+1, 0x1.88dd1ap-1, -0x1.485516p-1},
	{0x1.4a9536p-4, 0x1.4a395ep-4, 0x1.fe5556p-1},
}

func TestSinCos32(t *testing.T) {
	for _, c := range glibcSinCos {
		s, co := sinCos32(c[0])
		if s != c[1] || co != c[2] {
			t.Errorf("sinCos32(%x) = %x, %x; glibc gives %x, %x", c[0], s, co, c[1], c[2])
		}
	}
	// Elsewhere: within an ulp of the true values, up to |x| = 120 and past it.
	for x := float32(-130); x < 130; x += 0.01739 {
		s, c := sinCos32(x)
		ws, wc := math.Sin(float64(x)), math.Cos(float64(x))
		if math.Abs(float64(s)-ws) > 1e-7 || math.Abs(float64(c)-wc) > 1e-7 {
			t.Fatalf("sinCos32(%g) = %g, %g; want %g, %g", x, s, c, ws, wc)
		}
	}
}
