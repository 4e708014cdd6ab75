#include "textflag.h"

// func fmaAVX2(y, a, b *float32, n int)
TEXT ·fmaAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX // vectors of 8
	JZ   done

loop:
	VMOVUPS     (DI), Y0
	VMOVUPS     (SI), Y1
	VFMADD231PS (DX), Y1, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	ADDQ        $32, DX
	DECQ        CX
	JNZ         loop

done:
	VZEROUPPER
	RET
