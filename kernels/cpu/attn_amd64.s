#include "textflag.h"

// ACC8LOAD and ACC8STORE move 64 float32 accumulators between DI and
// Y0-Y7.
#define ACC8LOAD \
	VMOVUPS 0(DI), Y0; VMOVUPS 32(DI), Y1; VMOVUPS 64(DI), Y2; VMOVUPS 96(DI), Y3; \
	VMOVUPS 128(DI), Y4; VMOVUPS 160(DI), Y5; VMOVUPS 192(DI), Y6; VMOVUPS 224(DI), Y7

#define ACC8STORE \
	VMOVUPS Y0, 0(DI); VMOVUPS Y1, 32(DI); VMOVUPS Y2, 64(DI); VMOVUPS Y3, 96(DI); \
	VMOVUPS Y4, 128(DI); VMOVUPS Y5, 160(DI); VMOVUPS Y6, 192(DI); VMOVUPS Y7, 224(DI)

// FCELLSCALE(Y, X) sets Y's eight accumulators to roundF16(Y·Y8).
#define FCELLSCALE(Y, X) \
	VMULPS    Y8, Y, Y; \
	VCVTPS2PH $0, Y, X; \
	VCVTPH2PS X, Y

// FCELLACC(OFF, Y, X) sets Y's eight accumulators to
// roundF16(fma32(v, Y8, Y)) for the eight F16 values v at OFF(AX).
#define FCELLACC(OFF, Y, X) \
	VCVTPH2PS   OFF(AX), Y9; \
	VFMADD231PS Y8, Y9, Y; \
	VCVTPS2PH   $0, Y, X; \
	VCVTPH2PS   X, Y

// FC4LOAD loads the four rows' accumulators (row r at DI+r·DX, R12
// 3·DX) into Z0-Z15.
#define FC4LOAD \
	VMOVUPS 0(DI), Z0; VMOVUPS 64(DI), Z1; VMOVUPS 128(DI), Z2; VMOVUPS 192(DI), Z3; \
	VMOVUPS 0(DI)(DX*1), Z4; VMOVUPS 64(DI)(DX*1), Z5; VMOVUPS 128(DI)(DX*1), Z6; VMOVUPS 192(DI)(DX*1), Z7; \
	VMOVUPS 0(DI)(DX*2), Z8; VMOVUPS 64(DI)(DX*2), Z9; VMOVUPS 128(DI)(DX*2), Z10; VMOVUPS 192(DI)(DX*2), Z11; \
	VMOVUPS 0(DI)(R12*1), Z12; VMOVUPS 64(DI)(R12*1), Z13; VMOVUPS 128(DI)(R12*1), Z14; VMOVUPS 192(DI)(R12*1), Z15

// FC4STORE stores the four rows' accumulators back.
#define FC4STORE \
	VMOVUPS Z0, 0(DI); VMOVUPS Z1, 64(DI); VMOVUPS Z2, 128(DI); VMOVUPS Z3, 192(DI); \
	VMOVUPS Z4, 0(DI)(DX*1); VMOVUPS Z5, 64(DI)(DX*1); VMOVUPS Z6, 128(DI)(DX*1); VMOVUPS Z7, 192(DI)(DX*1); \
	VMOVUPS Z8, 0(DI)(DX*2); VMOVUPS Z9, 64(DI)(DX*2); VMOVUPS Z10, 128(DI)(DX*2); VMOVUPS Z11, 192(DI)(DX*2); \
	VMOVUPS Z12, 0(DI)(R12*1); VMOVUPS Z13, 64(DI)(R12*1); VMOVUPS Z14, 128(DI)(R12*1); VMOVUPS Z15, 192(DI)(R12*1)

// FC4ROUND(Z, Y) rounds Z's lanes to F16 values.
#define FC4ROUND(Z, Y) \
	VCVTPS2PH $0, Z, Y; \
	VCVTPH2PS Y, Z

// FC4ROUND4(A0..A3, Y0_..Y3_) rounds a row's accumulators to F16 values.
#define FC4ROUND4(A0, A1, A2, A3, Y0_, Y1_, Y2_, Y3_) \
	FC4ROUND(A0, Y0_); \
	FC4ROUND(A1, Y1_); \
	FC4ROUND(A2, Y2_); \
	FC4ROUND(A3, Y3_)

// FC4SCALE(ADDR, A0..A3, Y0_..Y3_, SKIP) rescales a row's accumulators by
// its scale at ADDR unless that is 1.
#define FC4SCALE(ADDR, A0, A1, A2, A3, Y0_, Y1_, Y2_, Y3_, SKIP) \
	CMPL         ADDR, $0x3f800000; \
	JEQ          SKIP; \
	VBROADCASTSS ADDR, Z24; \
	VMULPS       Z24, A0, A0; \
	VMULPS       Z24, A1, A1; \
	VMULPS       Z24, A2, A2; \
	VMULPS       Z24, A3, A3; \
	FC4ROUND4(A0, A1, A2, A3, Y0_, Y1_, Y2_, Y3_); \
SKIP:

// FC4ACC(W, A0..A3, Y0_..Y3_) adds the widened value row Z16-Z19 times the
// weight W to a row's accumulators, rounding each to F16.
#define FC4ACC(W, A0, A1, A2, A3, Y0_, Y1_, Y2_, Y3_) \
	VFMADD231PS W, Z16, A0; \
	VFMADD231PS W, Z17, A1; \
	VFMADD231PS W, Z18, A2; \
	VFMADD231PS W, Z19, A3; \
	FC4ROUND4(A0, A1, A2, A3, Y0_, Y1_, Y2_, Y3_)

// func attnDotsAVX2(out, q, k *float32, hd, ldk, n int)
//
// out[c] = Σ_i q[i]·k[c·ldk+i] for c < n; hd is a multiple of 8. Four
// cells at a time share each load of q, in four accumulators reduced
// together by horizontal adds.
TEXT ·attnDotsAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ k+16(FP), DX
	MOVQ hd+24(FP), CX
	MOVQ ldk+32(FP), R8
	SHLQ $2, R8
	MOVQ n+40(FP), R9
	SHLQ $2, CX             // hd in bytes
	LEAQ (R8)(R8*2), R13    // 3·ldk

four:
	CMPQ   R9, $4
	JLT    one
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX
	MOVQ   DX, R10
	ADDQ   R8, R10          // cell 1
	LEAQ   (DX)(R8*2), R11  // cell 2
	LEAQ   (DX)(R13*1), R12 // cell 3

fourloop:
	VMOVUPS     (SI)(AX*1), Y4
	VFMADD231PS (DX)(AX*1), Y4, Y0
	VFMADD231PS (R10)(AX*1), Y4, Y1
	VFMADD231PS (R11)(AX*1), Y4, Y2
	VFMADD231PS (R12)(AX*1), Y4, Y3
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         fourloop
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVUPS      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (DX)(R8*4), DX
	SUBQ         $4, R9
	JMP          four

one:
	TESTQ  R9, R9
	JEQ    done
	VXORPS Y0, Y0, Y0
	XORQ   AX, AX

oneloop:
	VMOVUPS     (SI)(AX*1), Y4
	VFMADD231PS (DX)(AX*1), Y4, Y0
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         oneloop
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, (DI)
	ADDQ         $4, DI
	ADDQ         R8, DX
	DECQ         R9
	JMP          one

done:
	VZEROUPPER
	RET

// func attnAccAVX2(acc, v, p *float32, vd, ldv, n int)
//
// acc[i] += Σ_c p[c]·v[c·ldv+i] for i < vd (a multiple of 8): columns in
// chunks of 64 (eight accumulators) then of 8, held in registers over the
// cells.
TEXT ·attnAccAVX2(SB), NOSPLIT, $0-48
	MOVQ acc+0(FP), DI
	MOVQ v+8(FP), SI
	MOVQ p+16(FP), DX
	MOVQ vd+24(FP), CX
	MOVQ ldv+32(FP), R8
	SHLQ $2, R8
	MOVQ n+40(FP), R9

chunk64:
	CMPQ    CX, $64
	JLT     chunk8
	ACC8LOAD
	MOVQ    SI, R10
	MOVQ    DX, R11
	MOVQ    R9, R12

loop64:
	TESTQ        R12, R12
	JEQ          store64
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (R10), Y8, Y0
	VFMADD231PS  32(R10), Y8, Y1
	VFMADD231PS  64(R10), Y8, Y2
	VFMADD231PS  96(R10), Y8, Y3
	VFMADD231PS  128(R10), Y8, Y4
	VFMADD231PS  160(R10), Y8, Y5
	VFMADD231PS  192(R10), Y8, Y6
	VFMADD231PS  224(R10), Y8, Y7
	ADDQ         $4, R11
	ADDQ         R8, R10
	DECQ         R12
	JMP          loop64

store64:
	ACC8STORE
	ADDQ    $256, DI
	ADDQ    $256, SI
	SUBQ    $64, CX
	JMP     chunk64

chunk8:
	TESTQ   CX, CX
	JEQ     accdone
	VMOVUPS (DI), Y0
	MOVQ    SI, R10
	MOVQ    DX, R11
	MOVQ    R9, R12

loop8:
	TESTQ        R12, R12
	JEQ          store8
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (R10), Y8, Y0
	ADDQ         $4, R11
	ADDQ         R8, R10
	DECQ         R12
	JMP          loop8

store8:
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     chunk8

accdone:
	VZEROUPPER
	RET

// func f16ToF32AVX2(dst *float32, src *byte, n, stride, rows int)
//
// Widens rows rows of n (a multiple of 8) F16 values, stride bytes apart
// from src, into consecutive rows of dst.
TEXT ·f16ToF32AVX2(SB), NOSPLIT, $0-40
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  n+16(FP), DX
	MOVQ  stride+24(FP), R8
	MOVQ  rows+32(FP), R9
	SHRQ  $3, DX
	JEQ   f16done
	TESTQ R9, R9
	JEQ   f16done

f16row:
	MOVQ SI, R10
	MOVQ DX, CX

f16loop:
	VCVTPH2PS (R10), Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, R10
	ADDQ      $32, DI
	DECQ      CX
	JNZ       f16loop
	ADDQ      R8, SI
	DECQ      R9
	JNZ       f16row

f16done:
	VZEROUPPER
	RET

// func q8ToF32AVX2(dst *float32, src *byte, blocks, stride, rows int)
//
// Dequantizes rows rows of blocks Q8_0 blocks, stride bytes apart from src,
// into consecutive rows of dst: dst[32b+j] = q·d for the quant q (int8) at
// 34b+2+j and the F16 scale d at 34b.
TEXT ·q8ToF32AVX2(SB), NOSPLIT, $0-40
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  blocks+16(FP), DX
	MOVQ  stride+24(FP), R8
	MOVQ  rows+32(FP), R9
	TESTQ DX, DX
	JEQ   q8done
	TESTQ R9, R9
	JEQ   q8done

q8row:
	MOVQ SI, R10
	MOVQ DX, CX

q8loop:
	MOVWLZX      (R10), AX
	VMOVQ        AX, X0
	VCVTPH2PS    X0, X0
	VBROADCASTSS X0, Y0
	VPMOVSXBD    2(R10), Y1
	VPMOVSXBD    10(R10), Y2
	VPMOVSXBD    18(R10), Y3
	VPMOVSXBD    26(R10), Y4
	VCVTDQ2PS    Y1, Y1
	VCVTDQ2PS    Y2, Y2
	VCVTDQ2PS    Y3, Y3
	VCVTDQ2PS    Y4, Y4
	VMULPS       Y0, Y1, Y1
	VMULPS       Y0, Y2, Y2
	VMULPS       Y0, Y3, Y3
	VMULPS       Y0, Y4, Y4
	VMOVUPS      Y1, (DI)
	VMOVUPS      Y2, 32(DI)
	VMOVUPS      Y3, 64(DI)
	VMOVUPS      Y4, 96(DI)
	ADDQ         $34, R10
	ADDQ         $128, DI
	DECQ         CX
	JNZ          q8loop
	ADDQ         R8, SI
	DECQ         R9
	JNZ          q8row

q8done:
	VZEROUPPER
	RET

// func prefetchRows(p *byte, stride, n, size int)
//
// Prefetches the first size bytes (size > 0) of n rows stride bytes apart
// from p into the caches: the next tile's rows while this one is computed,
// since the strided rows of one head defeat the hardware prefetchers.
TEXT ·prefetchRows(SB), NOSPLIT, $0-32
	MOVQ  p+0(FP), SI
	MOVQ  stride+8(FP), R8
	MOVQ  n+16(FP), CX
	MOVQ  size+24(FP), DX
	TESTQ CX, CX
	JEQ   pfdone

pfrow:
	XORQ AX, AX

pfline:
	PREFETCHT0 (SI)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, DX
	JLT        pfline
	ADDQ       R8, SI
	DECQ       CX
	JNZ        pfrow

pfdone:
	RET

// func f16AccAVX2(acc *float32, v *byte, vs float32, n int)
//
// acc[i] = roundF16(fma(v[i], vs, acc[i])) for the F16 values v, i < n (a
// multiple of 8): the F16 accumulator of ggml's one-row flash attention.
TEXT ·f16AccAVX2(SB), NOSPLIT, $0-32
	MOVQ         acc+0(FP), DI
	MOVQ         v+8(FP), SI
	VBROADCASTSS vs+16(FP), Y1
	MOVQ         n+24(FP), CX
	SHRQ         $3, CX
	JEQ          faccdone

facc:
	VCVTPH2PS   (SI), Y0
	VFMADD213PS (DI), Y1, Y0
	VCVTPS2PH   $0, Y0, X0
	VCVTPH2PS   X0, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $16, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         facc

faccdone:
	VZEROUPPER
	RET

// func f16AccAVX512(acc *float32, v *byte, vs float32, n int)
//
// f16AccAVX2 sixteen values to a register, n a multiple of 16: the same
// operations on each value.
TEXT ·f16AccAVX512(SB), NOSPLIT, $0-32
	MOVQ         acc+0(FP), DI
	MOVQ         v+8(FP), SI
	VBROADCASTSS vs+16(FP), Z1
	MOVQ         n+24(FP), CX
	SHRQ         $4, CX
	JEQ          facczdone

faccz:
	VCVTPH2PS   (SI), Z0
	VFMADD213PS (DI), Z1, Z0
	VCVTPS2PH   $0, Z0, Y0
	VCVTPH2PS   Y0, Z0
	VMOVUPS     Z0, (DI)
	ADDQ        $32, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         faccz

facczdone:
	VZEROUPPER
	RET

// func f16ScaleAVX2(acc *float32, ms float32, n int)
//
// acc[i] = roundF16(acc[i]·ms) for i < n (a multiple of 8).
TEXT ·f16ScaleAVX2(SB), NOSPLIT, $0-24
	MOVQ         acc+0(FP), DI
	VBROADCASTSS ms+8(FP), Y1
	MOVQ         n+16(FP), CX
	SHRQ         $3, CX
	JEQ          fscdone

fsc:
	VMULPS    (DI), Y1, Y0
	VCVTPS2PH $0, Y0, X0
	VCVTPH2PS X0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $32, DI
	DECQ      CX
	JNZ       fsc

fscdone:
	VZEROUPPER
	RET

// func seqDots64AVX2(out, q, kt *float32, hd int)
//
// out[c] = Σ_i q[i]·kt[64i+c] for the 64 cells c of a transposed key tile,
// each a chain of fused multiply-adds in element order: eight accumulators
// of eight cells, one broadcast of q[i] for all of them.
TEXT ·seqDots64AVX2(SB), NOSPLIT, $0-32
	MOVQ   out+0(FP), DI
	MOVQ   q+8(FP), SI
	MOVQ   kt+16(FP), DX
	MOVQ   hd+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ  CX, CX
	JEQ    s64store

s64loop:
	VBROADCASTSS (SI), Y8
	VFMADD231PS  (DX), Y8, Y0
	VFMADD231PS  32(DX), Y8, Y1
	VFMADD231PS  64(DX), Y8, Y2
	VFMADD231PS  96(DX), Y8, Y3
	VFMADD231PS  128(DX), Y8, Y4
	VFMADD231PS  160(DX), Y8, Y5
	VFMADD231PS  192(DX), Y8, Y6
	VFMADD231PS  224(DX), Y8, Y7
	ADDQ         $4, SI
	ADDQ         $256, DX
	DECQ         CX
	JNZ          s64loop

s64store:
	ACC8STORE
	VZEROUPPER
	RET

// func seqDots64x2AVX512(out0, out1, q0, q1, kt *float32, hd int)
TEXT ·seqDots64x2AVX512(SB), NOSPLIT, $0-48
	MOVQ   out0+0(FP), DI
	MOVQ   out1+8(FP), R8
	MOVQ   q0+16(FP), SI
	MOVQ   q1+24(FP), R9
	MOVQ   kt+32(FP), DX
	MOVQ   hd+40(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ  CX, CX
	JEQ    s64x2store

s64x2loop:
	VBROADCASTSS (SI), Z8
	VBROADCASTSS (R9), Z9
	VMOVUPS      (DX), Z10
	VMOVUPS      64(DX), Z11
	VMOVUPS      128(DX), Z12
	VMOVUPS      192(DX), Z13
	VFMADD231PS  Z10, Z8, Z0
	VFMADD231PS  Z11, Z8, Z1
	VFMADD231PS  Z12, Z8, Z2
	VFMADD231PS  Z13, Z8, Z3
	VFMADD231PS  Z10, Z9, Z4
	VFMADD231PS  Z11, Z9, Z5
	VFMADD231PS  Z12, Z9, Z6
	VFMADD231PS  Z13, Z9, Z7
	ADDQ         $4, SI
	ADDQ         $4, R9
	ADDQ         $256, DX
	DECQ         CX
	JNZ          s64x2loop

s64x2store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, (R8)
	VMOVUPS Z5, 64(R8)
	VMOVUPS Z6, 128(R8)
	VMOVUPS Z7, 192(R8)
	VZEROUPPER
	RET

// attnAcc2x80AVX512, attnAcc2x64AVX512 and attnAcc2x16AVX512 take the
// accumulators at DI and R13, the values at SI (R8 bytes apart), the
// weights at DX and BX, and n in R9.

// func attnAcc2x80AVX512(acc0, acc1, v, p0, p1 *float32, ldv, n int)
TEXT ·attnAcc2x80AVX512(SB), NOSPLIT, $0-56
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), R13
	MOVQ v+16(FP), SI
	MOVQ p0+24(FP), DX
	MOVQ p1+32(FP), BX
	MOVQ ldv+40(FP), R8
	SHLQ $2, R8
	MOVQ n+48(FP), R9
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS (R13), Z5
	VMOVUPS 64(R13), Z6
	VMOVUPS 128(R13), Z7
	VMOVUPS 192(R13), Z8
	VMOVUPS 256(R13), Z9
	TESTQ   R9, R9
	JEQ     acc80store

acc80loop:
	VBROADCASTSS (DX), Z10
	VBROADCASTSS (BX), Z11
	VMOVUPS      (SI), Z12
	VMOVUPS      64(SI), Z13
	VMOVUPS      128(SI), Z14
	VMOVUPS      192(SI), Z15
	VMOVUPS      256(SI), Z16
	VFMADD231PS  Z12, Z10, Z0
	VFMADD231PS  Z13, Z10, Z1
	VFMADD231PS  Z14, Z10, Z2
	VFMADD231PS  Z15, Z10, Z3
	VFMADD231PS  Z16, Z10, Z4
	VFMADD231PS  Z12, Z11, Z5
	VFMADD231PS  Z13, Z11, Z6
	VFMADD231PS  Z14, Z11, Z7
	VFMADD231PS  Z15, Z11, Z8
	VFMADD231PS  Z16, Z11, Z9
	ADDQ         $4, DX
	ADDQ         $4, BX
	ADDQ         R8, SI
	DECQ         R9
	JNZ          acc80loop

acc80store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, (R13)
	VMOVUPS Z6, 64(R13)
	VMOVUPS Z7, 128(R13)
	VMOVUPS Z8, 192(R13)
	VMOVUPS Z9, 256(R13)
	VZEROUPPER
	RET

// func attnAcc2x64AVX512(acc0, acc1, v, p0, p1 *float32, ldv, n int)
TEXT ·attnAcc2x64AVX512(SB), NOSPLIT, $0-56
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), R13
	MOVQ v+16(FP), SI
	MOVQ p0+24(FP), DX
	MOVQ p1+32(FP), BX
	MOVQ ldv+40(FP), R8
	SHLQ $2, R8
	MOVQ n+48(FP), R9
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS (R13), Z5
	VMOVUPS 64(R13), Z6
	VMOVUPS 128(R13), Z7
	VMOVUPS 192(R13), Z8
	TESTQ   R9, R9
	JEQ     acc64store

acc64loop:
	VBROADCASTSS (DX), Z10
	VBROADCASTSS (BX), Z11
	VMOVUPS      (SI), Z12
	VMOVUPS      64(SI), Z13
	VMOVUPS      128(SI), Z14
	VMOVUPS      192(SI), Z15
	VFMADD231PS  Z12, Z10, Z0
	VFMADD231PS  Z13, Z10, Z1
	VFMADD231PS  Z14, Z10, Z2
	VFMADD231PS  Z15, Z10, Z3
	VFMADD231PS  Z12, Z11, Z5
	VFMADD231PS  Z13, Z11, Z6
	VFMADD231PS  Z14, Z11, Z7
	VFMADD231PS  Z15, Z11, Z8
	ADDQ         $4, DX
	ADDQ         $4, BX
	ADDQ         R8, SI
	DECQ         R9
	JNZ          acc64loop

acc64store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z5, (R13)
	VMOVUPS Z6, 64(R13)
	VMOVUPS Z7, 128(R13)
	VMOVUPS Z8, 192(R13)
	VZEROUPPER
	RET

// func attnAcc2x16AVX512(acc0, acc1, v, p0, p1 *float32, ldv, n int)
TEXT ·attnAcc2x16AVX512(SB), NOSPLIT, $0-56
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), R13
	MOVQ v+16(FP), SI
	MOVQ p0+24(FP), DX
	MOVQ p1+32(FP), BX
	MOVQ ldv+40(FP), R8
	SHLQ $2, R8
	MOVQ n+48(FP), R9
	VMOVUPS (DI), Z0
	VMOVUPS (R13), Z5
	TESTQ   R9, R9
	JEQ     acc16store

acc16loop:
	VBROADCASTSS (DX), Z10
	VBROADCASTSS (BX), Z11
	VMOVUPS      (SI), Z12
	VFMADD231PS  Z12, Z10, Z0
	VFMADD231PS  Z12, Z11, Z5
	ADDQ         $4, DX
	ADDQ         $4, BX
	ADDQ         R8, SI
	DECQ         R9
	JNZ          acc16loop

acc16store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z5, (R13)
	VZEROUPPER
	RET

// func f16AccCellsAVX2(acc *float32, v *byte, off *int, ms, vs *float32, cells int)
//
// For each cell j < cells (cells > 0) in order: f16ScaleAVX2(acc, ms[j])
// where ms[j] is not 1, then f16AccAVX2(acc, v+off[j], vs[j]), on 64
// values, which stay in Y0-Y7 for all the cells: the same operations on
// each value as those calls, without storing and reloading them a cell.
TEXT ·f16AccCellsAVX2(SB), NOSPLIT, $0-48
	MOVQ    acc+0(FP), DI
	MOVQ    v+8(FP), SI
	MOVQ    off+16(FP), R8
	MOVQ    ms+24(FP), R9
	MOVQ    vs+32(FP), R10
	MOVQ    cells+40(FP), CX
	ACC8LOAD

fcellloop:
	CMPL         (R9), $0x3f800000
	JEQ          fcellacc
	VBROADCASTSS (R9), Y8
	FCELLSCALE(Y0, X0)
	FCELLSCALE(Y1, X1)
	FCELLSCALE(Y2, X2)
	FCELLSCALE(Y3, X3)
	FCELLSCALE(Y4, X4)
	FCELLSCALE(Y5, X5)
	FCELLSCALE(Y6, X6)
	FCELLSCALE(Y7, X7)

fcellacc:
	MOVQ         (R8), AX
	ADDQ         SI, AX
	VBROADCASTSS (R10), Y8
	FCELLACC(0, Y0, X0)
	FCELLACC(16, Y1, X1)
	FCELLACC(32, Y2, X2)
	FCELLACC(48, Y3, X3)
	FCELLACC(64, Y4, X4)
	FCELLACC(80, Y5, X5)
	FCELLACC(96, Y6, X6)
	FCELLACC(112, Y7, X7)
	ADDQ         $8, R8
	ADDQ         $4, R9
	ADDQ         $4, R10
	DECQ         CX
	JNZ          fcellloop

	ACC8STORE
	VZEROUPPER
	RET

// func f16AccCells4AVX512(acc *float32, astride int, v *byte, off *int, ms, vs *float32, sstride, cells int)
//
// f16AccCellsAVX2 for four rows at once on AVX-512: row r's 64
// accumulators at acc+r·astride bytes (in Z4r-Z4r+3 for the run), its
// scales and weights at ms+r·sstride and vs+r·sstride bytes. Each cell's
// value row is widened once (Z16-Z19) for the four rows, whose chains of
// rounded fused multiply-adds then overlap.
TEXT ·f16AccCells4AVX512(SB), NOSPLIT, $0-64
	MOVQ    acc+0(FP), DI
	MOVQ    astride+8(FP), DX
	MOVQ    v+16(FP), SI
	MOVQ    off+24(FP), R8
	MOVQ    ms+32(FP), R9
	MOVQ    vs+40(FP), R10
	MOVQ    sstride+48(FP), R11
	MOVQ    cells+56(FP), CX
	LEAQ    (DX)(DX*2), R12
	LEAQ    (R11)(R11*2), R13
	FC4LOAD

fc4loop:
	FC4SCALE((R9), Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3, fc4s1)
	FC4SCALE((R9)(R11*1), Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7, fc4s2)
	FC4SCALE((R9)(R11*2), Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11, fc4s3)
	FC4SCALE((R9)(R13*1), Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15, fc4s4)
	MOVQ         (R8), AX
	ADDQ         SI, AX
	VCVTPH2PS    0(AX), Z16
	VCVTPH2PS    32(AX), Z17
	VCVTPH2PS    64(AX), Z18
	VCVTPH2PS    96(AX), Z19
	VBROADCASTSS (R10), Z20
	VBROADCASTSS (R10)(R11*1), Z21
	VBROADCASTSS (R10)(R11*2), Z22
	VBROADCASTSS (R10)(R13*1), Z23
	FC4ACC(Z20, Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3)
	FC4ACC(Z21, Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7)
	FC4ACC(Z22, Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11)
	FC4ACC(Z23, Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15)
	ADDQ         $8, R8
	ADDQ         $4, R9
	ADDQ         $4, R10
	DECQ         CX
	JNZ          fc4loop

	FC4STORE
	VZEROUPPER
	RET
