package kernels

import "fmt"

// The operand checks of the recurrent operations (Backend.SSMScan and
// Backend.GatedDeltaNet), as check.go's for the others.

// checkSeqs checks the sequences of a recurrent operation (op names it)
// over states holding slots of size values: each takes a slot of its own
// that exists, and a number of tokens that is not negative. It returns the
// rows of the batch, the sum of their tokens.
func checkSeqs(op string, states Tensor, size int, seqs []RecurrentSeq) (int, error) {
	total := Cols(states) * Rows(states)
	if size <= 0 || total%size != 0 {
		return 0, fmt.Errorf("%s over states %v in slots of %d values: %w", op, states.Shape(), size, ErrShape)
	}
	slots := total / size
	seen := make(map[int]bool, len(seqs))
	rows := 0
	for i, s := range seqs {
		if s.Tokens < 0 || s.Slot < 0 || s.Slot >= slots {
			return 0, fmt.Errorf("%s: sequence %d of %d tokens in slot %d of %d: %w", op, i, s.Tokens, s.Slot, slots, ErrShape)
		}
		if seen[s.Slot] {
			return 0, fmt.Errorf("%s: sequences share slot %d: %w", op, s.Slot, ErrShape)
		}
		seen[s.Slot] = true
		rows += s.Tokens
	}
	return rows, nil
}

// operand is a tensor of a recurrent operation and the shape it must
// have: [cols, rows].
type operand struct {
	what       string
	t          Tensor
	cols, rows int
}

// checkOperands checks that each operand of op has its shape.
func checkOperands(op string, ops ...operand) error {
	for _, o := range ops {
		if o.t == nil || Cols(o.t) != o.cols || Rows(o.t) != o.rows {
			shape := []int(nil)
			if o.t != nil {
				shape = o.t.Shape()
			}
			return fmt.Errorf("%s: %s %v, want [%d %d]: %w", op, o.what, shape, o.cols, o.rows, ErrShape)
		}
	}
	return nil
}

// checkOutput checks that dst aliases none of the inputs of op.
func checkOutput(op string, dst Tensor, in ...Tensor) error {
	for _, t := range in {
		if dst == t {
			return fmt.Errorf("%s destination aliases an input: %w", op, ErrShape)
		}
	}
	return nil
}

// CheckSSMScan checks the operands of Backend.SSMScan: positive
// dimensions with Groups dividing Heads, y and x [Heads·HeadDim, n], dt
// [Heads, n], a of Heads values, b and c [Groups·StateDim, n], with n the
// sequences' tokens, states in slots of p.SlotSize() values, and a bias
// and skip weight for every head where p has them.
func CheckSSMScan(y, x, dt, a, b, c, states Tensor, seqs []RecurrentSeq, p SSMScanParams) error {
	const op = "ssm_scan"
	if p.Heads <= 0 || p.HeadDim <= 0 || p.StateDim <= 0 || p.Groups <= 0 || p.Heads%p.Groups != 0 {
		return fmt.Errorf("%s with %d heads of %d, %d groups of states of %d: %w", op, p.Heads, p.HeadDim, p.Groups, p.StateDim, ErrShape)
	}
	if states == nil || a == nil {
		return fmt.Errorf("%s without states or decays: %w", op, ErrShape)
	}
	if (p.DtBias != nil && len(p.DtBias) != p.Heads) || (p.D != nil && len(p.D) != p.Heads) {
		return fmt.Errorf("%s with %d biases and %d skip weights for %d heads: %w", op, len(p.DtBias), len(p.D), p.Heads, ErrShape)
	}
	n, err := checkSeqs(op, states, p.SlotSize(), seqs)
	if err != nil {
		return err
	}
	if Cols(a)*Rows(a) != p.Heads {
		return fmt.Errorf("%s: a %v for %d heads: %w", op, a.Shape(), p.Heads, ErrShape)
	}
	if err := checkOperands(op,
		operand{"y", y, p.Heads * p.HeadDim, n},
		operand{"x", x, p.Heads * p.HeadDim, n},
		operand{"dt", dt, p.Heads, n},
		operand{"b", b, p.Groups * p.StateDim, n},
		operand{"c", c, p.Groups * p.StateDim, n},
	); err != nil {
		return err
	}
	return checkOutput(op, y, x, dt, a, b, c, states)
}

// CheckGatedDeltaNet checks the operands of Backend.GatedDeltaNet:
// positive dimensions with KHeads dividing Heads, q and k
// [KHeads·HeadDim, n], v and out [Heads·HeadDim, n], g and beta
// [Heads, n], with n the sequences' tokens, states in slots of
// p.SlotSize() values, and a decay and bias for every head where p has
// them.
func CheckGatedDeltaNet(out, q, k, v, g, beta, states Tensor, seqs []RecurrentSeq, p DeltaNetParams) error {
	const op = "gated_delta_net"
	if p.Heads <= 0 || p.KHeads <= 0 || p.HeadDim <= 0 || p.Heads%p.KHeads != 0 {
		return fmt.Errorf("%s with %d value and %d key heads of %d: %w", op, p.Heads, p.KHeads, p.HeadDim, ErrShape)
	}
	if states == nil {
		return fmt.Errorf("%s without states: %w", op, ErrShape)
	}
	if (p.A != nil && len(p.A) != p.Heads) || (p.DtBias != nil && (p.A == nil || len(p.DtBias) != p.Heads)) || p.NormEps < 0 {
		return fmt.Errorf("%s with %d decays, %d biases and norm eps %g for %d heads: %w", op, len(p.A), len(p.DtBias), p.NormEps, p.Heads, ErrShape)
	}
	n, err := checkSeqs(op, states, p.SlotSize(), seqs)
	if err != nil {
		return err
	}
	if err := checkOperands(op,
		operand{"out", out, p.Heads * p.HeadDim, n},
		operand{"q", q, p.KHeads * p.HeadDim, n},
		operand{"k", k, p.KHeads * p.HeadDim, n},
		operand{"v", v, p.Heads * p.HeadDim, n},
		operand{"g", g, p.Heads, n},
		operand{"beta", beta, p.Heads, n},
	); err != nil {
		return err
	}
	return checkOutput(op, out, q, k, v, g, beta, states)
}
