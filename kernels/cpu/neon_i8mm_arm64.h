// Macros the Q4_K tile kernels of neon_i8mm_arm64.s and neon_gemv_arm64.s
// share (encodings as in those files).

// Q4K_DECODE decodes the scales and minimums of Q4_K weight rows 0-3 (at
// x0-x3) at once: v16 holds the rows' d|dmin words, a row to a lane;
// v20, v21 the scales 0-3 and 4-7, v22, v23 the minimums, row r's value k
// of each in byte 4r+k (scaleMinK4). It uses v17-v19, v24, v25 and the
// masks v30 (63) and v31 (15).
#define Q4K_DECODE \
	WORD $0x3dc00010 /* ldr q16, [x0] */ \
	WORD $0x3dc00031 /* ldr q17, [x1] */ \
	WORD $0x3dc00052 /* ldr q18, [x2] */ \
	WORD $0x3dc00073 /* ldr q19, [x3] */ \
	WORD $0x4e912a14 /* trn1 v20.4s, v16.4s, v17.4s */ \
	WORD $0x4e916a15 /* trn2 v21.4s, v16.4s, v17.4s */ \
	WORD $0x4e932a56 /* trn1 v22.4s, v18.4s, v19.4s */ \
	WORD $0x4e936a57 /* trn2 v23.4s, v18.4s, v19.4s */ \
	WORD $0x4ed63a90 /* zip1 v16.2d, v20.2d, v22.2d */ \
	WORD $0x4ed67a91 /* zip2 v17.2d, v20.2d, v22.2d */ \
	WORD $0x4ed73ab2 /* zip1 v18.2d, v21.2d, v23.2d */ \
	WORD $0x4ed77ab3 /* zip2 v19.2d, v21.2d, v23.2d */ \
	WORD $0x4e3e1e54 /* and v20.16b, v18.16b, v30.16b */ \
	WORD $0x4e3e1e36 /* and v22.16b, v17.16b, v30.16b */ \
	WORD $0x6f0a0658 /* ushr v24.16b, v18.16b, #6 */ \
	WORD $0x4f0c5718 /* shl v24.16b, v24.16b, #4 */ \
	WORD $0x4e3f1e75 /* and v21.16b, v19.16b, v31.16b */ \
	WORD $0x4eb81eb5 /* orr v21.16b, v21.16b, v24.16b */ \
	WORD $0x6f0a0639 /* ushr v25.16b, v17.16b, #6 */ \
	WORD $0x4f0c5739 /* shl v25.16b, v25.16b, #4 */ \
	WORD $0x6f0c0677 /* ushr v23.16b, v19.16b, #4 */ \
	WORD $0x4eb91ef7 /* orr v23.16b, v23.16b, v25.16b */

// Q4K_MINS adds the minimums' sums of the super-block, by chunk of 64
// elements if x11 (gemm) is not zero, else in one, to scr.accMin[4j+i]
// (x9+64): the minimums of sub-blocks 2c, 2c+1 as int16 by TBL from
// {v22, v23} with idx entry 16+c (x10+256), in v24-v27; the activation
// rows' (x4-x7) sums of each sub-block (bsum pairs) in v0-v3; each chunk's
// integer sum scaled by dmin·xd_j (v16-v19) with a fused multiply-add.
// It uses v4-v8, v28, v29 and x12.
#define Q4K_MINS \
	WORD $0x3dc04158 /* ldr q24, [x10, #256] */ \
	WORD $0x4e1822d8 /* tbl v24.16b, {v22.16b, v23.16b}, v24.16b */ \
	WORD $0x3dc04559 /* ldr q25, [x10, #272] */ \
	WORD $0x4e1922d9 /* tbl v25.16b, {v22.16b, v23.16b}, v25.16b */ \
	WORD $0x3dc0495a /* ldr q26, [x10, #288] */ \
	WORD $0x4e1a22da /* tbl v26.16b, {v22.16b, v23.16b}, v26.16b */ \
	WORD $0x3dc04d5b /* ldr q27, [x10, #304] */ \
	WORD $0x4e1b22db /* tbl v27.16b, {v22.16b, v23.16b}, v27.16b */ \
	ADD $260, R4, R12 \
	WORD $0xad40759c /* ldp q28, q29, [x12] */ \
	WORD $0x4e7dbf80 /* addp v0.8h, v28.8h, v29.8h */ \
	ADD $260, R5, R12 \
	WORD $0xad40759c /* ldp q28, q29, [x12] */ \
	WORD $0x4e7dbf81 /* addp v1.8h, v28.8h, v29.8h */ \
	ADD $260, R6, R12 \
	WORD $0xad40759c /* ldp q28, q29, [x12] */ \
	WORD $0x4e7dbf82 /* addp v2.8h, v28.8h, v29.8h */ \
	ADD $260, R7, R12 \
	WORD $0xad40759c /* ldp q28, q29, [x12] */ \
	WORD $0x4e7dbf83 /* addp v3.8h, v28.8h, v29.8h */ \
	WORD $0xad421524 /* ldp q4, q5, [x9, #64] */ \
	WORD $0xad431d26 /* ldp q6, q7, [x9, #96] */ \
	CBZ R11, mingemv \
	WORD $0x0f40a308 /* smull v8.4s, v24.4h, v0.h[0] */ \
	WORD $0x4f502308 /* smlal2 v8.4s, v24.8h, v0.h[1] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e30cd04 /* fmla v4.4s, v8.4s, v16.4s */ \
	WORD $0x0f60a328 /* smull v8.4s, v25.4h, v0.h[2] */ \
	WORD $0x4f702328 /* smlal2 v8.4s, v25.8h, v0.h[3] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e30cd04 /* fmla v4.4s, v8.4s, v16.4s */ \
	WORD $0x0f40ab48 /* smull v8.4s, v26.4h, v0.h[4] */ \
	WORD $0x4f502b48 /* smlal2 v8.4s, v26.8h, v0.h[5] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e30cd04 /* fmla v4.4s, v8.4s, v16.4s */ \
	WORD $0x0f60ab68 /* smull v8.4s, v27.4h, v0.h[6] */ \
	WORD $0x4f702b68 /* smlal2 v8.4s, v27.8h, v0.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e30cd04 /* fmla v4.4s, v8.4s, v16.4s */ \
	WORD $0x0f41a308 /* smull v8.4s, v24.4h, v1.h[0] */ \
	WORD $0x4f512308 /* smlal2 v8.4s, v24.8h, v1.h[1] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e31cd05 /* fmla v5.4s, v8.4s, v17.4s */ \
	WORD $0x0f61a328 /* smull v8.4s, v25.4h, v1.h[2] */ \
	WORD $0x4f712328 /* smlal2 v8.4s, v25.8h, v1.h[3] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e31cd05 /* fmla v5.4s, v8.4s, v17.4s */ \
	WORD $0x0f41ab48 /* smull v8.4s, v26.4h, v1.h[4] */ \
	WORD $0x4f512b48 /* smlal2 v8.4s, v26.8h, v1.h[5] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e31cd05 /* fmla v5.4s, v8.4s, v17.4s */ \
	WORD $0x0f61ab68 /* smull v8.4s, v27.4h, v1.h[6] */ \
	WORD $0x4f712b68 /* smlal2 v8.4s, v27.8h, v1.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e31cd05 /* fmla v5.4s, v8.4s, v17.4s */ \
	WORD $0x0f42a308 /* smull v8.4s, v24.4h, v2.h[0] */ \
	WORD $0x4f522308 /* smlal2 v8.4s, v24.8h, v2.h[1] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e32cd06 /* fmla v6.4s, v8.4s, v18.4s */ \
	WORD $0x0f62a328 /* smull v8.4s, v25.4h, v2.h[2] */ \
	WORD $0x4f722328 /* smlal2 v8.4s, v25.8h, v2.h[3] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e32cd06 /* fmla v6.4s, v8.4s, v18.4s */ \
	WORD $0x0f42ab48 /* smull v8.4s, v26.4h, v2.h[4] */ \
	WORD $0x4f522b48 /* smlal2 v8.4s, v26.8h, v2.h[5] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e32cd06 /* fmla v6.4s, v8.4s, v18.4s */ \
	WORD $0x0f62ab68 /* smull v8.4s, v27.4h, v2.h[6] */ \
	WORD $0x4f722b68 /* smlal2 v8.4s, v27.8h, v2.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e32cd06 /* fmla v6.4s, v8.4s, v18.4s */ \
	WORD $0x0f43a308 /* smull v8.4s, v24.4h, v3.h[0] */ \
	WORD $0x4f532308 /* smlal2 v8.4s, v24.8h, v3.h[1] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e33cd07 /* fmla v7.4s, v8.4s, v19.4s */ \
	WORD $0x0f63a328 /* smull v8.4s, v25.4h, v3.h[2] */ \
	WORD $0x4f732328 /* smlal2 v8.4s, v25.8h, v3.h[3] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e33cd07 /* fmla v7.4s, v8.4s, v19.4s */ \
	WORD $0x0f43ab48 /* smull v8.4s, v26.4h, v3.h[4] */ \
	WORD $0x4f532b48 /* smlal2 v8.4s, v26.8h, v3.h[5] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e33cd07 /* fmla v7.4s, v8.4s, v19.4s */ \
	WORD $0x0f63ab68 /* smull v8.4s, v27.4h, v3.h[6] */ \
	WORD $0x4f732b68 /* smlal2 v8.4s, v27.8h, v3.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e33cd07 /* fmla v7.4s, v8.4s, v19.4s */ \
	B mindone \
mingemv: \
	WORD $0x0f40a308 /* smull v8.4s, v24.4h, v0.h[0] */ \
	WORD $0x4f502308 /* smlal2 v8.4s, v24.8h, v0.h[1] */ \
	WORD $0x0f602328 /* smlal v8.4s, v25.4h, v0.h[2] */ \
	WORD $0x4f702328 /* smlal2 v8.4s, v25.8h, v0.h[3] */ \
	WORD $0x0f402b48 /* smlal v8.4s, v26.4h, v0.h[4] */ \
	WORD $0x4f502b48 /* smlal2 v8.4s, v26.8h, v0.h[5] */ \
	WORD $0x0f602b68 /* smlal v8.4s, v27.4h, v0.h[6] */ \
	WORD $0x4f702b68 /* smlal2 v8.4s, v27.8h, v0.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e30cd04 /* fmla v4.4s, v8.4s, v16.4s */ \
	WORD $0x0f41a308 /* smull v8.4s, v24.4h, v1.h[0] */ \
	WORD $0x4f512308 /* smlal2 v8.4s, v24.8h, v1.h[1] */ \
	WORD $0x0f612328 /* smlal v8.4s, v25.4h, v1.h[2] */ \
	WORD $0x4f712328 /* smlal2 v8.4s, v25.8h, v1.h[3] */ \
	WORD $0x0f412b48 /* smlal v8.4s, v26.4h, v1.h[4] */ \
	WORD $0x4f512b48 /* smlal2 v8.4s, v26.8h, v1.h[5] */ \
	WORD $0x0f612b68 /* smlal v8.4s, v27.4h, v1.h[6] */ \
	WORD $0x4f712b68 /* smlal2 v8.4s, v27.8h, v1.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e31cd05 /* fmla v5.4s, v8.4s, v17.4s */ \
	WORD $0x0f42a308 /* smull v8.4s, v24.4h, v2.h[0] */ \
	WORD $0x4f522308 /* smlal2 v8.4s, v24.8h, v2.h[1] */ \
	WORD $0x0f622328 /* smlal v8.4s, v25.4h, v2.h[2] */ \
	WORD $0x4f722328 /* smlal2 v8.4s, v25.8h, v2.h[3] */ \
	WORD $0x0f422b48 /* smlal v8.4s, v26.4h, v2.h[4] */ \
	WORD $0x4f522b48 /* smlal2 v8.4s, v26.8h, v2.h[5] */ \
	WORD $0x0f622b68 /* smlal v8.4s, v27.4h, v2.h[6] */ \
	WORD $0x4f722b68 /* smlal2 v8.4s, v27.8h, v2.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e32cd06 /* fmla v6.4s, v8.4s, v18.4s */ \
	WORD $0x0f43a308 /* smull v8.4s, v24.4h, v3.h[0] */ \
	WORD $0x4f532308 /* smlal2 v8.4s, v24.8h, v3.h[1] */ \
	WORD $0x0f632328 /* smlal v8.4s, v25.4h, v3.h[2] */ \
	WORD $0x4f732328 /* smlal2 v8.4s, v25.8h, v3.h[3] */ \
	WORD $0x0f432b48 /* smlal v8.4s, v26.4h, v3.h[4] */ \
	WORD $0x4f532b48 /* smlal2 v8.4s, v26.8h, v3.h[5] */ \
	WORD $0x0f632b68 /* smlal v8.4s, v27.4h, v3.h[6] */ \
	WORD $0x4f732b68 /* smlal2 v8.4s, v27.8h, v3.h[7] */ \
	WORD $0x4e21d908 /* scvtf v8.4s, v8.4s */ \
	WORD $0x4e33cd07 /* fmla v7.4s, v8.4s, v19.4s */ \
mindone: \
	WORD $0xad021524 /* stp q4, q5, [x9, #64] */ \
	WORD $0xad031d26 /* stp q6, q7, [x9, #96] */
