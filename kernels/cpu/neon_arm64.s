#include "textflag.h"

// NEON kernels. The Go assembler lacks most NEON mnemonics, so each such
// instruction is a WORD with its ARM syntax in the comment (encodings
// produced and checked with GNU as/objdump for armv8.2-a+dotprod).
// Registers: x0-x12 and v0-v31 are scratch; the declarations, with what
// each kernel computes, are in neon_arm64.go.

// q80DotSDOT(w *byte, x *q8Block, n int, acc *[8]float32)
TEXT ·q80DotSDOT(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	LSR $1, R2, R5
	CBZ R5, q80DotSDOT_tail
q80DotSDOT_loop:
	WORD $0x7d400010 // ldr h16, [x0, #0]
	WORD $0xbd400031 // ldr s17, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc12001 // ldur q1, [x0, #18]
	WORD $0x3cc08022 // ldur q2, [x1, #8]
	WORD $0x3cc18023 // ldur q3, [x1, #24]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x4f000404 // movi v4.4s, #0
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e829404 // sdot v4.4s, v0.16b, v2.16b
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0x4f901086 // fmla v6.4s, v4.4s, v16.s[0]
	WORD $0x4f9010a7 // fmla v7.4s, v5.4s, v16.s[0]
	WORD $0x7d404410 // ldr h16, [x0, #34]
	WORD $0xbd402831 // ldr s17, [x1, #40]
	WORD $0x3cc24000 // ldur q0, [x0, #36]
	WORD $0x3cc34001 // ldur q1, [x0, #52]
	WORD $0x3cc30022 // ldur q2, [x1, #48]
	WORD $0x3cc40023 // ldur q3, [x1, #64]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x4f000404 // movi v4.4s, #0
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e829404 // sdot v4.4s, v0.16b, v2.16b
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0x4f901086 // fmla v6.4s, v4.4s, v16.s[0]
	WORD $0x4f9010a7 // fmla v7.4s, v5.4s, v16.s[0]
	ADD $68, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q80DotSDOT_loop
q80DotSDOT_tail:
	TBZ $0, R2, q80DotSDOT_done
	WORD $0x7d400010 // ldr h16, [x0, #0]
	WORD $0xbd400031 // ldr s17, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc12001 // ldur q1, [x0, #18]
	WORD $0x3cc08022 // ldur q2, [x1, #8]
	WORD $0x3cc18023 // ldur q3, [x1, #24]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x4f000404 // movi v4.4s, #0
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e829404 // sdot v4.4s, v0.16b, v2.16b
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0x4f901086 // fmla v6.4s, v4.4s, v16.s[0]
	WORD $0x4f9010a7 // fmla v7.4s, v5.4s, v16.s[0]
q80DotSDOT_done:
	WORD $0xad001c66 // stp q6, q7, [x3]
	RET

// q80DotNEON(w *byte, x *q8Block, n int, acc *[8]float32)
TEXT ·q80DotNEON(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	LSR $1, R2, R5
	CBZ R5, q80DotNEON_tail
q80DotNEON_loop:
	WORD $0x7d400010 // ldr h16, [x0, #0]
	WORD $0xbd400031 // ldr s17, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc12001 // ldur q1, [x0, #18]
	WORD $0x3cc08022 // ldur q2, [x1, #8]
	WORD $0x3cc18023 // ldur q3, [x1, #24]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x0e22c008 // smull v8.8h, v0.8b, v2.8b
	WORD $0x4e22c009 // smull2 v9.8h, v0.16b, v2.16b
	WORD $0x0e23c02a // smull v10.8h, v1.8b, v3.8b
	WORD $0x4e23c02b // smull2 v11.8h, v1.16b, v3.16b
	WORD $0x4e602908 // saddlp v8.4s, v8.8h
	WORD $0x4e602929 // saddlp v9.4s, v9.8h
	WORD $0x4e60294a // saddlp v10.4s, v10.8h
	WORD $0x4e60296b // saddlp v11.4s, v11.8h
	WORD $0x4ea9bd04 // addp v4.4s, v8.4s, v9.4s
	WORD $0x4eabbd45 // addp v5.4s, v10.4s, v11.4s
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0x4f901086 // fmla v6.4s, v4.4s, v16.s[0]
	WORD $0x4f9010a7 // fmla v7.4s, v5.4s, v16.s[0]
	WORD $0x7d404410 // ldr h16, [x0, #34]
	WORD $0xbd402831 // ldr s17, [x1, #40]
	WORD $0x3cc24000 // ldur q0, [x0, #36]
	WORD $0x3cc34001 // ldur q1, [x0, #52]
	WORD $0x3cc30022 // ldur q2, [x1, #48]
	WORD $0x3cc40023 // ldur q3, [x1, #64]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x0e22c008 // smull v8.8h, v0.8b, v2.8b
	WORD $0x4e22c009 // smull2 v9.8h, v0.16b, v2.16b
	WORD $0x0e23c02a // smull v10.8h, v1.8b, v3.8b
	WORD $0x4e23c02b // smull2 v11.8h, v1.16b, v3.16b
	WORD $0x4e602908 // saddlp v8.4s, v8.8h
	WORD $0x4e602929 // saddlp v9.4s, v9.8h
	WORD $0x4e60294a // saddlp v10.4s, v10.8h
	WORD $0x4e60296b // saddlp v11.4s, v11.8h
	WORD $0x4ea9bd04 // addp v4.4s, v8.4s, v9.4s
	WORD $0x4eabbd45 // addp v5.4s, v10.4s, v11.4s
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0x4f901086 // fmla v6.4s, v4.4s, v16.s[0]
	WORD $0x4f9010a7 // fmla v7.4s, v5.4s, v16.s[0]
	ADD $68, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q80DotNEON_loop
q80DotNEON_tail:
	TBZ $0, R2, q80DotNEON_done
	WORD $0x7d400010 // ldr h16, [x0, #0]
	WORD $0xbd400031 // ldr s17, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc12001 // ldur q1, [x0, #18]
	WORD $0x3cc08022 // ldur q2, [x1, #8]
	WORD $0x3cc18023 // ldur q3, [x1, #24]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x0e22c008 // smull v8.8h, v0.8b, v2.8b
	WORD $0x4e22c009 // smull2 v9.8h, v0.16b, v2.16b
	WORD $0x0e23c02a // smull v10.8h, v1.8b, v3.8b
	WORD $0x4e23c02b // smull2 v11.8h, v1.16b, v3.16b
	WORD $0x4e602908 // saddlp v8.4s, v8.8h
	WORD $0x4e602929 // saddlp v9.4s, v9.8h
	WORD $0x4e60294a // saddlp v10.4s, v10.8h
	WORD $0x4e60296b // saddlp v11.4s, v11.8h
	WORD $0x4ea9bd04 // addp v4.4s, v8.4s, v9.4s
	WORD $0x4eabbd45 // addp v5.4s, v10.4s, v11.4s
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0x4f901086 // fmla v6.4s, v4.4s, v16.s[0]
	WORD $0x4f9010a7 // fmla v7.4s, v5.4s, v16.s[0]
q80DotNEON_done:
	WORD $0xad001c66 // stp q6, q7, [x3]
	RET

// q40DotSDOT(w *byte, x *q8Block, n int, sum *float32)
TEXT ·q40DotSDOT(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e51e // movi v30.16b, #8
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q40DotSDOT_tail
q40DotSDOT_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	WORD $0x7d402406 // ldr h6, [x0, #18]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x3cc14000 // ldur q0, [x0, #20]
	WORD $0x3cc30023 // ldur q3, [x1, #48]
	WORD $0x3cc40024 // ldur q4, [x1, #64]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	ADD $36, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q40DotSDOT_loop
q40DotSDOT_tail:
	TBZ $0, R2, q40DotSDOT_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
q40DotSDOT_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q40DotNEON(w *byte, x *q8Block, n int, sum *float32)
TEXT ·q40DotNEON(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e51e // movi v30.16b, #8
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q40DotNEON_tail
q40DotNEON_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	WORD $0x7d402406 // ldr h6, [x0, #18]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x3cc14000 // ldur q0, [x0, #20]
	WORD $0x3cc30023 // ldur q3, [x1, #48]
	WORD $0x3cc40024 // ldur q4, [x1, #64]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	ADD $36, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q40DotNEON_loop
q40DotNEON_tail:
	TBZ $0, R2, q40DotNEON_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
q40DotNEON_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// iq4nlDotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8)
TEXT ·iq4nlDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e51e // movi v30.16b, #8
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, iq4nlDotSDOT_tail
iq4nlDotSDOT_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	WORD $0x7d402406 // ldr h6, [x0, #18]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x3cc14000 // ldur q0, [x0, #20]
	WORD $0x3cc30023 // ldur q3, [x1, #48]
	WORD $0x3cc40024 // ldur q4, [x1, #64]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	ADD $36, R0
	ADD $80, R1
	SUBS $1, R5
	BNE iq4nlDotSDOT_loop
iq4nlDotSDOT_tail:
	TBZ $0, R2, iq4nlDotSDOT_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
iq4nlDotSDOT_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// iq4nlDotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8)
TEXT ·iq4nlDotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e51e // movi v30.16b, #8
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, iq4nlDotNEON_tail
iq4nlDotNEON_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	WORD $0x7d402406 // ldr h6, [x0, #18]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x3cc14000 // ldur q0, [x0, #20]
	WORD $0x3cc30023 // ldur q3, [x1, #48]
	WORD $0x3cc40024 // ldur q4, [x1, #64]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	ADD $36, R0
	ADD $80, R1
	SUBS $1, R5
	BNE iq4nlDotNEON_loop
iq4nlDotNEON_tail:
	TBZ $0, R2, iq4nlDotNEON_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc02000 // ldur q0, [x0, #2]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
iq4nlDotNEON_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q4KDotSDOT(w *byte, x *q8KBlock, n int, gemm int, res *float32)
TEXT ·q4KDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD gemm+24(FP), R3
	MOVD res+32(FP), R4
	MOVD R3, R13
	MOVD R4, R14
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00041e // movi v30.4s, #0
	CBZ R2, q4KDotSDOT_done
q4KDotSDOT_loop:
	WORD $0xb9400404 // ldr w4, [x0, #4]
	WORD $0xb9400805 // ldr w5, [x0, #8]
	WORD $0xb9400c06 // ldr w6, [x0, #12]
	WORD $0x1200d487 // and w7, w4, #0x3f3f3f3f
	WORD $0x1200d4a8 // and w8, w5, #0x3f3f3f3f
	WORD $0x1200ccc9 // and w9, w6, #0x0f0f0f0f
	WORD $0x53067c8a // lsr w10, w4, #6
	WORD $0x1200c54a // and w10, w10, #0x03030303
	WORD $0x2a0a1129 // orr w9, w9, w10, lsl #4
	WORD $0x53047ccb // lsr w11, w6, #4
	WORD $0x1200cd6b // and w11, w11, #0x0f0f0f0f
	WORD $0x53067cac // lsr w12, w5, #6
	WORD $0x1200c58c // and w12, w12, #0x03030303
	WORD $0x2a0c116b // orr w11, w11, w12, lsl #4
	WORD $0xaa0980e7 // orr x7, x7, x9, lsl #32
	WORD $0xaa0b8108 // orr x8, x8, x11, lsl #32
	WORD $0x9e6700f4 // fmov d20, x7
	WORD $0x9e670115 // fmov d21, x8
	WORD $0x2f08a694 // uxtl v20.8h, v20.8b
	WORD $0x2f08a6b5 // uxtl v21.8h, v21.8b
	WORD $0x2f10a696 // uxtl v22.4s, v20.4h
	WORD $0x6f10a697 // uxtl2 v23.4s, v20.8h
	WORD $0x91004009 // add x9, x0, #16
	WORD $0x4cdf2120 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9], #64
	WORD $0x4c402124 // ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c18 // and v24.16b, v0.16b, v31.16b
	WORD $0x4e3f1c39 // and v25.16b, v1.16b, v31.16b
	WORD $0x6f0c041a // ushr v26.16b, v0.16b, #4
	WORD $0x6f0c043b // ushr v27.16b, v1.16b, #4
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4e909708 // sdot v8.4s, v24.16b, v16.16b
	WORD $0x4e919728 // sdot v8.4s, v25.16b, v17.16b
	WORD $0x4e929749 // sdot v9.4s, v26.16b, v18.16b
	WORD $0x4e939769 // sdot v9.4s, v27.16b, v19.16b
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c58 // and v24.16b, v2.16b, v31.16b
	WORD $0x4e3f1c79 // and v25.16b, v3.16b, v31.16b
	WORD $0x6f0c045a // ushr v26.16b, v2.16b, #4
	WORD $0x6f0c047b // ushr v27.16b, v3.16b, #4
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
	WORD $0x4e90970a // sdot v10.4s, v24.16b, v16.16b
	WORD $0x4e91972a // sdot v10.4s, v25.16b, v17.16b
	WORD $0x4e92974b // sdot v11.4s, v26.16b, v18.16b
	WORD $0x4e93976b // sdot v11.4s, v27.16b, v19.16b
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c98 // and v24.16b, v4.16b, v31.16b
	WORD $0x4e3f1cb9 // and v25.16b, v5.16b, v31.16b
	WORD $0x6f0c049a // ushr v26.16b, v4.16b, #4
	WORD $0x6f0c04bb // ushr v27.16b, v5.16b, #4
	WORD $0x4f00040c // movi v12.4s, #0
	WORD $0x4f00040d // movi v13.4s, #0
	WORD $0x4e90970c // sdot v12.4s, v24.16b, v16.16b
	WORD $0x4e91972c // sdot v12.4s, v25.16b, v17.16b
	WORD $0x4e92974d // sdot v13.4s, v26.16b, v18.16b
	WORD $0x4e93976d // sdot v13.4s, v27.16b, v19.16b
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1cd8 // and v24.16b, v6.16b, v31.16b
	WORD $0x4e3f1cf9 // and v25.16b, v7.16b, v31.16b
	WORD $0x6f0c04da // ushr v26.16b, v6.16b, #4
	WORD $0x6f0c04fb // ushr v27.16b, v7.16b, #4
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4f00040f // movi v15.4s, #0
	WORD $0x4e90970e // sdot v14.4s, v24.16b, v16.16b
	WORD $0x4e91972e // sdot v14.4s, v25.16b, v17.16b
	WORD $0x4e92974f // sdot v15.4s, v26.16b, v18.16b
	WORD $0x4e93976f // sdot v15.4s, v27.16b, v19.16b
	WORD $0x4ea9bd08 // addp v8.4s, v8.4s, v9.4s
	WORD $0x4eabbd4a // addp v10.4s, v10.4s, v11.4s
	WORD $0x4eadbd8c // addp v12.4s, v12.4s, v13.4s
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x4eaabd08 // addp v8.4s, v8.4s, v10.4s
	WORD $0x4eaebd8c // addp v12.4s, v12.4s, v14.4s
	WORD $0x4eb69d08 // mul v8.4s, v8.4s, v22.4s
	WORD $0x4eb79d8c // mul v12.4s, v12.4s, v23.4s
	WORD $0x4eacbd08 // addp v8.4s, v8.4s, v12.4s
	WORD $0x9104102b // add x11, x1, #260
	WORD $0x4c40a578 // ld1 {v24.8h, v25.8h}, [x11]
	WORD $0x4e79bf18 // addp v24.8h, v24.8h, v25.8h
	WORD $0x0e75c319 // smull v25.4s, v24.4h, v21.4h
	WORD $0x4e75c31a // smull2 v26.4s, v24.8h, v21.8h
	WORD $0x4ebabf39 // addp v25.4s, v25.4s, v26.4s
	WORD $0xbd40003a // ldr s26, [x1]
	WORD $0x7d40001b // ldr h27, [x0, #0]
	WORD $0x7d40041c // ldr h28, [x0, #2]
	WORD $0x1ee2437b // fcvt s27, h27
	WORD $0x1ee2439c // fcvt s28, h28
	WORD $0x1e3a0b7b // fmul s27, s27, s26
	WORD $0x1e3a0b9c // fmul s28, s28, s26
	CBZ R13, q4KDotSDOT_gemv
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21db39 // scvtf v25.4s, v25.4s
	WORD $0x5f88137d // fmla s29, s27, v8.s[0]
	WORD $0x5f99139e // fmla s30, s28, v25.s[0]
	WORD $0x5fa8137d // fmla s29, s27, v8.s[1]
	WORD $0x5fb9139e // fmla s30, s28, v25.s[1]
	WORD $0x5f881b7d // fmla s29, s27, v8.s[2]
	WORD $0x5f991b9e // fmla s30, s28, v25.s[2]
	WORD $0x5fa81b7d // fmla s29, s27, v8.s[3]
	WORD $0x5fb91b9e // fmla s30, s28, v25.s[3]
	B q4KDotSDOT_next
q4KDotSDOT_gemv:
	WORD $0x4eb1b908 // addv s8, v8.4s
	WORD $0x4eb1bb39 // addv s25, v25.4s
	WORD $0x5e21d908 // scvtf s8, s8
	WORD $0x5e21db39 // scvtf s25, s25
	WORD $0x1f1b751d // fmadd s29, s8, s27, s29
	WORD $0x1f1c7b3e // fmadd s30, s25, s28, s30
q4KDotSDOT_next:
	ADD $144, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q4KDotSDOT_loop
q4KDotSDOT_done:
	WORD $0x1e3e3bbd // fsub s29, s29, s30
	WORD $0xbd0001dd // str s29, [x14]
	RET

// q4KDotNEON(w *byte, x *q8KBlock, n int, gemm int, res *float32)
TEXT ·q4KDotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD gemm+24(FP), R3
	MOVD res+32(FP), R4
	MOVD R3, R13
	MOVD R4, R14
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00041e // movi v30.4s, #0
	CBZ R2, q4KDotNEON_done
q4KDotNEON_loop:
	WORD $0xb9400404 // ldr w4, [x0, #4]
	WORD $0xb9400805 // ldr w5, [x0, #8]
	WORD $0xb9400c06 // ldr w6, [x0, #12]
	WORD $0x1200d487 // and w7, w4, #0x3f3f3f3f
	WORD $0x1200d4a8 // and w8, w5, #0x3f3f3f3f
	WORD $0x1200ccc9 // and w9, w6, #0x0f0f0f0f
	WORD $0x53067c8a // lsr w10, w4, #6
	WORD $0x1200c54a // and w10, w10, #0x03030303
	WORD $0x2a0a1129 // orr w9, w9, w10, lsl #4
	WORD $0x53047ccb // lsr w11, w6, #4
	WORD $0x1200cd6b // and w11, w11, #0x0f0f0f0f
	WORD $0x53067cac // lsr w12, w5, #6
	WORD $0x1200c58c // and w12, w12, #0x03030303
	WORD $0x2a0c116b // orr w11, w11, w12, lsl #4
	WORD $0xaa0980e7 // orr x7, x7, x9, lsl #32
	WORD $0xaa0b8108 // orr x8, x8, x11, lsl #32
	WORD $0x9e6700f4 // fmov d20, x7
	WORD $0x9e670115 // fmov d21, x8
	WORD $0x2f08a694 // uxtl v20.8h, v20.8b
	WORD $0x2f08a6b5 // uxtl v21.8h, v21.8b
	WORD $0x2f10a696 // uxtl v22.4s, v20.4h
	WORD $0x6f10a697 // uxtl2 v23.4s, v20.8h
	WORD $0x91004009 // add x9, x0, #16
	WORD $0x4cdf2120 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9], #64
	WORD $0x4c402124 // ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c18 // and v24.16b, v0.16b, v31.16b
	WORD $0x4e3f1c39 // and v25.16b, v1.16b, v31.16b
	WORD $0x6f0c041a // ushr v26.16b, v0.16b, #4
	WORD $0x6f0c043b // ushr v27.16b, v1.16b, #4
	WORD $0x0e30c308 // smull v8.8h, v24.8b, v16.8b
	WORD $0x4e308308 // smlal2 v8.8h, v24.16b, v16.16b
	WORD $0x0e318328 // smlal v8.8h, v25.8b, v17.8b
	WORD $0x4e318328 // smlal2 v8.8h, v25.16b, v17.16b
	WORD $0x4e602908 // saddlp v8.4s, v8.8h
	WORD $0x0e32c349 // smull v9.8h, v26.8b, v18.8b
	WORD $0x4e328349 // smlal2 v9.8h, v26.16b, v18.16b
	WORD $0x0e338369 // smlal v9.8h, v27.8b, v19.8b
	WORD $0x4e338369 // smlal2 v9.8h, v27.16b, v19.16b
	WORD $0x4e602929 // saddlp v9.4s, v9.8h
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c58 // and v24.16b, v2.16b, v31.16b
	WORD $0x4e3f1c79 // and v25.16b, v3.16b, v31.16b
	WORD $0x6f0c045a // ushr v26.16b, v2.16b, #4
	WORD $0x6f0c047b // ushr v27.16b, v3.16b, #4
	WORD $0x0e30c30a // smull v10.8h, v24.8b, v16.8b
	WORD $0x4e30830a // smlal2 v10.8h, v24.16b, v16.16b
	WORD $0x0e31832a // smlal v10.8h, v25.8b, v17.8b
	WORD $0x4e31832a // smlal2 v10.8h, v25.16b, v17.16b
	WORD $0x4e60294a // saddlp v10.4s, v10.8h
	WORD $0x0e32c34b // smull v11.8h, v26.8b, v18.8b
	WORD $0x4e32834b // smlal2 v11.8h, v26.16b, v18.16b
	WORD $0x0e33836b // smlal v11.8h, v27.8b, v19.8b
	WORD $0x4e33836b // smlal2 v11.8h, v27.16b, v19.16b
	WORD $0x4e60296b // saddlp v11.4s, v11.8h
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c98 // and v24.16b, v4.16b, v31.16b
	WORD $0x4e3f1cb9 // and v25.16b, v5.16b, v31.16b
	WORD $0x6f0c049a // ushr v26.16b, v4.16b, #4
	WORD $0x6f0c04bb // ushr v27.16b, v5.16b, #4
	WORD $0x0e30c30c // smull v12.8h, v24.8b, v16.8b
	WORD $0x4e30830c // smlal2 v12.8h, v24.16b, v16.16b
	WORD $0x0e31832c // smlal v12.8h, v25.8b, v17.8b
	WORD $0x4e31832c // smlal2 v12.8h, v25.16b, v17.16b
	WORD $0x4e60298c // saddlp v12.4s, v12.8h
	WORD $0x0e32c34d // smull v13.8h, v26.8b, v18.8b
	WORD $0x4e32834d // smlal2 v13.8h, v26.16b, v18.16b
	WORD $0x0e33836d // smlal v13.8h, v27.8b, v19.8b
	WORD $0x4e33836d // smlal2 v13.8h, v27.16b, v19.16b
	WORD $0x4e6029ad // saddlp v13.4s, v13.8h
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1cd8 // and v24.16b, v6.16b, v31.16b
	WORD $0x4e3f1cf9 // and v25.16b, v7.16b, v31.16b
	WORD $0x6f0c04da // ushr v26.16b, v6.16b, #4
	WORD $0x6f0c04fb // ushr v27.16b, v7.16b, #4
	WORD $0x0e30c30e // smull v14.8h, v24.8b, v16.8b
	WORD $0x4e30830e // smlal2 v14.8h, v24.16b, v16.16b
	WORD $0x0e31832e // smlal v14.8h, v25.8b, v17.8b
	WORD $0x4e31832e // smlal2 v14.8h, v25.16b, v17.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x0e32c34f // smull v15.8h, v26.8b, v18.8b
	WORD $0x4e32834f // smlal2 v15.8h, v26.16b, v18.16b
	WORD $0x0e33836f // smlal v15.8h, v27.8b, v19.8b
	WORD $0x4e33836f // smlal2 v15.8h, v27.16b, v19.16b
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4ea9bd08 // addp v8.4s, v8.4s, v9.4s
	WORD $0x4eabbd4a // addp v10.4s, v10.4s, v11.4s
	WORD $0x4eadbd8c // addp v12.4s, v12.4s, v13.4s
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x4eaabd08 // addp v8.4s, v8.4s, v10.4s
	WORD $0x4eaebd8c // addp v12.4s, v12.4s, v14.4s
	WORD $0x4eb69d08 // mul v8.4s, v8.4s, v22.4s
	WORD $0x4eb79d8c // mul v12.4s, v12.4s, v23.4s
	WORD $0x4eacbd08 // addp v8.4s, v8.4s, v12.4s
	WORD $0x9104102b // add x11, x1, #260
	WORD $0x4c40a578 // ld1 {v24.8h, v25.8h}, [x11]
	WORD $0x4e79bf18 // addp v24.8h, v24.8h, v25.8h
	WORD $0x0e75c319 // smull v25.4s, v24.4h, v21.4h
	WORD $0x4e75c31a // smull2 v26.4s, v24.8h, v21.8h
	WORD $0x4ebabf39 // addp v25.4s, v25.4s, v26.4s
	WORD $0xbd40003a // ldr s26, [x1]
	WORD $0x7d40001b // ldr h27, [x0, #0]
	WORD $0x7d40041c // ldr h28, [x0, #2]
	WORD $0x1ee2437b // fcvt s27, h27
	WORD $0x1ee2439c // fcvt s28, h28
	WORD $0x1e3a0b7b // fmul s27, s27, s26
	WORD $0x1e3a0b9c // fmul s28, s28, s26
	CBZ R13, q4KDotNEON_gemv
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21db39 // scvtf v25.4s, v25.4s
	WORD $0x5f88137d // fmla s29, s27, v8.s[0]
	WORD $0x5f99139e // fmla s30, s28, v25.s[0]
	WORD $0x5fa8137d // fmla s29, s27, v8.s[1]
	WORD $0x5fb9139e // fmla s30, s28, v25.s[1]
	WORD $0x5f881b7d // fmla s29, s27, v8.s[2]
	WORD $0x5f991b9e // fmla s30, s28, v25.s[2]
	WORD $0x5fa81b7d // fmla s29, s27, v8.s[3]
	WORD $0x5fb91b9e // fmla s30, s28, v25.s[3]
	B q4KDotNEON_next
q4KDotNEON_gemv:
	WORD $0x4eb1b908 // addv s8, v8.4s
	WORD $0x4eb1bb39 // addv s25, v25.4s
	WORD $0x5e21d908 // scvtf s8, s8
	WORD $0x5e21db39 // scvtf s25, s25
	WORD $0x1f1b751d // fmadd s29, s8, s27, s29
	WORD $0x1f1c7b3e // fmadd s30, s25, s28, s30
q4KDotNEON_next:
	ADD $144, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q4KDotNEON_loop
q4KDotNEON_done:
	WORD $0x1e3e3bbd // fsub s29, s29, s30
	WORD $0xbd0001dd // str s29, [x14]
	RET

// q6KDotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)
TEXT ·q6KDotSDOT(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	WORD $0x4f00e5fd // movi v29.16b, #15
	WORD $0x4f01e61c // movi v28.16b, #48
	CBZ R2, q6KDotSDOT_done
q6KDotSDOT_loop:
	WORD $0x3dc03014 // ldr q20, [x0, #192]
	WORD $0x4f08a695 // sxtl2 v21.8h, v20.16b
	WORD $0x0f08a694 // sxtl v20.8h, v20.8b
	WORD $0x0f10a696 // sxtl v22.4s, v20.4h
	WORD $0x4f10a697 // sxtl2 v23.4s, v20.8h
	WORD $0x0f10a6b8 // sxtl v24.4s, v21.4h
	WORD $0x4f10a6b9 // sxtl2 v25.4s, v21.8h
	WORD $0x91041029 // add x9, x1, #260
	WORD $0x4c40a53a // ld1 {v26.8h, v27.8h}, [x9]
	WORD $0x0e7ac290 // smull v16.4s, v20.4h, v26.4h
	WORD $0x4e7ac291 // smull2 v17.4s, v20.8h, v26.8h
	WORD $0x0e7bc2b2 // smull v18.4s, v21.4h, v27.4h
	WORD $0x4e7bc2b3 // smull2 v19.4s, v21.8h, v27.8h
	WORD $0x4eb1be10 // addp v16.4s, v16.4s, v17.4s
	WORD $0x4eb3be52 // addp v18.4s, v18.4s, v19.4s
	WORD $0x4f25561a // shl v26.4s, v16.4s, #5
	WORD $0x4f25565b // shl v27.4s, v18.4s, #5
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x9100102a // add x10, x1, #4
	WORD $0xaa0003eb // mov x11, x0
	WORD $0x9102000c // add x12, x0, #128
	WORD $0x4cdf2160 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x11], #64
	WORD $0x4cdfa184 // ld1 {v4.16b, v5.16b}, [x12], #32
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x4e3d1c0c // and v12.16b, v0.16b, v29.16b
	WORD $0x4f0c548d // shl v13.16b, v4.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e88958e // sdot v14.4s, v12.16b, v8.16b
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3d1c2c // and v12.16b, v1.16b, v29.16b
	WORD $0x4f0c54ad // shl v13.16b, v5.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e89958e // sdot v14.4s, v12.16b, v9.16b
	WORD $0x6fb601d1 // mla v17.4s, v14.4s, v22.s[1]
	WORD $0x4e3d1c4c // and v12.16b, v2.16b, v29.16b
	WORD $0x4f0a548d // shl v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a958e // sdot v14.4s, v12.16b, v10.16b
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x4e3d1c6c // and v12.16b, v3.16b, v29.16b
	WORD $0x4f0a54ad // shl v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b958e // sdot v14.4s, v12.16b, v11.16b
	WORD $0x6fb609d1 // mla v17.4s, v14.4s, v22.s[3]
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x6f0c040c // ushr v12.16b, v0.16b, #4
	WORD $0x4ea41c8d // mov v13.16b, v4.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e88958e // sdot v14.4s, v12.16b, v8.16b
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x6f0c042c // ushr v12.16b, v1.16b, #4
	WORD $0x4ea51cad // mov v13.16b, v5.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e89958e // sdot v14.4s, v12.16b, v9.16b
	WORD $0x6fb701d1 // mla v17.4s, v14.4s, v23.s[1]
	WORD $0x6f0c044c // ushr v12.16b, v2.16b, #4
	WORD $0x6f0e048d // ushr v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a958e // sdot v14.4s, v12.16b, v10.16b
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x6f0c046c // ushr v12.16b, v3.16b, #4
	WORD $0x6f0e04ad // ushr v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b958e // sdot v14.4s, v12.16b, v11.16b
	WORD $0x6fb709d1 // mla v17.4s, v14.4s, v23.s[3]
	WORD $0x4cdf2160 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x11], #64
	WORD $0x4cdfa184 // ld1 {v4.16b, v5.16b}, [x12], #32
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x4e3d1c0c // and v12.16b, v0.16b, v29.16b
	WORD $0x4f0c548d // shl v13.16b, v4.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e88958e // sdot v14.4s, v12.16b, v8.16b
	WORD $0x6f9801c6 // mla v6.4s, v14.4s, v24.s[0]
	WORD $0x4e3d1c2c // and v12.16b, v1.16b, v29.16b
	WORD $0x4f0c54ad // shl v13.16b, v5.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e89958e // sdot v14.4s, v12.16b, v9.16b
	WORD $0x6fb801c7 // mla v7.4s, v14.4s, v24.s[1]
	WORD $0x4e3d1c4c // and v12.16b, v2.16b, v29.16b
	WORD $0x4f0a548d // shl v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a958e // sdot v14.4s, v12.16b, v10.16b
	WORD $0x6f9809c6 // mla v6.4s, v14.4s, v24.s[2]
	WORD $0x4e3d1c6c // and v12.16b, v3.16b, v29.16b
	WORD $0x4f0a54ad // shl v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b958e // sdot v14.4s, v12.16b, v11.16b
	WORD $0x6fb809c7 // mla v7.4s, v14.4s, v24.s[3]
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x6f0c040c // ushr v12.16b, v0.16b, #4
	WORD $0x4ea41c8d // mov v13.16b, v4.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e88958e // sdot v14.4s, v12.16b, v8.16b
	WORD $0x6f9901c6 // mla v6.4s, v14.4s, v25.s[0]
	WORD $0x6f0c042c // ushr v12.16b, v1.16b, #4
	WORD $0x4ea51cad // mov v13.16b, v5.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e89958e // sdot v14.4s, v12.16b, v9.16b
	WORD $0x6fb901c7 // mla v7.4s, v14.4s, v25.s[1]
	WORD $0x6f0c044c // ushr v12.16b, v2.16b, #4
	WORD $0x6f0e048d // ushr v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a958e // sdot v14.4s, v12.16b, v10.16b
	WORD $0x6f9909c6 // mla v6.4s, v14.4s, v25.s[2]
	WORD $0x6f0c046c // ushr v12.16b, v3.16b, #4
	WORD $0x6f0e04ad // ushr v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b958e // sdot v14.4s, v12.16b, v11.16b
	WORD $0x6fb909c7 // mla v7.4s, v14.4s, v25.s[3]
	WORD $0x4ea68610 // add v16.4s, v16.4s, v6.4s
	WORD $0x4ea78631 // add v17.4s, v17.4s, v7.4s
	WORD $0x6eba8610 // sub v16.4s, v16.4s, v26.4s
	WORD $0x6ebb8631 // sub v17.4s, v17.4s, v27.4s
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x7d41a012 // ldr h18, [x0, #208]
	WORD $0xbd400033 // ldr s19, [x1]
	WORD $0x1ee24252 // fcvt s18, h18
	WORD $0x1e320a72 // fmul s18, s19, s18
	WORD $0x4f92121e // fmla v30.4s, v16.4s, v18.s[0]
	WORD $0x4f92123f // fmla v31.4s, v17.4s, v18.s[0]
	ADD $210, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q6KDotSDOT_loop
q6KDotSDOT_done:
	WORD $0xad007c7e // stp q30, q31, [x3]
	RET

// q6KDotNEON(w *byte, x *q8KBlock, n int, acc *[8]float32)
TEXT ·q6KDotNEON(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	WORD $0x4f00e5fd // movi v29.16b, #15
	WORD $0x4f01e61c // movi v28.16b, #48
	CBZ R2, q6KDotNEON_done
q6KDotNEON_loop:
	WORD $0x3dc03014 // ldr q20, [x0, #192]
	WORD $0x4f08a695 // sxtl2 v21.8h, v20.16b
	WORD $0x0f08a694 // sxtl v20.8h, v20.8b
	WORD $0x0f10a696 // sxtl v22.4s, v20.4h
	WORD $0x4f10a697 // sxtl2 v23.4s, v20.8h
	WORD $0x0f10a6b8 // sxtl v24.4s, v21.4h
	WORD $0x4f10a6b9 // sxtl2 v25.4s, v21.8h
	WORD $0x91041029 // add x9, x1, #260
	WORD $0x4c40a53a // ld1 {v26.8h, v27.8h}, [x9]
	WORD $0x0e7ac290 // smull v16.4s, v20.4h, v26.4h
	WORD $0x4e7ac291 // smull2 v17.4s, v20.8h, v26.8h
	WORD $0x0e7bc2b2 // smull v18.4s, v21.4h, v27.4h
	WORD $0x4e7bc2b3 // smull2 v19.4s, v21.8h, v27.8h
	WORD $0x4eb1be10 // addp v16.4s, v16.4s, v17.4s
	WORD $0x4eb3be52 // addp v18.4s, v18.4s, v19.4s
	WORD $0x4f25561a // shl v26.4s, v16.4s, #5
	WORD $0x4f25565b // shl v27.4s, v18.4s, #5
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x9100102a // add x10, x1, #4
	WORD $0xaa0003eb // mov x11, x0
	WORD $0x9102000c // add x12, x0, #128
	WORD $0x4cdf2160 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x11], #64
	WORD $0x4cdfa184 // ld1 {v4.16b, v5.16b}, [x12], #32
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x4e3d1c0c // and v12.16b, v0.16b, v29.16b
	WORD $0x4f0c548d // shl v13.16b, v4.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e28c18e // smull v14.8h, v12.8b, v8.8b
	WORD $0x4e28c18f // smull2 v15.8h, v12.16b, v8.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3d1c2c // and v12.16b, v1.16b, v29.16b
	WORD $0x4f0c54ad // shl v13.16b, v5.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e29c18e // smull v14.8h, v12.8b, v9.8b
	WORD $0x4e29c18f // smull2 v15.8h, v12.16b, v9.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb601d1 // mla v17.4s, v14.4s, v22.s[1]
	WORD $0x4e3d1c4c // and v12.16b, v2.16b, v29.16b
	WORD $0x4f0a548d // shl v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2ac18e // smull v14.8h, v12.8b, v10.8b
	WORD $0x4e2ac18f // smull2 v15.8h, v12.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x4e3d1c6c // and v12.16b, v3.16b, v29.16b
	WORD $0x4f0a54ad // shl v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2bc18e // smull v14.8h, v12.8b, v11.8b
	WORD $0x4e2bc18f // smull2 v15.8h, v12.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb609d1 // mla v17.4s, v14.4s, v22.s[3]
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x6f0c040c // ushr v12.16b, v0.16b, #4
	WORD $0x4ea41c8d // mov v13.16b, v4.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e28c18e // smull v14.8h, v12.8b, v8.8b
	WORD $0x4e28c18f // smull2 v15.8h, v12.16b, v8.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x6f0c042c // ushr v12.16b, v1.16b, #4
	WORD $0x4ea51cad // mov v13.16b, v5.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e29c18e // smull v14.8h, v12.8b, v9.8b
	WORD $0x4e29c18f // smull2 v15.8h, v12.16b, v9.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb701d1 // mla v17.4s, v14.4s, v23.s[1]
	WORD $0x6f0c044c // ushr v12.16b, v2.16b, #4
	WORD $0x6f0e048d // ushr v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2ac18e // smull v14.8h, v12.8b, v10.8b
	WORD $0x4e2ac18f // smull2 v15.8h, v12.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x6f0c046c // ushr v12.16b, v3.16b, #4
	WORD $0x6f0e04ad // ushr v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2bc18e // smull v14.8h, v12.8b, v11.8b
	WORD $0x4e2bc18f // smull2 v15.8h, v12.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb709d1 // mla v17.4s, v14.4s, v23.s[3]
	WORD $0x4cdf2160 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x11], #64
	WORD $0x4cdfa184 // ld1 {v4.16b, v5.16b}, [x12], #32
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x4e3d1c0c // and v12.16b, v0.16b, v29.16b
	WORD $0x4f0c548d // shl v13.16b, v4.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e28c18e // smull v14.8h, v12.8b, v8.8b
	WORD $0x4e28c18f // smull2 v15.8h, v12.16b, v8.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9801c6 // mla v6.4s, v14.4s, v24.s[0]
	WORD $0x4e3d1c2c // and v12.16b, v1.16b, v29.16b
	WORD $0x4f0c54ad // shl v13.16b, v5.16b, #4
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e29c18e // smull v14.8h, v12.8b, v9.8b
	WORD $0x4e29c18f // smull2 v15.8h, v12.16b, v9.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb801c7 // mla v7.4s, v14.4s, v24.s[1]
	WORD $0x4e3d1c4c // and v12.16b, v2.16b, v29.16b
	WORD $0x4f0a548d // shl v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2ac18e // smull v14.8h, v12.8b, v10.8b
	WORD $0x4e2ac18f // smull2 v15.8h, v12.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9809c6 // mla v6.4s, v14.4s, v24.s[2]
	WORD $0x4e3d1c6c // and v12.16b, v3.16b, v29.16b
	WORD $0x4f0a54ad // shl v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2bc18e // smull v14.8h, v12.8b, v11.8b
	WORD $0x4e2bc18f // smull2 v15.8h, v12.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb809c7 // mla v7.4s, v14.4s, v24.s[3]
	WORD $0x4cdf2148 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x10], #64
	WORD $0x6f0c040c // ushr v12.16b, v0.16b, #4
	WORD $0x4ea41c8d // mov v13.16b, v4.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e28c18e // smull v14.8h, v12.8b, v8.8b
	WORD $0x4e28c18f // smull2 v15.8h, v12.16b, v8.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9901c6 // mla v6.4s, v14.4s, v25.s[0]
	WORD $0x6f0c042c // ushr v12.16b, v1.16b, #4
	WORD $0x4ea51cad // mov v13.16b, v5.16b
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e29c18e // smull v14.8h, v12.8b, v9.8b
	WORD $0x4e29c18f // smull2 v15.8h, v12.16b, v9.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb901c7 // mla v7.4s, v14.4s, v25.s[1]
	WORD $0x6f0c044c // ushr v12.16b, v2.16b, #4
	WORD $0x6f0e048d // ushr v13.16b, v4.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2ac18e // smull v14.8h, v12.8b, v10.8b
	WORD $0x4e2ac18f // smull2 v15.8h, v12.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9909c6 // mla v6.4s, v14.4s, v25.s[2]
	WORD $0x6f0c046c // ushr v12.16b, v3.16b, #4
	WORD $0x6f0e04ad // ushr v13.16b, v5.16b, #2
	WORD $0x4e3c1dad // and v13.16b, v13.16b, v28.16b
	WORD $0x4ead1d8c // orr v12.16b, v12.16b, v13.16b
	WORD $0x0e2bc18e // smull v14.8h, v12.8b, v11.8b
	WORD $0x4e2bc18f // smull2 v15.8h, v12.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb909c7 // mla v7.4s, v14.4s, v25.s[3]
	WORD $0x4ea68610 // add v16.4s, v16.4s, v6.4s
	WORD $0x4ea78631 // add v17.4s, v17.4s, v7.4s
	WORD $0x6eba8610 // sub v16.4s, v16.4s, v26.4s
	WORD $0x6ebb8631 // sub v17.4s, v17.4s, v27.4s
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x7d41a012 // ldr h18, [x0, #208]
	WORD $0xbd400033 // ldr s19, [x1]
	WORD $0x1ee24252 // fcvt s18, h18
	WORD $0x1e320a72 // fmul s18, s19, s18
	WORD $0x4f92121e // fmla v30.4s, v16.4s, v18.s[0]
	WORD $0x4f92123f // fmla v31.4s, v17.4s, v18.s[0]
	ADD $210, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q6KDotNEON_loop
q6KDotNEON_done:
	WORD $0xad007c7e // stp q30, q31, [x3]
	RET

// q5KDotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32, mins *float32)
TEXT ·q5KDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	MOVD mins+32(FP), R4
	MOVD R4, R13
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00e5fc // movi v28.16b, #15
	WORD $0x4f00e61b // movi v27.16b, #16
	CBZ R2, q5KDotSDOT_done
q5KDotSDOT_loop:
	WORD $0xb9400404 // ldr w4, [x0, #4]
	WORD $0xb9400805 // ldr w5, [x0, #8]
	WORD $0xb9400c06 // ldr w6, [x0, #12]
	WORD $0x1200d487 // and w7, w4, #0x3f3f3f3f
	WORD $0x1200d4a8 // and w8, w5, #0x3f3f3f3f
	WORD $0x1200ccc9 // and w9, w6, #0x0f0f0f0f
	WORD $0x53067c8a // lsr w10, w4, #6
	WORD $0x1200c54a // and w10, w10, #0x03030303
	WORD $0x2a0a1129 // orr w9, w9, w10, lsl #4
	WORD $0x53047ccb // lsr w11, w6, #4
	WORD $0x1200cd6b // and w11, w11, #0x0f0f0f0f
	WORD $0x53067cac // lsr w12, w5, #6
	WORD $0x1200c58c // and w12, w12, #0x03030303
	WORD $0x2a0c116b // orr w11, w11, w12, lsl #4
	WORD $0xaa0980e7 // orr x7, x7, x9, lsl #32
	WORD $0xaa0b8108 // orr x8, x8, x11, lsl #32
	WORD $0x9e6700f4 // fmov d20, x7
	WORD $0x9e670115 // fmov d21, x8
	WORD $0x2f08a694 // uxtl v20.8h, v20.8b
	WORD $0x2f08a6b5 // uxtl v21.8h, v21.8b
	WORD $0x2f10a696 // uxtl v22.4s, v20.4h
	WORD $0x6f10a697 // uxtl2 v23.4s, v20.8h
	WORD $0x9104102b // add x11, x1, #260
	WORD $0x4c40a578 // ld1 {v24.8h, v25.8h}, [x11]
	WORD $0x4e79bf18 // addp v24.8h, v24.8h, v25.8h
	WORD $0x0e75c319 // smull v25.4s, v24.4h, v21.4h
	WORD $0x4e758319 // smlal2 v25.4s, v24.8h, v21.8h
	WORD $0x4eb1bb39 // addv s25, v25.4s
	WORD $0x5e21db39 // scvtf s25, s25
	WORD $0x91004009 // add x9, x0, #16
	WORD $0x4cdfa120 // ld1 {v0.16b, v1.16b}, [x9], #32
	WORD $0x4cdf2122 // ld1 {v2.16b, v3.16b, v4.16b, v5.16b}, [x9], #64
	WORD $0x4c402126 // ld1 {v6.16b, v7.16b, v8.16b, v9.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1c52 // and v18.16b, v2.16b, v28.16b
	WORD $0x4f0c5413 // shl v19.16b, v0.16b, #4
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3c1c72 // and v18.16b, v3.16b, v28.16b
	WORD $0x4f0c5433 // shl v19.16b, v1.16b, #4
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6f9601d1 // mla v17.4s, v14.4s, v22.s[0]
	WORD $0x6f0c0452 // ushr v18.16b, v2.16b, #4
	WORD $0x4f0b5413 // shl v19.16b, v0.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8c964e // sdot v14.4s, v18.16b, v12.16b
	WORD $0x6fb601d0 // mla v16.4s, v14.4s, v22.s[1]
	WORD $0x6f0c0472 // ushr v18.16b, v3.16b, #4
	WORD $0x4f0b5433 // shl v19.16b, v1.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8d964e // sdot v14.4s, v18.16b, v13.16b
	WORD $0x6fb601d1 // mla v17.4s, v14.4s, v22.s[1]
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1c92 // and v18.16b, v4.16b, v28.16b
	WORD $0x4f0a5413 // shl v19.16b, v0.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x4e3c1cb2 // and v18.16b, v5.16b, v28.16b
	WORD $0x4f0a5433 // shl v19.16b, v1.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6f9609d1 // mla v17.4s, v14.4s, v22.s[2]
	WORD $0x6f0c0492 // ushr v18.16b, v4.16b, #4
	WORD $0x4f095413 // shl v19.16b, v0.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8c964e // sdot v14.4s, v18.16b, v12.16b
	WORD $0x6fb609d0 // mla v16.4s, v14.4s, v22.s[3]
	WORD $0x6f0c04b2 // ushr v18.16b, v5.16b, #4
	WORD $0x4f095433 // shl v19.16b, v1.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8d964e // sdot v14.4s, v18.16b, v13.16b
	WORD $0x6fb609d1 // mla v17.4s, v14.4s, v22.s[3]
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1cd2 // and v18.16b, v6.16b, v28.16b
	WORD $0x4ea01c13 // mov v19.16b, v0.16b
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x4e3c1cf2 // and v18.16b, v7.16b, v28.16b
	WORD $0x4ea11c33 // mov v19.16b, v1.16b
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6f9701d1 // mla v17.4s, v14.4s, v23.s[0]
	WORD $0x6f0c04d2 // ushr v18.16b, v6.16b, #4
	WORD $0x6f0f0413 // ushr v19.16b, v0.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8c964e // sdot v14.4s, v18.16b, v12.16b
	WORD $0x6fb701d0 // mla v16.4s, v14.4s, v23.s[1]
	WORD $0x6f0c04f2 // ushr v18.16b, v7.16b, #4
	WORD $0x6f0f0433 // ushr v19.16b, v1.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8d964e // sdot v14.4s, v18.16b, v13.16b
	WORD $0x6fb701d1 // mla v17.4s, v14.4s, v23.s[1]
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1d12 // and v18.16b, v8.16b, v28.16b
	WORD $0x6f0e0413 // ushr v19.16b, v0.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x4e3c1d32 // and v18.16b, v9.16b, v28.16b
	WORD $0x6f0e0433 // ushr v19.16b, v1.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6f9709d1 // mla v17.4s, v14.4s, v23.s[2]
	WORD $0x6f0c0512 // ushr v18.16b, v8.16b, #4
	WORD $0x6f0d0413 // ushr v19.16b, v0.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8c964e // sdot v14.4s, v18.16b, v12.16b
	WORD $0x6fb709d0 // mla v16.4s, v14.4s, v23.s[3]
	WORD $0x6f0c0532 // ushr v18.16b, v9.16b, #4
	WORD $0x6f0d0433 // ushr v19.16b, v1.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8d964e // sdot v14.4s, v18.16b, v13.16b
	WORD $0x6fb709d1 // mla v17.4s, v14.4s, v23.s[3]
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0xbd40003a // ldr s26, [x1]
	WORD $0x7d400012 // ldr h18, [x0]
	WORD $0x7d400413 // ldr h19, [x0, #2]
	WORD $0x1ee24252 // fcvt s18, h18
	WORD $0x1ee24273 // fcvt s19, h19
	WORD $0x1e320b52 // fmul s18, s26, s18
	WORD $0x1e338b53 // fnmul s19, s26, s19
	WORD $0x4f92121e // fmla v30.4s, v16.4s, v18.s[0]
	WORD $0x4f92123f // fmla v31.4s, v17.4s, v18.s[0]
	WORD $0x1f19767d // fmadd s29, s19, s25, s29
	ADD $176, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q5KDotSDOT_loop
q5KDotSDOT_done:
	WORD $0xad007c7e // stp q30, q31, [x3]
	WORD $0xbd0001bd // str s29, [x13]
	RET

// q5KDotNEON(w *byte, x *q8KBlock, n int, acc *[8]float32, mins *float32)
TEXT ·q5KDotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	MOVD mins+32(FP), R4
	MOVD R4, R13
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00e5fc // movi v28.16b, #15
	WORD $0x4f00e61b // movi v27.16b, #16
	CBZ R2, q5KDotNEON_done
q5KDotNEON_loop:
	WORD $0xb9400404 // ldr w4, [x0, #4]
	WORD $0xb9400805 // ldr w5, [x0, #8]
	WORD $0xb9400c06 // ldr w6, [x0, #12]
	WORD $0x1200d487 // and w7, w4, #0x3f3f3f3f
	WORD $0x1200d4a8 // and w8, w5, #0x3f3f3f3f
	WORD $0x1200ccc9 // and w9, w6, #0x0f0f0f0f
	WORD $0x53067c8a // lsr w10, w4, #6
	WORD $0x1200c54a // and w10, w10, #0x03030303
	WORD $0x2a0a1129 // orr w9, w9, w10, lsl #4
	WORD $0x53047ccb // lsr w11, w6, #4
	WORD $0x1200cd6b // and w11, w11, #0x0f0f0f0f
	WORD $0x53067cac // lsr w12, w5, #6
	WORD $0x1200c58c // and w12, w12, #0x03030303
	WORD $0x2a0c116b // orr w11, w11, w12, lsl #4
	WORD $0xaa0980e7 // orr x7, x7, x9, lsl #32
	WORD $0xaa0b8108 // orr x8, x8, x11, lsl #32
	WORD $0x9e6700f4 // fmov d20, x7
	WORD $0x9e670115 // fmov d21, x8
	WORD $0x2f08a694 // uxtl v20.8h, v20.8b
	WORD $0x2f08a6b5 // uxtl v21.8h, v21.8b
	WORD $0x2f10a696 // uxtl v22.4s, v20.4h
	WORD $0x6f10a697 // uxtl2 v23.4s, v20.8h
	WORD $0x9104102b // add x11, x1, #260
	WORD $0x4c40a578 // ld1 {v24.8h, v25.8h}, [x11]
	WORD $0x4e79bf18 // addp v24.8h, v24.8h, v25.8h
	WORD $0x0e75c319 // smull v25.4s, v24.4h, v21.4h
	WORD $0x4e758319 // smlal2 v25.4s, v24.8h, v21.8h
	WORD $0x4eb1bb39 // addv s25, v25.4s
	WORD $0x5e21db39 // scvtf s25, s25
	WORD $0x91004009 // add x9, x0, #16
	WORD $0x4cdfa120 // ld1 {v0.16b, v1.16b}, [x9], #32
	WORD $0x4cdf2122 // ld1 {v2.16b, v3.16b, v4.16b, v5.16b}, [x9], #64
	WORD $0x4c402126 // ld1 {v6.16b, v7.16b, v8.16b, v9.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1c52 // and v18.16b, v2.16b, v28.16b
	WORD $0x4f0c5413 // shl v19.16b, v0.16b, #4
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3c1c72 // and v18.16b, v3.16b, v28.16b
	WORD $0x4f0c5433 // shl v19.16b, v1.16b, #4
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9601d1 // mla v17.4s, v14.4s, v22.s[0]
	WORD $0x6f0c0452 // ushr v18.16b, v2.16b, #4
	WORD $0x4f0b5413 // shl v19.16b, v0.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2cc24e // smull v14.8h, v18.8b, v12.8b
	WORD $0x4e2cc24f // smull2 v15.8h, v18.16b, v12.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb601d0 // mla v16.4s, v14.4s, v22.s[1]
	WORD $0x6f0c0472 // ushr v18.16b, v3.16b, #4
	WORD $0x4f0b5433 // shl v19.16b, v1.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2dc24e // smull v14.8h, v18.8b, v13.8b
	WORD $0x4e2dc24f // smull2 v15.8h, v18.16b, v13.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb601d1 // mla v17.4s, v14.4s, v22.s[1]
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1c92 // and v18.16b, v4.16b, v28.16b
	WORD $0x4f0a5413 // shl v19.16b, v0.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x4e3c1cb2 // and v18.16b, v5.16b, v28.16b
	WORD $0x4f0a5433 // shl v19.16b, v1.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9609d1 // mla v17.4s, v14.4s, v22.s[2]
	WORD $0x6f0c0492 // ushr v18.16b, v4.16b, #4
	WORD $0x4f095413 // shl v19.16b, v0.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2cc24e // smull v14.8h, v18.8b, v12.8b
	WORD $0x4e2cc24f // smull2 v15.8h, v18.16b, v12.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb609d0 // mla v16.4s, v14.4s, v22.s[3]
	WORD $0x6f0c04b2 // ushr v18.16b, v5.16b, #4
	WORD $0x4f095433 // shl v19.16b, v1.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2dc24e // smull v14.8h, v18.8b, v13.8b
	WORD $0x4e2dc24f // smull2 v15.8h, v18.16b, v13.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb609d1 // mla v17.4s, v14.4s, v22.s[3]
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1cd2 // and v18.16b, v6.16b, v28.16b
	WORD $0x4ea01c13 // mov v19.16b, v0.16b
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x4e3c1cf2 // and v18.16b, v7.16b, v28.16b
	WORD $0x4ea11c33 // mov v19.16b, v1.16b
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9701d1 // mla v17.4s, v14.4s, v23.s[0]
	WORD $0x6f0c04d2 // ushr v18.16b, v6.16b, #4
	WORD $0x6f0f0413 // ushr v19.16b, v0.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2cc24e // smull v14.8h, v18.8b, v12.8b
	WORD $0x4e2cc24f // smull2 v15.8h, v18.16b, v12.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb701d0 // mla v16.4s, v14.4s, v23.s[1]
	WORD $0x6f0c04f2 // ushr v18.16b, v7.16b, #4
	WORD $0x6f0f0433 // ushr v19.16b, v1.16b, #1
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2dc24e // smull v14.8h, v18.8b, v13.8b
	WORD $0x4e2dc24f // smull2 v15.8h, v18.16b, v13.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb701d1 // mla v17.4s, v14.4s, v23.s[1]
	WORD $0x4cdf214a // ld1 {v10.16b, v11.16b, v12.16b, v13.16b}, [x10], #64
	WORD $0x4e3c1d12 // and v18.16b, v8.16b, v28.16b
	WORD $0x6f0e0413 // ushr v19.16b, v0.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x4e3c1d32 // and v18.16b, v9.16b, v28.16b
	WORD $0x6f0e0433 // ushr v19.16b, v1.16b, #2
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9709d1 // mla v17.4s, v14.4s, v23.s[2]
	WORD $0x6f0c0512 // ushr v18.16b, v8.16b, #4
	WORD $0x6f0d0413 // ushr v19.16b, v0.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2cc24e // smull v14.8h, v18.8b, v12.8b
	WORD $0x4e2cc24f // smull2 v15.8h, v18.16b, v12.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb709d0 // mla v16.4s, v14.4s, v23.s[3]
	WORD $0x6f0c0532 // ushr v18.16b, v9.16b, #4
	WORD $0x6f0d0433 // ushr v19.16b, v1.16b, #3
	WORD $0x4e3b1e73 // and v19.16b, v19.16b, v27.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x0e2dc24e // smull v14.8h, v18.8b, v13.8b
	WORD $0x4e2dc24f // smull2 v15.8h, v18.16b, v13.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb709d1 // mla v17.4s, v14.4s, v23.s[3]
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0xbd40003a // ldr s26, [x1]
	WORD $0x7d400012 // ldr h18, [x0]
	WORD $0x7d400413 // ldr h19, [x0, #2]
	WORD $0x1ee24252 // fcvt s18, h18
	WORD $0x1ee24273 // fcvt s19, h19
	WORD $0x1e320b52 // fmul s18, s26, s18
	WORD $0x1e338b53 // fnmul s19, s26, s19
	WORD $0x4f92121e // fmla v30.4s, v16.4s, v18.s[0]
	WORD $0x4f92123f // fmla v31.4s, v17.4s, v18.s[0]
	WORD $0x1f19767d // fmadd s29, s19, s25, s29
	ADD $176, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q5KDotNEON_loop
q5KDotNEON_done:
	WORD $0xad007c7e // stp q30, q31, [x3]
	WORD $0xbd0001bd // str s29, [x13]
	RET

// q3KDotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)
TEXT ·q3KDotSDOT(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	WORD $0x4f00e47d // movi v29.16b, #3
	WORD $0x4f00e49c // movi v28.16b, #4
	WORD $0x4f01e41b // movi v27.16b, #32
	CBZ R2, q3KDotSDOT_done
q3KDotSDOT_loop:
	WORD $0xf9403004 // ldr x4, [x0, #96]
	WORD $0xb9406805 // ldr w5, [x0, #104]
	WORD $0x9200cc86 // and x6, x4, #0x0f0f0f0f0f0f0f0f
	WORD $0xd344fc87 // lsr x7, x4, #4
	WORD $0x9200cce7 // and x7, x7, #0x0f0f0f0f0f0f0f0f
	WORD $0x1200c4a8 // and w8, w5, #0x03030303
	WORD $0x53027ca9 // lsr w9, w5, #2
	WORD $0x1200c529 // and w9, w9, #0x03030303
	WORD $0xaa098108 // orr x8, x8, x9, lsl #32
	WORD $0xaa0810c6 // orr x6, x6, x8, lsl #4
	WORD $0x53047ca9 // lsr w9, w5, #4
	WORD $0x1200c529 // and w9, w9, #0x03030303
	WORD $0x53067caa // lsr w10, w5, #6
	WORD $0x1200c54a // and w10, w10, #0x03030303
	WORD $0xaa0a8129 // orr x9, x9, x10, lsl #32
	WORD $0xaa0910e7 // orr x7, x7, x9, lsl #4
	WORD $0x9e6700d4 // fmov d20, x6
	WORD $0x4e181cf4 // mov v20.d[1], x7
	WORD $0x6e3b8694 // sub v20.16b, v20.16b, v27.16b
	WORD $0x4f08a695 // sxtl2 v21.8h, v20.16b
	WORD $0x0f08a694 // sxtl v20.8h, v20.8b
	WORD $0x0f10a696 // sxtl v22.4s, v20.4h
	WORD $0x4f10a697 // sxtl2 v23.4s, v20.8h
	WORD $0x0f10a6b8 // sxtl v24.4s, v21.4h
	WORD $0x4f10a6b9 // sxtl2 v25.4s, v21.8h
	WORD $0x4c40a000 // ld1 {v0.16b, v1.16b}, [x0]
	WORD $0x91008009 // add x9, x0, #32
	WORD $0x4c402122 // ld1 {v2.16b, v3.16b, v4.16b, v5.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c52 // and v18.16b, v2.16b, v29.16b
	WORD $0x4f0a5413 // shl v19.16b, v0.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3d1c72 // and v18.16b, v3.16b, v29.16b
	WORD $0x4f0a5433 // shl v19.16b, v1.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb601d1 // mla v17.4s, v14.4s, v22.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0452 // ushr v18.16b, v2.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f095413 // shl v19.16b, v0.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x6f0e0472 // ushr v18.16b, v3.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f095433 // shl v19.16b, v1.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb609d1 // mla v17.4s, v14.4s, v22.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0452 // ushr v18.16b, v2.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4ea01c13 // mov v19.16b, v0.16b
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x6f0c0472 // ushr v18.16b, v3.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4ea11c33 // mov v19.16b, v1.16b
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb701d1 // mla v17.4s, v14.4s, v23.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0452 // ushr v18.16b, v2.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0f0413 // ushr v19.16b, v0.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x6f0a0472 // ushr v18.16b, v3.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0f0433 // ushr v19.16b, v1.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb709d1 // mla v17.4s, v14.4s, v23.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c92 // and v18.16b, v4.16b, v29.16b
	WORD $0x6f0e0413 // ushr v19.16b, v0.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9801c6 // mla v6.4s, v14.4s, v24.s[0]
	WORD $0x4e3d1cb2 // and v18.16b, v5.16b, v29.16b
	WORD $0x6f0e0433 // ushr v19.16b, v1.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb801c7 // mla v7.4s, v14.4s, v24.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0492 // ushr v18.16b, v4.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0d0413 // ushr v19.16b, v0.16b, #3
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9809c6 // mla v6.4s, v14.4s, v24.s[2]
	WORD $0x6f0e04b2 // ushr v18.16b, v5.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0d0433 // ushr v19.16b, v1.16b, #3
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb809c7 // mla v7.4s, v14.4s, v24.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0492 // ushr v18.16b, v4.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0c0413 // ushr v19.16b, v0.16b, #4
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9901c6 // mla v6.4s, v14.4s, v25.s[0]
	WORD $0x6f0c04b2 // ushr v18.16b, v5.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0c0433 // ushr v19.16b, v1.16b, #4
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb901c7 // mla v7.4s, v14.4s, v25.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0492 // ushr v18.16b, v4.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0b0413 // ushr v19.16b, v0.16b, #5
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9909c6 // mla v6.4s, v14.4s, v25.s[2]
	WORD $0x6f0a04b2 // ushr v18.16b, v5.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0b0433 // ushr v19.16b, v1.16b, #5
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb909c7 // mla v7.4s, v14.4s, v25.s[3]
	WORD $0x4ea68610 // add v16.4s, v16.4s, v6.4s
	WORD $0x4ea78631 // add v17.4s, v17.4s, v7.4s
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x7d40d812 // ldr h18, [x0, #108]
	WORD $0xbd400033 // ldr s19, [x1]
	WORD $0x1ee24252 // fcvt s18, h18
	WORD $0x1e320a72 // fmul s18, s19, s18
	WORD $0x4f92121e // fmla v30.4s, v16.4s, v18.s[0]
	WORD $0x4f92123f // fmla v31.4s, v17.4s, v18.s[0]
	ADD $110, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q3KDotSDOT_loop
q3KDotSDOT_done:
	WORD $0xad007c7e // stp q30, q31, [x3]
	RET

// q3KDotNEON(w *byte, x *q8KBlock, n int, acc *[8]float32)
TEXT ·q3KDotNEON(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	WORD $0x4f00e47d // movi v29.16b, #3
	WORD $0x4f00e49c // movi v28.16b, #4
	WORD $0x4f01e41b // movi v27.16b, #32
	CBZ R2, q3KDotNEON_done
q3KDotNEON_loop:
	WORD $0xf9403004 // ldr x4, [x0, #96]
	WORD $0xb9406805 // ldr w5, [x0, #104]
	WORD $0x9200cc86 // and x6, x4, #0x0f0f0f0f0f0f0f0f
	WORD $0xd344fc87 // lsr x7, x4, #4
	WORD $0x9200cce7 // and x7, x7, #0x0f0f0f0f0f0f0f0f
	WORD $0x1200c4a8 // and w8, w5, #0x03030303
	WORD $0x53027ca9 // lsr w9, w5, #2
	WORD $0x1200c529 // and w9, w9, #0x03030303
	WORD $0xaa098108 // orr x8, x8, x9, lsl #32
	WORD $0xaa0810c6 // orr x6, x6, x8, lsl #4
	WORD $0x53047ca9 // lsr w9, w5, #4
	WORD $0x1200c529 // and w9, w9, #0x03030303
	WORD $0x53067caa // lsr w10, w5, #6
	WORD $0x1200c54a // and w10, w10, #0x03030303
	WORD $0xaa0a8129 // orr x9, x9, x10, lsl #32
	WORD $0xaa0910e7 // orr x7, x7, x9, lsl #4
	WORD $0x9e6700d4 // fmov d20, x6
	WORD $0x4e181cf4 // mov v20.d[1], x7
	WORD $0x6e3b8694 // sub v20.16b, v20.16b, v27.16b
	WORD $0x4f08a695 // sxtl2 v21.8h, v20.16b
	WORD $0x0f08a694 // sxtl v20.8h, v20.8b
	WORD $0x0f10a696 // sxtl v22.4s, v20.4h
	WORD $0x4f10a697 // sxtl2 v23.4s, v20.8h
	WORD $0x0f10a6b8 // sxtl v24.4s, v21.4h
	WORD $0x4f10a6b9 // sxtl2 v25.4s, v21.8h
	WORD $0x4c40a000 // ld1 {v0.16b, v1.16b}, [x0]
	WORD $0x91008009 // add x9, x0, #32
	WORD $0x4c402122 // ld1 {v2.16b, v3.16b, v4.16b, v5.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c52 // and v18.16b, v2.16b, v29.16b
	WORD $0x4f0a5413 // shl v19.16b, v0.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3d1c72 // and v18.16b, v3.16b, v29.16b
	WORD $0x4f0a5433 // shl v19.16b, v1.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb601d1 // mla v17.4s, v14.4s, v22.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0452 // ushr v18.16b, v2.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f095413 // shl v19.16b, v0.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x6f0e0472 // ushr v18.16b, v3.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f095433 // shl v19.16b, v1.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb609d1 // mla v17.4s, v14.4s, v22.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0452 // ushr v18.16b, v2.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4ea01c13 // mov v19.16b, v0.16b
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x6f0c0472 // ushr v18.16b, v3.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4ea11c33 // mov v19.16b, v1.16b
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb701d1 // mla v17.4s, v14.4s, v23.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0452 // ushr v18.16b, v2.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0f0413 // ushr v19.16b, v0.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x6f0a0472 // ushr v18.16b, v3.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0f0433 // ushr v19.16b, v1.16b, #1
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb709d1 // mla v17.4s, v14.4s, v23.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c92 // and v18.16b, v4.16b, v29.16b
	WORD $0x6f0e0413 // ushr v19.16b, v0.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9801c6 // mla v6.4s, v14.4s, v24.s[0]
	WORD $0x4e3d1cb2 // and v18.16b, v5.16b, v29.16b
	WORD $0x6f0e0433 // ushr v19.16b, v1.16b, #2
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb801c7 // mla v7.4s, v14.4s, v24.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0492 // ushr v18.16b, v4.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0d0413 // ushr v19.16b, v0.16b, #3
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9809c6 // mla v6.4s, v14.4s, v24.s[2]
	WORD $0x6f0e04b2 // ushr v18.16b, v5.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0d0433 // ushr v19.16b, v1.16b, #3
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb809c7 // mla v7.4s, v14.4s, v24.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0492 // ushr v18.16b, v4.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0c0413 // ushr v19.16b, v0.16b, #4
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9901c6 // mla v6.4s, v14.4s, v25.s[0]
	WORD $0x6f0c04b2 // ushr v18.16b, v5.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0c0433 // ushr v19.16b, v1.16b, #4
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb901c7 // mla v7.4s, v14.4s, v25.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0492 // ushr v18.16b, v4.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0b0413 // ushr v19.16b, v0.16b, #5
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2ac24f // smull2 v15.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6f9909c6 // mla v6.4s, v14.4s, v25.s[2]
	WORD $0x6f0a04b2 // ushr v18.16b, v5.16b, #6
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x6f0b0433 // ushr v19.16b, v1.16b, #5
	WORD $0x4e3c1e73 // and v19.16b, v19.16b, v28.16b
	WORD $0x4eb31e52 // orr v18.16b, v18.16b, v19.16b
	WORD $0x6e3c8652 // sub v18.16b, v18.16b, v28.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2bc24f // smull2 v15.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x6fb909c7 // mla v7.4s, v14.4s, v25.s[3]
	WORD $0x4ea68610 // add v16.4s, v16.4s, v6.4s
	WORD $0x4ea78631 // add v17.4s, v17.4s, v7.4s
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x7d40d812 // ldr h18, [x0, #108]
	WORD $0xbd400033 // ldr s19, [x1]
	WORD $0x1ee24252 // fcvt s18, h18
	WORD $0x1e320a72 // fmul s18, s19, s18
	WORD $0x4f92121e // fmla v30.4s, v16.4s, v18.s[0]
	WORD $0x4f92123f // fmla v31.4s, v17.4s, v18.s[0]
	ADD $110, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q3KDotNEON_loop
q3KDotNEON_done:
	WORD $0xad007c7e // stp q30, q31, [x3]
	RET

// q2KDotSDOT(w *byte, x *q8KBlock, n int, gemm int, res *float32)
TEXT ·q2KDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD gemm+24(FP), R3
	MOVD res+32(FP), R4
	MOVD R3, R13
	MOVD R4, R14
	WORD $0x4f00e47d // movi v29.16b, #3
	WORD $0x4f00e5e9 // movi v9.16b, #15
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	CBZ R2, q2KDotSDOT_done
q2KDotSDOT_loop:
	WORD $0x3dc00014 // ldr q20, [x0]
	WORD $0x4e291e95 // and v21.16b, v20.16b, v9.16b
	WORD $0x6f0c0694 // ushr v20.16b, v20.16b, #4
	WORD $0x6f08a6b9 // uxtl2 v25.8h, v21.16b
	WORD $0x2f08a6b8 // uxtl v24.8h, v21.8b
	WORD $0x2f10a716 // uxtl v22.4s, v24.4h
	WORD $0x6f10a717 // uxtl2 v23.4s, v24.8h
	WORD $0x2f10a738 // uxtl v24.4s, v25.4h
	WORD $0x6f10a739 // uxtl2 v25.4s, v25.8h
	WORD $0x9104102b // add x11, x1, #260
	WORD $0x4c40a57a // ld1 {v26.8h, v27.8h}, [x11]
	WORD $0x6f08a693 // uxtl2 v19.8h, v20.16b
	WORD $0x2f08a692 // uxtl v18.8h, v20.8b
	WORD $0x0e7ac24c // smull v12.4s, v18.4h, v26.4h
	WORD $0x4e7a824c // smlal2 v12.4s, v18.8h, v26.8h
	WORD $0x0e7bc26d // smull v13.4s, v19.4h, v27.4h
	WORD $0x4e7b826d // smlal2 v13.4s, v19.8h, v27.8h
	WORD $0x4eadbd8c // addp v12.4s, v12.4s, v13.4s
	WORD $0x4eacbd8c // addp v12.4s, v12.4s, v12.4s
	WORD $0x91004009 // add x9, x0, #16
	WORD $0x4c402120 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c12 // and v18.16b, v0.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3d1c32 // and v18.16b, v1.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb601d0 // mla v16.4s, v14.4s, v22.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0412 // ushr v18.16b, v0.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x6f0e0432 // ushr v18.16b, v1.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb609d0 // mla v16.4s, v14.4s, v22.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0412 // ushr v18.16b, v0.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x6f0c0432 // ushr v18.16b, v1.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb701d0 // mla v16.4s, v14.4s, v23.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0412 // ushr v18.16b, v0.16b, #6
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x6f0a0432 // ushr v18.16b, v1.16b, #6
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb709d0 // mla v16.4s, v14.4s, v23.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c52 // and v18.16b, v2.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9801d1 // mla v17.4s, v14.4s, v24.s[0]
	WORD $0x4e3d1c72 // and v18.16b, v3.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb801d1 // mla v17.4s, v14.4s, v24.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0452 // ushr v18.16b, v2.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9809d1 // mla v17.4s, v14.4s, v24.s[2]
	WORD $0x6f0e0472 // ushr v18.16b, v3.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb809d1 // mla v17.4s, v14.4s, v24.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0452 // ushr v18.16b, v2.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9901d1 // mla v17.4s, v14.4s, v25.s[0]
	WORD $0x6f0c0472 // ushr v18.16b, v3.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb901d1 // mla v17.4s, v14.4s, v25.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0452 // ushr v18.16b, v2.16b, #6
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8a964e // sdot v14.4s, v18.16b, v10.16b
	WORD $0x6f9909d1 // mla v17.4s, v14.4s, v25.s[2]
	WORD $0x6f0a0472 // ushr v18.16b, v3.16b, #6
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e8b964e // sdot v14.4s, v18.16b, v11.16b
	WORD $0x6fb909d1 // mla v17.4s, v14.4s, v25.s[3]
	WORD $0x4eb1be10 // addp v16.4s, v16.4s, v17.4s
	WORD $0x4eb0be10 // addp v16.4s, v16.4s, v16.4s
	WORD $0xbd40003a // ldr s26, [x1]
	WORD $0x7d40a01b // ldr h27, [x0, #80]
	WORD $0x7d40a41c // ldr h28, [x0, #82]
	WORD $0x1ee2437b // fcvt s27, h27
	WORD $0x1ee2439c // fcvt s28, h28
	WORD $0x1e3a0b7b // fmul s27, s27, s26
	WORD $0x1e3a0b9c // fmul s28, s28, s26
	CBZ R13, q2KDotSDOT_gemv
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21d98c // scvtf v12.4s, v12.4s
	WORD $0x5f90137e // fmla s30, s27, v16.s[0]
	WORD $0x5f8c139f // fmla s31, s28, v12.s[0]
	WORD $0x5fb0137e // fmla s30, s27, v16.s[1]
	WORD $0x5fac139f // fmla s31, s28, v12.s[1]
	B q2KDotSDOT_next
q2KDotSDOT_gemv:
	WORD $0x4eb0be10 // addp v16.4s, v16.4s, v16.4s
	WORD $0x4eacbd8c // addp v12.4s, v12.4s, v12.4s
	WORD $0x5e21da10 // scvtf s16, s16
	WORD $0x5e21d98c // scvtf s12, s12
	WORD $0x1f1b7a1e // fmadd s30, s16, s27, s30
	WORD $0x1f1c7d9f // fmadd s31, s12, s28, s31
q2KDotSDOT_next:
	ADD $84, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q2KDotSDOT_loop
q2KDotSDOT_done:
	WORD $0x1e3f3bde // fsub s30, s30, s31
	WORD $0xbd0001de // str s30, [x14]
	RET

// q2KDotNEON(w *byte, x *q8KBlock, n int, gemm int, res *float32)
TEXT ·q2KDotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD gemm+24(FP), R3
	MOVD res+32(FP), R4
	MOVD R3, R13
	MOVD R4, R14
	WORD $0x4f00e47d // movi v29.16b, #3
	WORD $0x4f00e5e9 // movi v9.16b, #15
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	CBZ R2, q2KDotNEON_done
q2KDotNEON_loop:
	WORD $0x3dc00014 // ldr q20, [x0]
	WORD $0x4e291e95 // and v21.16b, v20.16b, v9.16b
	WORD $0x6f0c0694 // ushr v20.16b, v20.16b, #4
	WORD $0x6f08a6b9 // uxtl2 v25.8h, v21.16b
	WORD $0x2f08a6b8 // uxtl v24.8h, v21.8b
	WORD $0x2f10a716 // uxtl v22.4s, v24.4h
	WORD $0x6f10a717 // uxtl2 v23.4s, v24.8h
	WORD $0x2f10a738 // uxtl v24.4s, v25.4h
	WORD $0x6f10a739 // uxtl2 v25.4s, v25.8h
	WORD $0x9104102b // add x11, x1, #260
	WORD $0x4c40a57a // ld1 {v26.8h, v27.8h}, [x11]
	WORD $0x6f08a693 // uxtl2 v19.8h, v20.16b
	WORD $0x2f08a692 // uxtl v18.8h, v20.8b
	WORD $0x0e7ac24c // smull v12.4s, v18.4h, v26.4h
	WORD $0x4e7a824c // smlal2 v12.4s, v18.8h, v26.8h
	WORD $0x0e7bc26d // smull v13.4s, v19.4h, v27.4h
	WORD $0x4e7b826d // smlal2 v13.4s, v19.8h, v27.8h
	WORD $0x4eadbd8c // addp v12.4s, v12.4s, v13.4s
	WORD $0x4eacbd8c // addp v12.4s, v12.4s, v12.4s
	WORD $0x91004009 // add x9, x0, #16
	WORD $0x4c402120 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c12 // and v18.16b, v0.16b, v29.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9601d0 // mla v16.4s, v14.4s, v22.s[0]
	WORD $0x4e3d1c32 // and v18.16b, v1.16b, v29.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb601d0 // mla v16.4s, v14.4s, v22.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0412 // ushr v18.16b, v0.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9609d0 // mla v16.4s, v14.4s, v22.s[2]
	WORD $0x6f0e0432 // ushr v18.16b, v1.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb609d0 // mla v16.4s, v14.4s, v22.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0412 // ushr v18.16b, v0.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9701d0 // mla v16.4s, v14.4s, v23.s[0]
	WORD $0x6f0c0432 // ushr v18.16b, v1.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb701d0 // mla v16.4s, v14.4s, v23.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0412 // ushr v18.16b, v0.16b, #6
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9709d0 // mla v16.4s, v14.4s, v23.s[2]
	WORD $0x6f0a0432 // ushr v18.16b, v1.16b, #6
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb709d0 // mla v16.4s, v14.4s, v23.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x4e3d1c52 // and v18.16b, v2.16b, v29.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9801d1 // mla v17.4s, v14.4s, v24.s[0]
	WORD $0x4e3d1c72 // and v18.16b, v3.16b, v29.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb801d1 // mla v17.4s, v14.4s, v24.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0e0452 // ushr v18.16b, v2.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9809d1 // mla v17.4s, v14.4s, v24.s[2]
	WORD $0x6f0e0472 // ushr v18.16b, v3.16b, #2
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb809d1 // mla v17.4s, v14.4s, v24.s[3]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0c0452 // ushr v18.16b, v2.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9901d1 // mla v17.4s, v14.4s, v25.s[0]
	WORD $0x6f0c0472 // ushr v18.16b, v3.16b, #4
	WORD $0x4e3d1e52 // and v18.16b, v18.16b, v29.16b
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb901d1 // mla v17.4s, v14.4s, v25.s[1]
	WORD $0x4cdfa14a // ld1 {v10.16b, v11.16b}, [x10], #32
	WORD $0x6f0a0452 // ushr v18.16b, v2.16b, #6
	WORD $0x0e2ac24e // smull v14.8h, v18.8b, v10.8b
	WORD $0x4e2a824e // smlal2 v14.8h, v18.16b, v10.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6f9909d1 // mla v17.4s, v14.4s, v25.s[2]
	WORD $0x6f0a0472 // ushr v18.16b, v3.16b, #6
	WORD $0x0e2bc24e // smull v14.8h, v18.8b, v11.8b
	WORD $0x4e2b824e // smlal2 v14.8h, v18.16b, v11.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x6fb909d1 // mla v17.4s, v14.4s, v25.s[3]
	WORD $0x4eb1be10 // addp v16.4s, v16.4s, v17.4s
	WORD $0x4eb0be10 // addp v16.4s, v16.4s, v16.4s
	WORD $0xbd40003a // ldr s26, [x1]
	WORD $0x7d40a01b // ldr h27, [x0, #80]
	WORD $0x7d40a41c // ldr h28, [x0, #82]
	WORD $0x1ee2437b // fcvt s27, h27
	WORD $0x1ee2439c // fcvt s28, h28
	WORD $0x1e3a0b7b // fmul s27, s27, s26
	WORD $0x1e3a0b9c // fmul s28, s28, s26
	CBZ R13, q2KDotNEON_gemv
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21d98c // scvtf v12.4s, v12.4s
	WORD $0x5f90137e // fmla s30, s27, v16.s[0]
	WORD $0x5f8c139f // fmla s31, s28, v12.s[0]
	WORD $0x5fb0137e // fmla s30, s27, v16.s[1]
	WORD $0x5fac139f // fmla s31, s28, v12.s[1]
	B q2KDotNEON_next
q2KDotNEON_gemv:
	WORD $0x4eb0be10 // addp v16.4s, v16.4s, v16.4s
	WORD $0x4eacbd8c // addp v12.4s, v12.4s, v12.4s
	WORD $0x5e21da10 // scvtf s16, s16
	WORD $0x5e21d98c // scvtf s12, s12
	WORD $0x1f1b7a1e // fmadd s30, s16, s27, s30
	WORD $0x1f1c7d9f // fmadd s31, s12, s28, s31
q2KDotNEON_next:
	ADD $84, R0
	ADD $292, R1
	SUBS $1, R2
	BNE q2KDotNEON_loop
q2KDotNEON_done:
	WORD $0x1e3f3bde // fsub s30, s30, s31
	WORD $0xbd0001de // str s30, [x14]
	RET

// iq4xsDotSDOT(w *byte, x *q8KBlock, n int, sum *float32, tab *[16]int8)
TEXT ·iq4xsDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f01e41e // movi v30.16b, #32
	WORD $0x4f00041c // movi v28.4s, #0
	CBZ R2, iq4xsDotSDOT_done
iq4xsDotSDOT_loop:
	WORD $0x79400405 // ldrh w5, [x0, #2]
	WORD $0xb9400406 // ldr w6, [x0, #4]
	WORD $0xaa0560a5 // orr x5, x5, x5, lsl #24
	WORD $0x92001ca5 // and x5, x5, #0x000000ff000000ff
	WORD $0xaa0530a5 // orr x5, x5, x5, lsl #12
	WORD $0x92008ca5 // and x5, x5, #0x000f000f000f000f
	WORD $0xaa0518a5 // orr x5, x5, x5, lsl #6
	WORD $0x9200c4a5 // and x5, x5, #0x0303030303030303
	WORD $0xaa0640c6 // orr x6, x6, x6, lsl #16
	WORD $0x92003cc6 // and x6, x6, #0x0000ffff0000ffff
	WORD $0xaa0620c6 // orr x6, x6, x6, lsl #8
	WORD $0x92009cc6 // and x6, x6, #0x00ff00ff00ff00ff
	WORD $0xaa0610c6 // orr x6, x6, x6, lsl #4
	WORD $0x9200ccc6 // and x6, x6, #0x0f0f0f0f0f0f0f0f
	WORD $0xaa0510c6 // orr x6, x6, x5, lsl #4
	WORD $0x9e6700d4 // fmov d20, x6
	WORD $0x2e3e8694 // sub v20.8b, v20.8b, v30.8b
	WORD $0x0f08a694 // sxtl v20.8h, v20.8b
	WORD $0x0f10a696 // sxtl v22.4s, v20.4h
	WORD $0x4f10a697 // sxtl2 v23.4s, v20.8h
	WORD $0x91002009 // add x9, x0, #8
	WORD $0x4cdf2120 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9], #64
	WORD $0x4c402124 // ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c18 // and v24.16b, v0.16b, v31.16b
	WORD $0x6f0c0419 // ushr v25.16b, v0.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4e909708 // sdot v8.4s, v24.16b, v16.16b
	WORD $0x4e919728 // sdot v8.4s, v25.16b, v17.16b
	WORD $0x4e3f1c38 // and v24.16b, v1.16b, v31.16b
	WORD $0x6f0c0439 // ushr v25.16b, v1.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4e929709 // sdot v9.4s, v24.16b, v18.16b
	WORD $0x4e939729 // sdot v9.4s, v25.16b, v19.16b
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c58 // and v24.16b, v2.16b, v31.16b
	WORD $0x6f0c0459 // ushr v25.16b, v2.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4e90970a // sdot v10.4s, v24.16b, v16.16b
	WORD $0x4e91972a // sdot v10.4s, v25.16b, v17.16b
	WORD $0x4e3f1c78 // and v24.16b, v3.16b, v31.16b
	WORD $0x6f0c0479 // ushr v25.16b, v3.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f00040b // movi v11.4s, #0
	WORD $0x4e92970b // sdot v11.4s, v24.16b, v18.16b
	WORD $0x4e93972b // sdot v11.4s, v25.16b, v19.16b
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c98 // and v24.16b, v4.16b, v31.16b
	WORD $0x6f0c0499 // ushr v25.16b, v4.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f00040c // movi v12.4s, #0
	WORD $0x4e90970c // sdot v12.4s, v24.16b, v16.16b
	WORD $0x4e91972c // sdot v12.4s, v25.16b, v17.16b
	WORD $0x4e3f1cb8 // and v24.16b, v5.16b, v31.16b
	WORD $0x6f0c04b9 // ushr v25.16b, v5.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f00040d // movi v13.4s, #0
	WORD $0x4e92970d // sdot v13.4s, v24.16b, v18.16b
	WORD $0x4e93972d // sdot v13.4s, v25.16b, v19.16b
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1cd8 // and v24.16b, v6.16b, v31.16b
	WORD $0x6f0c04d9 // ushr v25.16b, v6.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4e90970e // sdot v14.4s, v24.16b, v16.16b
	WORD $0x4e91972e // sdot v14.4s, v25.16b, v17.16b
	WORD $0x4e3f1cf8 // and v24.16b, v7.16b, v31.16b
	WORD $0x6f0c04f9 // ushr v25.16b, v7.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x4f00040f // movi v15.4s, #0
	WORD $0x4e92970f // sdot v15.4s, v24.16b, v18.16b
	WORD $0x4e93972f // sdot v15.4s, v25.16b, v19.16b
	WORD $0x4ea9bd08 // addp v8.4s, v8.4s, v9.4s
	WORD $0x4eabbd4a // addp v10.4s, v10.4s, v11.4s
	WORD $0x4eadbd8c // addp v12.4s, v12.4s, v13.4s
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x4eaabd08 // addp v8.4s, v8.4s, v10.4s
	WORD $0x4eaebd8c // addp v12.4s, v12.4s, v14.4s
	WORD $0x4eb69d08 // mul v8.4s, v8.4s, v22.4s
	WORD $0x4eb79588 // mla v8.4s, v12.4s, v23.4s
	WORD $0x4eb1b908 // addv s8, v8.4s
	WORD $0x5e21d908 // scvtf s8, s8
	WORD $0x7d40001a // ldr h26, [x0]
	WORD $0xbd40003b // ldr s27, [x1]
	WORD $0x1ee2435a // fcvt s26, h26
	WORD $0x1e3b0b5a // fmul s26, s26, s27
	WORD $0x1e280b5a // fmul s26, s26, s8
	WORD $0x1e3a2b9c // fadd s28, s28, s26
	ADD $136, R0
	ADD $292, R1
	SUBS $1, R2
	BNE iq4xsDotSDOT_loop
iq4xsDotSDOT_done:
	WORD $0xbd00007c // str s28, [x3]
	RET

// iq4xsDotNEON(w *byte, x *q8KBlock, n int, sum *float32, tab *[16]int8)
TEXT ·iq4xsDotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f01e41e // movi v30.16b, #32
	WORD $0x4f00041c // movi v28.4s, #0
	CBZ R2, iq4xsDotNEON_done
iq4xsDotNEON_loop:
	WORD $0x79400405 // ldrh w5, [x0, #2]
	WORD $0xb9400406 // ldr w6, [x0, #4]
	WORD $0xaa0560a5 // orr x5, x5, x5, lsl #24
	WORD $0x92001ca5 // and x5, x5, #0x000000ff000000ff
	WORD $0xaa0530a5 // orr x5, x5, x5, lsl #12
	WORD $0x92008ca5 // and x5, x5, #0x000f000f000f000f
	WORD $0xaa0518a5 // orr x5, x5, x5, lsl #6
	WORD $0x9200c4a5 // and x5, x5, #0x0303030303030303
	WORD $0xaa0640c6 // orr x6, x6, x6, lsl #16
	WORD $0x92003cc6 // and x6, x6, #0x0000ffff0000ffff
	WORD $0xaa0620c6 // orr x6, x6, x6, lsl #8
	WORD $0x92009cc6 // and x6, x6, #0x00ff00ff00ff00ff
	WORD $0xaa0610c6 // orr x6, x6, x6, lsl #4
	WORD $0x9200ccc6 // and x6, x6, #0x0f0f0f0f0f0f0f0f
	WORD $0xaa0510c6 // orr x6, x6, x5, lsl #4
	WORD $0x9e6700d4 // fmov d20, x6
	WORD $0x2e3e8694 // sub v20.8b, v20.8b, v30.8b
	WORD $0x0f08a694 // sxtl v20.8h, v20.8b
	WORD $0x0f10a696 // sxtl v22.4s, v20.4h
	WORD $0x4f10a697 // sxtl2 v23.4s, v20.8h
	WORD $0x91002009 // add x9, x0, #8
	WORD $0x4cdf2120 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9], #64
	WORD $0x4c402124 // ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x9]
	WORD $0x9100102a // add x10, x1, #4
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c18 // and v24.16b, v0.16b, v31.16b
	WORD $0x6f0c0419 // ushr v25.16b, v0.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e30c308 // smull v8.8h, v24.8b, v16.8b
	WORD $0x4e308308 // smlal2 v8.8h, v24.16b, v16.16b
	WORD $0x0e31c33a // smull v26.8h, v25.8b, v17.8b
	WORD $0x4e31833a // smlal2 v26.8h, v25.16b, v17.16b
	WORD $0x4e602908 // saddlp v8.4s, v8.8h
	WORD $0x4e606b48 // sadalp v8.4s, v26.8h
	WORD $0x4e3f1c38 // and v24.16b, v1.16b, v31.16b
	WORD $0x6f0c0439 // ushr v25.16b, v1.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e32c309 // smull v9.8h, v24.8b, v18.8b
	WORD $0x4e328309 // smlal2 v9.8h, v24.16b, v18.16b
	WORD $0x0e33c33a // smull v26.8h, v25.8b, v19.8b
	WORD $0x4e33833a // smlal2 v26.8h, v25.16b, v19.16b
	WORD $0x4e602929 // saddlp v9.4s, v9.8h
	WORD $0x4e606b49 // sadalp v9.4s, v26.8h
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c58 // and v24.16b, v2.16b, v31.16b
	WORD $0x6f0c0459 // ushr v25.16b, v2.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e30c30a // smull v10.8h, v24.8b, v16.8b
	WORD $0x4e30830a // smlal2 v10.8h, v24.16b, v16.16b
	WORD $0x0e31c33a // smull v26.8h, v25.8b, v17.8b
	WORD $0x4e31833a // smlal2 v26.8h, v25.16b, v17.16b
	WORD $0x4e60294a // saddlp v10.4s, v10.8h
	WORD $0x4e606b4a // sadalp v10.4s, v26.8h
	WORD $0x4e3f1c78 // and v24.16b, v3.16b, v31.16b
	WORD $0x6f0c0479 // ushr v25.16b, v3.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e32c30b // smull v11.8h, v24.8b, v18.8b
	WORD $0x4e32830b // smlal2 v11.8h, v24.16b, v18.16b
	WORD $0x0e33c33a // smull v26.8h, v25.8b, v19.8b
	WORD $0x4e33833a // smlal2 v26.8h, v25.16b, v19.16b
	WORD $0x4e60296b // saddlp v11.4s, v11.8h
	WORD $0x4e606b4b // sadalp v11.4s, v26.8h
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1c98 // and v24.16b, v4.16b, v31.16b
	WORD $0x6f0c0499 // ushr v25.16b, v4.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e30c30c // smull v12.8h, v24.8b, v16.8b
	WORD $0x4e30830c // smlal2 v12.8h, v24.16b, v16.16b
	WORD $0x0e31c33a // smull v26.8h, v25.8b, v17.8b
	WORD $0x4e31833a // smlal2 v26.8h, v25.16b, v17.16b
	WORD $0x4e60298c // saddlp v12.4s, v12.8h
	WORD $0x4e606b4c // sadalp v12.4s, v26.8h
	WORD $0x4e3f1cb8 // and v24.16b, v5.16b, v31.16b
	WORD $0x6f0c04b9 // ushr v25.16b, v5.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e32c30d // smull v13.8h, v24.8b, v18.8b
	WORD $0x4e32830d // smlal2 v13.8h, v24.16b, v18.16b
	WORD $0x0e33c33a // smull v26.8h, v25.8b, v19.8b
	WORD $0x4e33833a // smlal2 v26.8h, v25.16b, v19.16b
	WORD $0x4e6029ad // saddlp v13.4s, v13.8h
	WORD $0x4e606b4d // sadalp v13.4s, v26.8h
	WORD $0x4cdf2150 // ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x10], #64
	WORD $0x4e3f1cd8 // and v24.16b, v6.16b, v31.16b
	WORD $0x6f0c04d9 // ushr v25.16b, v6.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e30c30e // smull v14.8h, v24.8b, v16.8b
	WORD $0x4e30830e // smlal2 v14.8h, v24.16b, v16.16b
	WORD $0x0e31c33a // smull v26.8h, v25.8b, v17.8b
	WORD $0x4e31833a // smlal2 v26.8h, v25.16b, v17.16b
	WORD $0x4e6029ce // saddlp v14.4s, v14.8h
	WORD $0x4e606b4e // sadalp v14.4s, v26.8h
	WORD $0x4e3f1cf8 // and v24.16b, v7.16b, v31.16b
	WORD $0x6f0c04f9 // ushr v25.16b, v7.16b, #4
	WORD $0x4e1803b8 // tbl v24.16b, {v29.16b}, v24.16b
	WORD $0x4e1903b9 // tbl v25.16b, {v29.16b}, v25.16b
	WORD $0x0e32c30f // smull v15.8h, v24.8b, v18.8b
	WORD $0x4e32830f // smlal2 v15.8h, v24.16b, v18.16b
	WORD $0x0e33c33a // smull v26.8h, v25.8b, v19.8b
	WORD $0x4e33833a // smlal2 v26.8h, v25.16b, v19.16b
	WORD $0x4e6029ef // saddlp v15.4s, v15.8h
	WORD $0x4e606b4f // sadalp v15.4s, v26.8h
	WORD $0x4ea9bd08 // addp v8.4s, v8.4s, v9.4s
	WORD $0x4eabbd4a // addp v10.4s, v10.4s, v11.4s
	WORD $0x4eadbd8c // addp v12.4s, v12.4s, v13.4s
	WORD $0x4eafbdce // addp v14.4s, v14.4s, v15.4s
	WORD $0x4eaabd08 // addp v8.4s, v8.4s, v10.4s
	WORD $0x4eaebd8c // addp v12.4s, v12.4s, v14.4s
	WORD $0x4eb69d08 // mul v8.4s, v8.4s, v22.4s
	WORD $0x4eb79588 // mla v8.4s, v12.4s, v23.4s
	WORD $0x4eb1b908 // addv s8, v8.4s
	WORD $0x5e21d908 // scvtf s8, s8
	WORD $0x7d40001a // ldr h26, [x0]
	WORD $0xbd40003b // ldr s27, [x1]
	WORD $0x1ee2435a // fcvt s26, h26
	WORD $0x1e3b0b5a // fmul s26, s26, s27
	WORD $0x1e280b5a // fmul s26, s26, s8
	WORD $0x1e3a2b9c // fadd s28, s28, s26
	ADD $136, R0
	ADD $292, R1
	SUBS $1, R2
	BNE iq4xsDotNEON_loop
iq4xsDotNEON_done:
	WORD $0xbd00007c // str s28, [x3]
	RET

// q41DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)
TEXT ·q41DotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4c40609a // ld1 {v26.16b, v27.16b, v28.16b}, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e61e // movi v30.16b, #16
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q41DotSDOT_tail
q41DotSDOT_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc04000 // ldur q0, [x0, #4]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	WORD $0x7d402806 // ldr h6, [x0, #20]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd402c31 // ldr s17, [x1, #44]
	WORD $0x7d402c10 // ldr h16, [x0, #22]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc18000 // ldur q0, [x0, #24]
	WORD $0x3cc30024 // ldur q4, [x1, #48]
	WORD $0x3cc40025 // ldur q5, [x1, #64]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	ADD $40, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q41DotSDOT_loop
q41DotSDOT_tail:
	TBZ $0, R2, q41DotSDOT_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc04000 // ldur q0, [x0, #4]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
q41DotSDOT_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q41DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)
TEXT ·q41DotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4c40609a // ld1 {v26.16b, v27.16b, v28.16b}, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e61e // movi v30.16b, #16
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q41DotNEON_tail
q41DotNEON_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc04000 // ldur q0, [x0, #4]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	WORD $0x7d402806 // ldr h6, [x0, #20]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd402c31 // ldr s17, [x1, #44]
	WORD $0x7d402c10 // ldr h16, [x0, #22]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc18000 // ldur q0, [x0, #24]
	WORD $0x3cc30024 // ldur q4, [x1, #48]
	WORD $0x3cc40025 // ldur q5, [x1, #64]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	ADD $40, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q41DotNEON_loop
q41DotNEON_tail:
	TBZ $0, R2, q41DotNEON_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc04000 // ldur q0, [x0, #4]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
q41DotNEON_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q50DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)
TEXT ·q50DotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4c40609a // ld1 {v26.16b, v27.16b, v28.16b}, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e61e // movi v30.16b, #16
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q50DotSDOT_tail
q50DotSDOT_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x1e310bb0 // fmul s16, s29, s17
	WORD $0x3cc06000 // ldur q0, [x0, #6]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc402003 // ldur s3, [x0, #2]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	WORD $0x7d402c06 // ldr h6, [x0, #22]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd402c31 // ldr s17, [x1, #44]
	WORD $0x1e310bb0 // fmul s16, s29, s17
	WORD $0x3cc1c000 // ldur q0, [x0, #28]
	WORD $0x3cc30024 // ldur q4, [x1, #48]
	WORD $0x3cc40025 // ldur q5, [x1, #64]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc418003 // ldur s3, [x0, #24]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	ADD $44, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q50DotSDOT_loop
q50DotSDOT_tail:
	TBZ $0, R2, q50DotSDOT_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x1e310bb0 // fmul s16, s29, s17
	WORD $0x3cc06000 // ldur q0, [x0, #6]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc402003 // ldur s3, [x0, #2]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
q50DotSDOT_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q50DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)
TEXT ·q50DotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4c40609a // ld1 {v26.16b, v27.16b, v28.16b}, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e61e // movi v30.16b, #16
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q50DotNEON_tail
q50DotNEON_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x1e310bb0 // fmul s16, s29, s17
	WORD $0x3cc06000 // ldur q0, [x0, #6]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc402003 // ldur s3, [x0, #2]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	WORD $0x7d402c06 // ldr h6, [x0, #22]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd402c31 // ldr s17, [x1, #44]
	WORD $0x1e310bb0 // fmul s16, s29, s17
	WORD $0x3cc1c000 // ldur q0, [x0, #28]
	WORD $0x3cc30024 // ldur q4, [x1, #48]
	WORD $0x3cc40025 // ldur q5, [x1, #64]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc418003 // ldur s3, [x0, #24]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	ADD $44, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q50DotNEON_loop
q50DotNEON_tail:
	TBZ $0, R2, q50DotNEON_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x1e310bb0 // fmul s16, s29, s17
	WORD $0x3cc06000 // ldur q0, [x0, #6]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc402003 // ldur s3, [x0, #2]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x6e3e8421 // sub v1.16b, v1.16b, v30.16b
	WORD $0x6e3e8442 // sub v2.16b, v2.16b, v30.16b
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
q50DotNEON_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q51DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)
TEXT ·q51DotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4c40609a // ld1 {v26.16b, v27.16b, v28.16b}, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e61e // movi v30.16b, #16
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q51DotSDOT_tail
q51DotSDOT_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc08000 // ldur q0, [x0, #8]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc404003 // ldur s3, [x0, #4]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	WORD $0x7d403006 // ldr h6, [x0, #24]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd402c31 // ldr s17, [x1, #44]
	WORD $0x7d403410 // ldr h16, [x0, #26]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc20000 // ldur q0, [x0, #32]
	WORD $0x3cc30024 // ldur q4, [x1, #48]
	WORD $0x3cc40025 // ldur q5, [x1, #64]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc41c003 // ldur s3, [x0, #28]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	ADD $48, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q51DotSDOT_loop
q51DotSDOT_tail:
	TBZ $0, R2, q51DotSDOT_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc08000 // ldur q0, [x0, #8]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc404003 // ldur s3, [x0, #4]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4e849435 // sdot v21.4s, v1.16b, v4.16b
	WORD $0x4e859455 // sdot v21.4s, v2.16b, v5.16b
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
q51DotSDOT_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// q51DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)
TEXT ·q51DotNEON(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	WORD $0x4c40609a // ld1 {v26.16b, v27.16b, v28.16b}, [x4]
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e61e // movi v30.16b, #16
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R5
	CBZ R5, q51DotNEON_tail
q51DotNEON_loop:
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc08000 // ldur q0, [x0, #8]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc404003 // ldur s3, [x0, #4]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	WORD $0x7d403006 // ldr h6, [x0, #24]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd402c31 // ldr s17, [x1, #44]
	WORD $0x7d403410 // ldr h16, [x0, #26]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc20000 // ldur q0, [x0, #32]
	WORD $0x3cc30024 // ldur q4, [x1, #48]
	WORD $0x3cc40025 // ldur q5, [x1, #64]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc41c003 // ldur s3, [x0, #28]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
	ADD $48, R0
	ADD $80, R1
	SUBS $1, R5
	BNE q51DotNEON_loop
q51DotNEON_tail:
	TBZ $0, R2, q51DotNEON_done
	WORD $0x7d400006 // ldr h6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x1ee240c6 // fcvt s6, h6
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0xbd400431 // ldr s17, [x1, #4]
	WORD $0x7d400410 // ldr h16, [x0, #2]
	WORD $0x1ee24210 // fcvt s16, h16
	WORD $0x1e310a10 // fmul s16, s16, s17
	WORD $0x3cc08000 // ldur q0, [x0, #8]
	WORD $0x3cc08024 // ldur q4, [x1, #8]
	WORD $0x3cc18025 // ldur q5, [x1, #24]
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0xbc404003 // ldur s3, [x0, #4]
	WORD $0x4e1a0072 // tbl v18.16b, {v3.16b}, v26.16b
	WORD $0x4e1b0073 // tbl v19.16b, {v3.16b}, v27.16b
	WORD $0x4e3c8e52 // cmtst v18.16b, v18.16b, v28.16b
	WORD $0x4e3c8e73 // cmtst v19.16b, v19.16b, v28.16b
	WORD $0x4e3e1e52 // and v18.16b, v18.16b, v30.16b
	WORD $0x4e3e1e73 // and v19.16b, v19.16b, v30.16b
	WORD $0x4eb21c21 // orr v1.16b, v1.16b, v18.16b
	WORD $0x4eb31c42 // orr v2.16b, v2.16b, v19.16b
	WORD $0x0e24c035 // smull v21.8h, v1.8b, v4.8b
	WORD $0x4e248035 // smlal2 v21.8h, v1.16b, v4.16b
	WORD $0x0e25c056 // smull v22.8h, v2.8b, v5.8b
	WORD $0x4e258056 // smlal2 v22.8h, v2.16b, v5.16b
	WORD $0x4e602ab5 // saddlp v21.4s, v21.8h
	WORD $0x4e606ad5 // sadalp v21.4s, v22.8h
	WORD $0x4eb1bab5 // addv s21, v21.4s
	WORD $0x5e21dab5 // scvtf s21, s21
	WORD $0x1e260ab5 // fmul s21, s21, s6
	WORD $0x1e302ab5 // fadd s21, s21, s16
	WORD $0x1e352a94 // fadd s20, s20, s21
q51DotNEON_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// quantQ8NEON(x *float32, out *q8Block, n int, sums int)
TEXT ·quantQ8NEON(SB), NOSPLIT, $0-32
	MOVD x+0(FP), R0
	MOVD out+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sums+24(FP), R3
	WORD $0x52a85fc4 // mov w4, #0x42fe0000
	WORD $0x1e27009e // fmov s30, w4
	WORD $0x4f00041f // movi v31.4s, #0
	CBZ R2, quantQ8NEON_done
quantQ8NEON_loop:
	WORD $0x4cdf2800 // ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x0], #64
	WORD $0x4cdf2804 // ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x0], #64
	WORD $0x4ea0f810 // fabs v16.4s, v0.4s
	WORD $0x4ea0f831 // fabs v17.4s, v1.4s
	WORD $0x4ea0f852 // fabs v18.4s, v2.4s
	WORD $0x4ea0f873 // fabs v19.4s, v3.4s
	WORD $0x4ea0f894 // fabs v20.4s, v4.4s
	WORD $0x4ea0f8b5 // fabs v21.4s, v5.4s
	WORD $0x4ea0f8d6 // fabs v22.4s, v6.4s
	WORD $0x4ea0f8f7 // fabs v23.4s, v7.4s
	WORD $0x4e31f610 // fmax v16.4s, v16.4s, v17.4s
	WORD $0x4e33f652 // fmax v18.4s, v18.4s, v19.4s
	WORD $0x4e35f694 // fmax v20.4s, v20.4s, v21.4s
	WORD $0x4e37f6d6 // fmax v22.4s, v22.4s, v23.4s
	WORD $0x4e32f610 // fmax v16.4s, v16.4s, v18.4s
	WORD $0x4e36f694 // fmax v20.4s, v20.4s, v22.4s
	WORD $0x4e34f610 // fmax v16.4s, v16.4s, v20.4s
	WORD $0x6e30fa10 // fmaxv s16, v16.4s
	WORD $0x1e3e1a11 // fdiv s17, s16, s30
	WORD $0x1e301bd2 // fdiv s18, s30, s16
	WORD $0x1e202208 // fcmp s16, #0.0
	WORD $0x1e3f1e52 // fcsel s18, s18, s31, ne
	WORD $0x1e23c233 // fcvt h19, s17
	WORD $0x1ee24273 // fcvt s19, h19
	WORD $0xbd000033 // str s19, [x1]
	WORD $0x4f929000 // fmul v0.4s, v0.4s, v18.s[0]
	WORD $0x4e21a800 // fcvtns v0.4s, v0.4s
	WORD $0x4f929021 // fmul v1.4s, v1.4s, v18.s[0]
	WORD $0x4e21a821 // fcvtns v1.4s, v1.4s
	WORD $0x4f929042 // fmul v2.4s, v2.4s, v18.s[0]
	WORD $0x4e21a842 // fcvtns v2.4s, v2.4s
	WORD $0x4f929063 // fmul v3.4s, v3.4s, v18.s[0]
	WORD $0x4e21a863 // fcvtns v3.4s, v3.4s
	WORD $0x4f929084 // fmul v4.4s, v4.4s, v18.s[0]
	WORD $0x4e21a884 // fcvtns v4.4s, v4.4s
	WORD $0x4f9290a5 // fmul v5.4s, v5.4s, v18.s[0]
	WORD $0x4e21a8a5 // fcvtns v5.4s, v5.4s
	WORD $0x4f9290c6 // fmul v6.4s, v6.4s, v18.s[0]
	WORD $0x4e21a8c6 // fcvtns v6.4s, v6.4s
	WORD $0x4f9290e7 // fmul v7.4s, v7.4s, v18.s[0]
	WORD $0x4e21a8e7 // fcvtns v7.4s, v7.4s
	WORD $0x0e612800 // xtn v0.4h, v0.4s
	WORD $0x4e612820 // xtn2 v0.8h, v1.4s
	WORD $0x0e612842 // xtn v2.4h, v2.4s
	WORD $0x4e612862 // xtn2 v2.8h, v3.4s
	WORD $0x0e612884 // xtn v4.4h, v4.4s
	WORD $0x4e6128a4 // xtn2 v4.8h, v5.4s
	WORD $0x0e6128c6 // xtn v6.4h, v6.4s
	WORD $0x4e6128e6 // xtn2 v6.8h, v7.4s
	WORD $0x0e212800 // xtn v0.8b, v0.8h
	WORD $0x4e212840 // xtn2 v0.16b, v2.8h
	WORD $0x0e212884 // xtn v4.8b, v4.8h
	WORD $0x4e2128c4 // xtn2 v4.16b, v6.8h
	WORD $0x3c808020 // stur q0, [x1, #8]
	WORD $0x3c818024 // stur q4, [x1, #24]
	CBZ R3, quantQ8NEON_next
	WORD $0x4e202800 // saddlp v0.8h, v0.16b
	WORD $0x4e206880 // sadalp v0.8h, v4.16b
	WORD $0x4e703800 // saddlv s0, v0.8h
	WORD $0x5e21d800 // scvtf s0, s0
	WORD $0x1e200a20 // fmul s0, s17, s0
	WORD $0x1e23c000 // fcvt h0, s0
	WORD $0x1ee24000 // fcvt s0, h0
	WORD $0xbd000420 // str s0, [x1, #4]
quantQ8NEON_next:
	ADD $40, R1
	SUBS $1, R2
	BNE quantQ8NEON_loop
quantQ8NEON_done:
	RET

// q8KMaxNEON(x *float32) (amax float32, pos, neg bool)
TEXT ·q8KMaxNEON(SB), NOSPLIT, $0-14
	MOVD x+0(FP), R0
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	MOVD $16, R2
q8KMaxNEON_loop:
	WORD $0x4cdf2800 // ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x0], #64
	WORD $0x4ea0f800 // fabs v0.4s, v0.4s
	WORD $0x4e20f610 // fmax v16.4s, v16.4s, v0.4s
	WORD $0x4ea0f821 // fabs v1.4s, v1.4s
	WORD $0x4e21f631 // fmax v17.4s, v17.4s, v1.4s
	WORD $0x4ea0f842 // fabs v2.4s, v2.4s
	WORD $0x4e22f652 // fmax v18.4s, v18.4s, v2.4s
	WORD $0x4ea0f863 // fabs v3.4s, v3.4s
	WORD $0x4e23f673 // fmax v19.4s, v19.4s, v3.4s
	SUBS $1, R2
	BNE q8KMaxNEON_loop
	WORD $0x4e31f610 // fmax v16.4s, v16.4s, v17.4s
	WORD $0x4e33f652 // fmax v18.4s, v18.4s, v19.4s
	WORD $0x4e32f610 // fmax v16.4s, v16.4s, v18.4s
	WORD $0x6e30fa10 // fmaxv s16, v16.4s
	WORD $0x4e040611 // dup v17.4s, v16.s[0]
	WORD $0x6ea0fa32 // fneg v18.4s, v17.4s
	WORD $0xd1100000 // sub x0, x0, #1024
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	MOVD $16, R2
q8KMaxNEON_loop2:
	WORD $0x4cdf2800 // ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x0], #64
	WORD $0x4e31e404 // fcmeq v4.4s, v0.4s, v17.4s
	WORD $0x4ea41e94 // orr v20.16b, v20.16b, v4.16b
	WORD $0x4e32e404 // fcmeq v4.4s, v0.4s, v18.4s
	WORD $0x4ea41eb5 // orr v21.16b, v21.16b, v4.16b
	WORD $0x4e31e425 // fcmeq v5.4s, v1.4s, v17.4s
	WORD $0x4ea51e94 // orr v20.16b, v20.16b, v5.16b
	WORD $0x4e32e425 // fcmeq v5.4s, v1.4s, v18.4s
	WORD $0x4ea51eb5 // orr v21.16b, v21.16b, v5.16b
	WORD $0x4e31e446 // fcmeq v6.4s, v2.4s, v17.4s
	WORD $0x4ea61e94 // orr v20.16b, v20.16b, v6.16b
	WORD $0x4e32e446 // fcmeq v6.4s, v2.4s, v18.4s
	WORD $0x4ea61eb5 // orr v21.16b, v21.16b, v6.16b
	WORD $0x4e31e467 // fcmeq v7.4s, v3.4s, v17.4s
	WORD $0x4ea71e94 // orr v20.16b, v20.16b, v7.16b
	WORD $0x4e32e467 // fcmeq v7.4s, v3.4s, v18.4s
	WORD $0x4ea71eb5 // orr v21.16b, v21.16b, v7.16b
	SUBS $1, R2
	BNE q8KMaxNEON_loop2
	WORD $0x6eb0aa94 // umaxv s20, v20.4s
	WORD $0x6eb0aab5 // umaxv s21, v21.4s
	WORD $0x1e260284 // fmov w4, s20
	WORD $0x1e2602a5 // fmov w5, s21
	WORD $0x12000084 // and w4, w4, #1
	WORD $0x120000a5 // and w5, w5, #1
	FMOVS F16, amax+8(FP)
	MOVB R4, pos+12(FP)
	MOVB R5, neg+13(FP)
	RET

// q8KQuantNEON(x *float32, out *q8KBlock, iscale float32)
TEXT ·q8KQuantNEON(SB), NOSPLIT, $0-20
	MOVD x+0(FP), R0
	MOVD out+8(FP), R1
	FMOVS iscale+16(FP), F30
	WORD $0x4f0307ff // movi v31.4s, #127
	WORD $0x91001023 // add x3, x1, #4
	MOVD $16, R2
q8KQuantNEON_loop:
	WORD $0x4cdf2800 // ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x0], #64
	WORD $0x4f9e9000 // fmul v0.4s, v0.4s, v30.s[0]
	WORD $0x4e21a800 // fcvtns v0.4s, v0.4s
	WORD $0x4ebf6c00 // smin v0.4s, v0.4s, v31.4s
	WORD $0x4f9e9021 // fmul v1.4s, v1.4s, v30.s[0]
	WORD $0x4e21a821 // fcvtns v1.4s, v1.4s
	WORD $0x4ebf6c21 // smin v1.4s, v1.4s, v31.4s
	WORD $0x4f9e9042 // fmul v2.4s, v2.4s, v30.s[0]
	WORD $0x4e21a842 // fcvtns v2.4s, v2.4s
	WORD $0x4ebf6c42 // smin v2.4s, v2.4s, v31.4s
	WORD $0x4f9e9063 // fmul v3.4s, v3.4s, v30.s[0]
	WORD $0x4e21a863 // fcvtns v3.4s, v3.4s
	WORD $0x4ebf6c63 // smin v3.4s, v3.4s, v31.4s
	WORD $0x0e612800 // xtn v0.4h, v0.4s
	WORD $0x4e612820 // xtn2 v0.8h, v1.4s
	WORD $0x0e612842 // xtn v2.4h, v2.4s
	WORD $0x4e612862 // xtn2 v2.8h, v3.4s
	WORD $0x0e212800 // xtn v0.8b, v0.8h
	WORD $0x4e212840 // xtn2 v0.16b, v2.8h
	WORD $0x4c9f7060 // st1 {v0.16b}, [x3], #16
	SUBS $1, R2
	BNE q8KQuantNEON_loop
	WORD $0x91001023 // add x3, x1, #4
	WORD $0x4cdf2060 // ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x3], #64
	WORD $0x4cdf2064 // ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x3], #64
	WORD $0x4cdf2068 // ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x3], #64
	WORD $0x4cdf206c // ld1 {v12.16b, v13.16b, v14.16b, v15.16b}, [x3], #64
	WORD $0x4e202800 // saddlp v0.8h, v0.16b
	WORD $0x4e202821 // saddlp v1.8h, v1.16b
	WORD $0x4e202842 // saddlp v2.8h, v2.16b
	WORD $0x4e202863 // saddlp v3.8h, v3.16b
	WORD $0x4e202884 // saddlp v4.8h, v4.16b
	WORD $0x4e2028a5 // saddlp v5.8h, v5.16b
	WORD $0x4e2028c6 // saddlp v6.8h, v6.16b
	WORD $0x4e2028e7 // saddlp v7.8h, v7.16b
	WORD $0x4e202908 // saddlp v8.8h, v8.16b
	WORD $0x4e202929 // saddlp v9.8h, v9.16b
	WORD $0x4e20294a // saddlp v10.8h, v10.16b
	WORD $0x4e20296b // saddlp v11.8h, v11.16b
	WORD $0x4e20298c // saddlp v12.8h, v12.16b
	WORD $0x4e2029ad // saddlp v13.8h, v13.16b
	WORD $0x4e2029ce // saddlp v14.8h, v14.16b
	WORD $0x4e2029ef // saddlp v15.8h, v15.16b
	WORD $0x4e61bc00 // addp v0.8h, v0.8h, v1.8h
	WORD $0x4e63bc42 // addp v2.8h, v2.8h, v3.8h
	WORD $0x4e65bc84 // addp v4.8h, v4.8h, v5.8h
	WORD $0x4e67bcc6 // addp v6.8h, v6.8h, v7.8h
	WORD $0x4e69bd08 // addp v8.8h, v8.8h, v9.8h
	WORD $0x4e6bbd4a // addp v10.8h, v10.8h, v11.8h
	WORD $0x4e6dbd8c // addp v12.8h, v12.8h, v13.8h
	WORD $0x4e6fbdce // addp v14.8h, v14.8h, v15.8h
	WORD $0x4e62bc00 // addp v0.8h, v0.8h, v2.8h
	WORD $0x4e66bc84 // addp v4.8h, v4.8h, v6.8h
	WORD $0x4e6abd08 // addp v8.8h, v8.8h, v10.8h
	WORD $0x4e6ebd8c // addp v12.8h, v12.8h, v14.8h
	WORD $0x4e64bc00 // addp v0.8h, v0.8h, v4.8h
	WORD $0x4e6cbd08 // addp v8.8h, v8.8h, v12.8h
	WORD $0xad002060 // stp q0, q8, [x3]
	RET

// f32Tiny16(a *float32, b *float32, n int, acc *[16]float32)
TEXT ·f32Tiny16(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	CBZ R2, f32Tiny16_done
f32Tiny16_loop:
	WORD $0x4cdf2804 // ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x0], #64
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc90 // fmla v16.4s, v4.4s, v8.4s
	WORD $0x4e29ccb1 // fmla v17.4s, v5.4s, v9.4s
	WORD $0x4e2accd2 // fmla v18.4s, v6.4s, v10.4s
	WORD $0x4e2bccf3 // fmla v19.4s, v7.4s, v11.4s
	SUBS $16, R2
	BNE f32Tiny16_loop
f32Tiny16_done:
	WORD $0x4c002870 // st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [x3]
	RET

// f32Vec64(a *float32, b *float32, n int, acc *[16]float32)
TEXT ·f32Vec64(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4f000416 // movi v22.4s, #0
	WORD $0x4f000417 // movi v23.4s, #0
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	CBZ R2, f32Vec64_done
f32Vec64_loop:
	WORD $0x4cdf2804 // ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x0], #64
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc90 // fmla v16.4s, v4.4s, v8.4s
	WORD $0x4e29ccb1 // fmla v17.4s, v5.4s, v9.4s
	WORD $0x4e2accd2 // fmla v18.4s, v6.4s, v10.4s
	WORD $0x4e2bccf3 // fmla v19.4s, v7.4s, v11.4s
	WORD $0x4cdf2804 // ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x0], #64
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc94 // fmla v20.4s, v4.4s, v8.4s
	WORD $0x4e29ccb5 // fmla v21.4s, v5.4s, v9.4s
	WORD $0x4e2accd6 // fmla v22.4s, v6.4s, v10.4s
	WORD $0x4e2bccf7 // fmla v23.4s, v7.4s, v11.4s
	WORD $0x4cdf2804 // ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x0], #64
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc98 // fmla v24.4s, v4.4s, v8.4s
	WORD $0x4e29ccb9 // fmla v25.4s, v5.4s, v9.4s
	WORD $0x4e2accda // fmla v26.4s, v6.4s, v10.4s
	WORD $0x4e2bccfb // fmla v27.4s, v7.4s, v11.4s
	WORD $0x4cdf2804 // ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x0], #64
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc9c // fmla v28.4s, v4.4s, v8.4s
	WORD $0x4e29ccbd // fmla v29.4s, v5.4s, v9.4s
	WORD $0x4e2accde // fmla v30.4s, v6.4s, v10.4s
	WORD $0x4e2bccff // fmla v31.4s, v7.4s, v11.4s
	SUBS $64, R2
	BNE f32Vec64_loop
f32Vec64_done:
	WORD $0x4e38d610 // fadd v16.4s, v16.4s, v24.4s
	WORD $0x4e3cd694 // fadd v20.4s, v20.4s, v28.4s
	WORD $0x4e34d610 // fadd v16.4s, v16.4s, v20.4s
	WORD $0x4e39d631 // fadd v17.4s, v17.4s, v25.4s
	WORD $0x4e3dd6b5 // fadd v21.4s, v21.4s, v29.4s
	WORD $0x4e35d631 // fadd v17.4s, v17.4s, v21.4s
	WORD $0x4e3ad652 // fadd v18.4s, v18.4s, v26.4s
	WORD $0x4e3ed6d6 // fadd v22.4s, v22.4s, v30.4s
	WORD $0x4e36d652 // fadd v18.4s, v18.4s, v22.4s
	WORD $0x4e3bd673 // fadd v19.4s, v19.4s, v27.4s
	WORD $0x4e3fd6f7 // fadd v23.4s, v23.4s, v31.4s
	WORD $0x4e37d673 // fadd v19.4s, v19.4s, v23.4s
	WORD $0x4c002870 // st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [x3]
	RET

// f16Tiny16(a *byte, b *float32, n int, acc *[16]float32)
TEXT ·f16Tiny16(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	CBZ R2, f16Tiny16_done
f16Tiny16_loop:
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x0e217804 // fcvtl v4.4s, v0.4h
	WORD $0x4e217805 // fcvtl2 v5.4s, v0.8h
	WORD $0x0e217826 // fcvtl v6.4s, v1.4h
	WORD $0x4e217827 // fcvtl2 v7.4s, v1.8h
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc90 // fmla v16.4s, v4.4s, v8.4s
	WORD $0x4e29ccb1 // fmla v17.4s, v5.4s, v9.4s
	WORD $0x4e2accd2 // fmla v18.4s, v6.4s, v10.4s
	WORD $0x4e2bccf3 // fmla v19.4s, v7.4s, v11.4s
	SUBS $16, R2
	BNE f16Tiny16_loop
f16Tiny16_done:
	WORD $0x4c002870 // st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [x3]
	RET

// f16Vec64(a *byte, b *float32, n int, acc *[16]float32)
TEXT ·f16Vec64(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4f000416 // movi v22.4s, #0
	WORD $0x4f000417 // movi v23.4s, #0
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	CBZ R2, f16Vec64_done
f16Vec64_loop:
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x0e217804 // fcvtl v4.4s, v0.4h
	WORD $0x4e217805 // fcvtl2 v5.4s, v0.8h
	WORD $0x0e217826 // fcvtl v6.4s, v1.4h
	WORD $0x4e217827 // fcvtl2 v7.4s, v1.8h
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc90 // fmla v16.4s, v4.4s, v8.4s
	WORD $0x4e29ccb1 // fmla v17.4s, v5.4s, v9.4s
	WORD $0x4e2accd2 // fmla v18.4s, v6.4s, v10.4s
	WORD $0x4e2bccf3 // fmla v19.4s, v7.4s, v11.4s
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x0e217804 // fcvtl v4.4s, v0.4h
	WORD $0x4e217805 // fcvtl2 v5.4s, v0.8h
	WORD $0x0e217826 // fcvtl v6.4s, v1.4h
	WORD $0x4e217827 // fcvtl2 v7.4s, v1.8h
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc94 // fmla v20.4s, v4.4s, v8.4s
	WORD $0x4e29ccb5 // fmla v21.4s, v5.4s, v9.4s
	WORD $0x4e2accd6 // fmla v22.4s, v6.4s, v10.4s
	WORD $0x4e2bccf7 // fmla v23.4s, v7.4s, v11.4s
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x0e217804 // fcvtl v4.4s, v0.4h
	WORD $0x4e217805 // fcvtl2 v5.4s, v0.8h
	WORD $0x0e217826 // fcvtl v6.4s, v1.4h
	WORD $0x4e217827 // fcvtl2 v7.4s, v1.8h
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc98 // fmla v24.4s, v4.4s, v8.4s
	WORD $0x4e29ccb9 // fmla v25.4s, v5.4s, v9.4s
	WORD $0x4e2accda // fmla v26.4s, v6.4s, v10.4s
	WORD $0x4e2bccfb // fmla v27.4s, v7.4s, v11.4s
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x0e217804 // fcvtl v4.4s, v0.4h
	WORD $0x4e217805 // fcvtl2 v5.4s, v0.8h
	WORD $0x0e217826 // fcvtl v6.4s, v1.4h
	WORD $0x4e217827 // fcvtl2 v7.4s, v1.8h
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc9c // fmla v28.4s, v4.4s, v8.4s
	WORD $0x4e29ccbd // fmla v29.4s, v5.4s, v9.4s
	WORD $0x4e2accde // fmla v30.4s, v6.4s, v10.4s
	WORD $0x4e2bccff // fmla v31.4s, v7.4s, v11.4s
	SUBS $64, R2
	BNE f16Vec64_loop
f16Vec64_done:
	WORD $0x4e38d610 // fadd v16.4s, v16.4s, v24.4s
	WORD $0x4e3cd694 // fadd v20.4s, v20.4s, v28.4s
	WORD $0x4e34d610 // fadd v16.4s, v16.4s, v20.4s
	WORD $0x4e39d631 // fadd v17.4s, v17.4s, v25.4s
	WORD $0x4e3dd6b5 // fadd v21.4s, v21.4s, v29.4s
	WORD $0x4e35d631 // fadd v17.4s, v17.4s, v21.4s
	WORD $0x4e3ad652 // fadd v18.4s, v18.4s, v26.4s
	WORD $0x4e3ed6d6 // fadd v22.4s, v22.4s, v30.4s
	WORD $0x4e36d652 // fadd v18.4s, v18.4s, v22.4s
	WORD $0x4e3bd673 // fadd v19.4s, v19.4s, v27.4s
	WORD $0x4e3fd6f7 // fadd v23.4s, v23.4s, v31.4s
	WORD $0x4e37d673 // fadd v19.4s, v19.4s, v23.4s
	WORD $0x4c002870 // st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [x3]
	RET

// bf16Tiny16(a *byte, b *float32, n int, acc *[16]float32)
TEXT ·bf16Tiny16(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	CBZ R2, bf16Tiny16_done
bf16Tiny16_loop:
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x2e613804 // shll v4.4s, v0.4h, #16
	WORD $0x6e613805 // shll2 v5.4s, v0.8h, #16
	WORD $0x2e613826 // shll v6.4s, v1.4h, #16
	WORD $0x6e613827 // shll2 v7.4s, v1.8h, #16
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc90 // fmla v16.4s, v4.4s, v8.4s
	WORD $0x4e29ccb1 // fmla v17.4s, v5.4s, v9.4s
	WORD $0x4e2accd2 // fmla v18.4s, v6.4s, v10.4s
	WORD $0x4e2bccf3 // fmla v19.4s, v7.4s, v11.4s
	SUBS $16, R2
	BNE bf16Tiny16_loop
bf16Tiny16_done:
	WORD $0x4c002870 // st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [x3]
	RET

// bf16Vec64(a *byte, b *float32, n int, acc *[16]float32)
TEXT ·bf16Vec64(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4f000416 // movi v22.4s, #0
	WORD $0x4f000417 // movi v23.4s, #0
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4f00041e // movi v30.4s, #0
	WORD $0x4f00041f // movi v31.4s, #0
	CBZ R2, bf16Vec64_done
bf16Vec64_loop:
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x2e613804 // shll v4.4s, v0.4h, #16
	WORD $0x6e613805 // shll2 v5.4s, v0.8h, #16
	WORD $0x2e613826 // shll v6.4s, v1.4h, #16
	WORD $0x6e613827 // shll2 v7.4s, v1.8h, #16
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc90 // fmla v16.4s, v4.4s, v8.4s
	WORD $0x4e29ccb1 // fmla v17.4s, v5.4s, v9.4s
	WORD $0x4e2accd2 // fmla v18.4s, v6.4s, v10.4s
	WORD $0x4e2bccf3 // fmla v19.4s, v7.4s, v11.4s
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x2e613804 // shll v4.4s, v0.4h, #16
	WORD $0x6e613805 // shll2 v5.4s, v0.8h, #16
	WORD $0x2e613826 // shll v6.4s, v1.4h, #16
	WORD $0x6e613827 // shll2 v7.4s, v1.8h, #16
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc94 // fmla v20.4s, v4.4s, v8.4s
	WORD $0x4e29ccb5 // fmla v21.4s, v5.4s, v9.4s
	WORD $0x4e2accd6 // fmla v22.4s, v6.4s, v10.4s
	WORD $0x4e2bccf7 // fmla v23.4s, v7.4s, v11.4s
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x2e613804 // shll v4.4s, v0.4h, #16
	WORD $0x6e613805 // shll2 v5.4s, v0.8h, #16
	WORD $0x2e613826 // shll v6.4s, v1.4h, #16
	WORD $0x6e613827 // shll2 v7.4s, v1.8h, #16
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc98 // fmla v24.4s, v4.4s, v8.4s
	WORD $0x4e29ccb9 // fmla v25.4s, v5.4s, v9.4s
	WORD $0x4e2accda // fmla v26.4s, v6.4s, v10.4s
	WORD $0x4e2bccfb // fmla v27.4s, v7.4s, v11.4s
	WORD $0x4cdfa400 // ld1 {v0.8h, v1.8h}, [x0], #32
	WORD $0x2e613804 // shll v4.4s, v0.4h, #16
	WORD $0x6e613805 // shll2 v5.4s, v0.8h, #16
	WORD $0x2e613826 // shll v6.4s, v1.4h, #16
	WORD $0x6e613827 // shll2 v7.4s, v1.8h, #16
	WORD $0x4cdf2828 // ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [x1], #64
	WORD $0x4e28cc9c // fmla v28.4s, v4.4s, v8.4s
	WORD $0x4e29ccbd // fmla v29.4s, v5.4s, v9.4s
	WORD $0x4e2accde // fmla v30.4s, v6.4s, v10.4s
	WORD $0x4e2bccff // fmla v31.4s, v7.4s, v11.4s
	SUBS $64, R2
	BNE bf16Vec64_loop
bf16Vec64_done:
	WORD $0x4e38d610 // fadd v16.4s, v16.4s, v24.4s
	WORD $0x4e3cd694 // fadd v20.4s, v20.4s, v28.4s
	WORD $0x4e34d610 // fadd v16.4s, v16.4s, v20.4s
	WORD $0x4e39d631 // fadd v17.4s, v17.4s, v25.4s
	WORD $0x4e3dd6b5 // fadd v21.4s, v21.4s, v29.4s
	WORD $0x4e35d631 // fadd v17.4s, v17.4s, v21.4s
	WORD $0x4e3ad652 // fadd v18.4s, v18.4s, v26.4s
	WORD $0x4e3ed6d6 // fadd v22.4s, v22.4s, v30.4s
	WORD $0x4e36d652 // fadd v18.4s, v18.4s, v22.4s
	WORD $0x4e3bd673 // fadd v19.4s, v19.4s, v27.4s
	WORD $0x4e3fd6f7 // fadd v23.4s, v23.4s, v31.4s
	WORD $0x4e37d673 // fadd v19.4s, v19.4s, v23.4s
	WORD $0x4c002870 // st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [x3]
	RET

