#include "textflag.h"

// Constants of ggml_v_expf, one float32 (or int32) each.
DATA ewc<>+0(SB)/4, $0x4b400000  // 0x1.8p23: rounds to an integer, and the bias of its bits
DATA ewc<>+4(SB)/4, $0x3fb8aa3b  // 0x1.715476p+0: log2(e)
DATA ewc<>+8(SB)/4, $0x3f317200  // 0x1.62e4p-1: ln2, high part
DATA ewc<>+12(SB)/4, $0x35bfbe8e // 0x1.7f7d1cp-20: ln2, low part
DATA ewc<>+16(SB)/4, $0x3c072010 // 0x1.0e4020p-7
DATA ewc<>+20(SB)/4, $0x3d2b9f17 // 0x1.573e2ep-5
DATA ewc<>+24(SB)/4, $0x3e2aaf33 // 0x1.555e66p-3
DATA ewc<>+28(SB)/4, $0x3efffedb // 0x1.fffdb6p-2
DATA ewc<>+32(SB)/4, $0x3f7ffff6 // 0x1.ffffecp-1
DATA ewc<>+36(SB)/4, $0x3f800000 // 1
DATA ewc<>+40(SB)/4, $127        // the exponent bias
DATA ewc<>+44(SB)/4, $0x7fffffff // |x| mask
DATA ewc<>+48(SB)/4, $0x43400000 // 192
DATA ewc<>+52(SB)/4, $0x7f800000 // +Inf
DATA ewc<>+56(SB)/4, $0x80000000 // sign bit
GLOBL ewc<>(SB), RODATA|NOPTR, $60

// EXPV sets Y0 to expV(Y0) in each lane, exactly as the Go expV: the same
// constants, the same fused multiply-adds, and 2^n applied in two exact
// steps so that the result rounds once, as math.Ldexp then float32 do.
// It clobbers Y1-Y11. Steps: z = x·log2e + r, n = z - r,
// b = x - n·ln2hi - n·ln2lo, u = b·b, A = p0·b + p1, B = p2·b + p3,
// C = A·u + B, D = p4·b + 1, j = C·u + D; n as an integer from the low bits
// of z, j·2^(n>>1)·2^(n-n>>1) (exact, then one rounding); lanes with
// !(|n| <= 192) get 0 when n <= 0, +Inf otherwise.
#define EXPV \
	VBROADCASTSS ewc<>+0(SB), Y1; \
	VBROADCASTSS ewc<>+4(SB), Y2; \
	VMOVAPS      Y0, Y3; \
	VFMADD213PS  Y1, Y2, Y3; \
	VSUBPS       Y1, Y3, Y4; \
	VMOVAPS      Y0, Y5; \
	VBROADCASTSS ewc<>+8(SB), Y6; \
	VFNMADD231PS Y6, Y4, Y5; \
	VBROADCASTSS ewc<>+12(SB), Y6; \
	VFNMADD231PS Y6, Y4, Y5; \
	VMULPS       Y5, Y5, Y6; \
	VBROADCASTSS ewc<>+16(SB), Y7; \
	VBROADCASTSS ewc<>+20(SB), Y9; \
	VFMADD213PS  Y9, Y5, Y7; \
	VBROADCASTSS ewc<>+24(SB), Y8; \
	VBROADCASTSS ewc<>+28(SB), Y9; \
	VFMADD213PS  Y9, Y5, Y8; \
	VFMADD213PS  Y8, Y6, Y7; \
	VBROADCASTSS ewc<>+32(SB), Y8; \
	VBROADCASTSS ewc<>+36(SB), Y9; \
	VFMADD213PS  Y9, Y5, Y8; \
	VFMADD213PS  Y8, Y6, Y7; \
	VPSUBD       Y1, Y3, Y3; \
	VPSRAD       $1, Y3, Y8; \
	VPSUBD       Y8, Y3, Y3; \
	VBROADCASTSS ewc<>+40(SB), Y9; \
	VPADDD       Y9, Y8, Y8; \
	VPSLLD       $23, Y8, Y8; \
	VPADDD       Y9, Y3, Y3; \
	VPSLLD       $23, Y3, Y3; \
	VMULPS       Y8, Y7, Y7; \
	VMULPS       Y3, Y7, Y7; \
	VBROADCASTSS ewc<>+44(SB), Y9; \
	VANDPS       Y9, Y4, Y8; \
	VBROADCASTSS ewc<>+48(SB), Y9; \
	VCMPPS       $6, Y9, Y8, Y8; \
	VXORPS       Y10, Y10, Y10; \
	VCMPPS       $2, Y10, Y4, Y11; \
	VBROADCASTSS ewc<>+52(SB), Y9; \
	VANDNPS      Y9, Y11, Y11; \
	VBLENDVPS    Y8, Y11, Y7, Y0

// func siluAVX2(y, x, gate *float32, n int)
TEXT ·siluAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ gate+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JEQ  siludone

siluloop:
	VMOVUPS      (SI), Y12
	VBROADCASTSS ewc<>+56(SB), Y0
	VXORPS       Y12, Y0, Y0
	EXPV
	VBROADCASTSS ewc<>+36(SB), Y1
	VADDPS       Y1, Y0, Y0
	VDIVPS       Y0, Y12, Y0
	VMULPS       (DX), Y0, Y0
	VMOVUPS      Y0, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DX
	ADDQ         $32, DI
	DECQ         CX
	JNZ          siluloop

siludone:
	VZEROUPPER
	RET

// func expShiftAVX2(dst, src *float32, shift float32, n int)
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	VBROADCASTSS shift+16(FP), Y12
	MOVQ         n+24(FP), CX
	SHRQ         $3, CX
	JEQ          expsdone

expsloop:
	VMOVUPS (SI), Y0
	VSUBPS  Y12, Y0, Y0
	EXPV
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     expsloop

expsdone:
	VZEROUPPER
	RET

// func scaleMaxAVX2(x *float32, scale float32, n int) float32
TEXT ·scaleMaxAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), SI
	VBROADCASTSS scale+8(FP), Y1
	MOVQ         n+16(FP), CX
	SHRQ         $3, CX
	VMULPS       (SI), Y1, Y2
	VMOVUPS      Y2, (SI)
	ADDQ         $32, SI
	DECQ         CX
	JEQ          smdone

smloop:
	VMULPS  (SI), Y1, Y0
	VMOVUPS Y0, (SI)
	VMAXPS  Y0, Y2, Y2
	ADDQ    $32, SI
	DECQ    CX
	JNZ     smloop

smdone:
	VEXTRACTF128 $1, Y2, X3
	VMAXPS       X3, X2, X2
	VMOVHLPS     X2, X2, X3
	VMAXPS       X3, X2, X2
	VMOVSHDUP    X2, X3
	VMAXSS       X3, X2, X2
	VMOVSS       X2, ret+24(FP)
	VZEROUPPER
	RET
