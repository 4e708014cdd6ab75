package quant

func dequantizeQ2_K(src []byte, dst []float32) { panic("quant: Q2_K not implemented") }

func quantizeQ2_K(src []float32, dst []byte) { panic("quant: Q2_K not implemented") }

func dequantizeQ3_K(src []byte, dst []float32) { panic("quant: Q3_K not implemented") }

func quantizeQ3_K(src []float32, dst []byte) { panic("quant: Q3_K not implemented") }

func dequantizeQ4_K(src []byte, dst []float32) { panic("quant: Q4_K not implemented") }

func quantizeQ4_K(src []float32, dst []byte) { panic("quant: Q4_K not implemented") }

func dequantizeQ5_K(src []byte, dst []float32) { panic("quant: Q5_K not implemented") }

func quantizeQ5_K(src []float32, dst []byte) { panic("quant: Q5_K not implemented") }

func dequantizeQ6_K(src []byte, dst []float32) { panic("quant: Q6_K not implemented") }

func quantizeQ6_K(src []float32, dst []byte) { panic("quant: Q6_K not implemented") }

func dequantizeQ8_K(src []byte, dst []float32) { panic("quant: Q8_K not implemented") }

func quantizeQ8_K(src []float32, dst []byte) { panic("quant: Q8_K not implemented") }
