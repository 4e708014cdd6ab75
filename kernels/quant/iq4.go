package quant

func dequantizeIQ4_NL(src []byte, dst []float32) { panic("quant: IQ4_NL not implemented") }

func quantizeIQ4_NL(src []float32, dst []byte) { panic("quant: IQ4_NL not implemented") }

func dequantizeIQ4_XS(src []byte, dst []float32) { panic("quant: IQ4_XS not implemented") }

func quantizeIQ4_XS(src []float32, dst []byte) { panic("quant: IQ4_XS not implemented") }
