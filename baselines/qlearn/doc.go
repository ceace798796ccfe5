// Package qlearn is the tabular Q-learning baseline of the paper's Table 1,
// reproducing the reference implementation (gathering_qlearning.py and
// cleanup_qlearning.py of Gallego 2026) bit for bit: the same discretised
// features, one Q-table shared by all agents, ε-greedy exploration with a
// linear decay, the same reward shaping, the same training schedule and the
// same draws from the numpy-compatible generator in the same order. Training
// from the same seed yields the same Q-table, value for value, and the same
// evaluation metrics; the golden runs in testdata/golden are the proof.
//
// Features (each a small integer; a state is their tuple):
//
//	Gathering (7, 4 320 states): BFS first step to the nearest alive apple
//	(forward/backward/left/right, 4 = on one, 5 = none) and its distance
//	(0 | 1-3 | 4-8 | 9+), alive apples within Manhattan distance 5
//	(0 | 1-3 | 4+), direction of the nearest active rival in the agent's
//	frame (4 = none) and its Manhattan distance (1-3 | 4-7 | 8+), whether the
//	tagging beam would hit a rival now, and whether the agent has a beam
//	hit on it.
//
//	Cleanup (8, 11 664 states): BFS first step and distance to the nearest
//	alive apple and to the nearest waste cell (0-3 | 4-8 | 9+), the river's
//	waste density (≤0.1 | ≤0.3 | more), whether the clean beam would remove
//	waste now, whether an alive apple lies within Manhattan distance 5, and
//	the distance to the nearest active rival (1-3 | 4-7 | 8+).
//
// Shaped reward: w_ind·r_i + w_team·mean(r), minus a penalty for firing the
// beam, plus (Cleanup) a bonus for cleaning when the clean beam reaches
// waste. Updates use the standard one-step target r + γ·max Q(s'), with no
// bootstrap on the episode's last step, and only for agents that chose their
// own action (tagged-out agents stand and learn nothing).
//
// A trained Table plays greedily through Actor, in-process: it is trusted
// data, not code.
package qlearn
