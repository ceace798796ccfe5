package envs

// Metrics are the social outcome metrics of Perolat et al. (2017), computed
// exactly as the reference does.
type Metrics struct {
	// Efficiency is the sum of all returns divided by the episode length.
	Efficiency float64 `json:"efficiency"`
	// Equality is 1 - Gini coefficient of the returns; 1 when the total
	// return is not positive.
	Equality float64 `json:"equality"`
	// Sustainability averages, over the agents with at least one
	// positive-reward step, the mean 0-based index of those steps; 0 when
	// no agent has one.
	Sustainability float64 `json:"sustainability"`
	// Peace is the number of agent-steps not spent tagged out, per step.
	Peace float64 `json:"peace"`
}

// ComputeMetrics computes the metrics of one episode from per-agent,
// per-step rewards and timeout flags (timed out after the step). Every
// agent's slices must have the same length T.
func ComputeMetrics(rewards [][]float64, timedOut [][]bool) Metrics {
	n := len(rewards)
	if n == 0 {
		return Metrics{Equality: 1}
	}
	T := len(rewards[0])
	R := Returns(rewards)
	total := pairwiseSum(R)

	var m Metrics
	if T > 0 {
		m.Efficiency = total / float64(T)
	}
	m.Equality = 1
	if total > 0 {
		var gini float64
		for i := range R {
			for j := range R {
				d := R[i] - R[j]
				if d < 0 {
					d = -d
				}
				gini += d
			}
		}
		m.Equality = 1 - gini/(float64(2*n)*total)
	}

	var means []float64
	for _, rs := range rewards {
		sum, cnt := 0, 0
		for t, r := range rs {
			if r > 0 {
				sum += t
				cnt++
			}
		}
		if cnt > 0 {
			means = append(means, float64(sum)/float64(cnt))
		}
	}
	if len(means) > 0 {
		m.Sustainability = pairwiseSum(means) / float64(len(means))
	}

	out := 0
	for _, ts := range timedOut {
		for _, t := range ts {
			if t {
				out++
			}
		}
	}
	if T > 0 {
		m.Peace = float64(n*T-out) / float64(T)
	} else {
		m.Peace = float64(n)
	}
	return m
}

// Returns sums each agent's rewards in step order.
func Returns(rewards [][]float64) []float64 {
	R := make([]float64, len(rewards))
	for i, rs := range rewards {
		for _, r := range rs {
			R[i] += r
		}
	}
	return R
}

// Mean is numpy's mean of a float64 array: the pairwise sum (see
// pairwiseSum) divided by the length; NaN for an empty slice, as numpy.
func Mean(a []float64) float64 { return pairwiseSum(a) / float64(len(a)) }

// pairwiseSum adds like numpy's float64 add.reduce (pairwise summation with
// an 8-way unrolled base case), so means match numpy's to the last bit.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		var s float64
		for _, x := range a {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}
