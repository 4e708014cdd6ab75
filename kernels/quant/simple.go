package quant

func dequantizeF32(src []byte, dst []float32) { panic("quant: F32 not implemented") }

func quantizeF32(src []float32, dst []byte) { panic("quant: F32 not implemented") }

func dequantizeF16(src []byte, dst []float32) { panic("quant: F16 not implemented") }

func quantizeF16(src []float32, dst []byte) { panic("quant: F16 not implemented") }

func dequantizeBF16(src []byte, dst []float32) { panic("quant: BF16 not implemented") }

func quantizeBF16(src []float32, dst []byte) { panic("quant: BF16 not implemented") }

func dequantizeQ4_0(src []byte, dst []float32) { panic("quant: Q4_0 not implemented") }

func quantizeQ4_0(src []float32, dst []byte) { panic("quant: Q4_0 not implemented") }

func dequantizeQ4_1(src []byte, dst []float32) { panic("quant: Q4_1 not implemented") }

func quantizeQ4_1(src []float32, dst []byte) { panic("quant: Q4_1 not implemented") }

func dequantizeQ5_0(src []byte, dst []float32) { panic("quant: Q5_0 not implemented") }

func quantizeQ5_0(src []float32, dst []byte) { panic("quant: Q5_0 not implemented") }

func dequantizeQ5_1(src []byte, dst []float32) { panic("quant: Q5_1 not implemented") }

func quantizeQ5_1(src []float32, dst []byte) { panic("quant: Q5_1 not implemented") }

func dequantizeQ8_0(src []byte, dst []float32) { panic("quant: Q8_0 not implemented") }

func quantizeQ8_0(src []float32, dst []byte) { panic("quant: Q8_0 not implemented") }

func dequantizeQ8_1(src []byte, dst []float32) { panic("quant: Q8_1 not implemented") }

func quantizeQ8_1(src []float32, dst []byte) { panic("quant: Q8_1 not implemented") }
