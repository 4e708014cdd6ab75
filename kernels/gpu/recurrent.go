package gpu

import (
	"fmt"

	"saji/kernels"
)

// SSMScan runs Mamba-2's selective scan.
func (b *Backend) SSMScan(y, x, dt, a, bm, c, states kernels.Tensor, seqs []kernels.RecurrentSeq, p kernels.SSMScanParams) error {
	return fmt.Errorf("gpu: ssm_scan has no GPU kernel yet")
}

// GatedDeltaNet runs the gated delta net.
func (b *Backend) GatedDeltaNet(out, q, k, v, g, beta, states kernels.Tensor, seqs []kernels.RecurrentSeq, p kernels.DeltaNetParams) error {
	return fmt.Errorf("gpu: gated_delta_net has no GPU kernel yet")
}
