// Package experiment runs the paper's Table 1: a comparison of search
// methods — zero-shot, the chain at each feedback level and prompt style,
// population search, GEPA, the tabular Q-learner — on one environment
// under one budget of planner calls, with a league of their champions and
// the baselines, exploitability, and the transfer and invader tables. It
// stores every run and the report; the compare and experiment commands
// run it, and package report draws what it stored.
package experiment
