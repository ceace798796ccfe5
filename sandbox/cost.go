package sandbox

import (
	"fmt"
	"time"
)

// Cost budget arithmetic. CostBudget is stated for a 1000-step episode of
// 10 agents; everything else derives from one agent-step's share.
const (
	costSteps  = 1000
	costAgents = 10
)

// costPerAgentStep is the CPU time one agent's step may cost on backend
// be; 0 when there is no budget.
func (s *Sandbox) costPerAgentStep(be Backend) time.Duration {
	if s.cfg.CostBudget < 0 {
		return 0
	}
	per := s.cfg.CostBudget / (costSteps * costAgents)
	if be == Yaegi {
		per *= YaegiCostFactor
	}
	return per
}

// costDetail describes an episode that spent cpu on steps steps of agents
// agents against the budget.
func (s *Sandbox) costDetail(be Backend, cpu time.Duration, steps, agents int) string {
	per := cpu / time.Duration(max(steps, 1))
	budget := s.costPerAgentStep(be) * time.Duration(agents)
	return fmt.Sprintf("used %v of CPU time in %d steps, %s per step for %d agents; the budget is %s per step (%v for a %d-step episode of %d agents on the %s backend)",
		cpu.Round(time.Millisecond), steps, ms(per), agents, ms(budget), s.costPerAgentStep(be)*costSteps*costAgents, costSteps, costAgents, be)
}

// costAdvice is what admission tells a planner whose policy is too costly.
func (s *Sandbox) costAdvice(be Backend, perStep time.Duration, agents int) string {
	budget := s.costPerAgentStep(be) * time.Duration(agents)
	return fmt.Sprintf("takes %s per step (%d agents); the budget is %s on the %s backend: avoid a BFS per apple per agent; "+
		"use DistanceField or Voronoi once per step", ms(perStep), agents, ms(budget), be)
}

// ms prints a duration in milliseconds with a sensible precision.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 10:
		return fmt.Sprintf("%.0f ms", f)
	case f >= 1:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.2f ms", f)
}
