// Package planner writes policy source: the Planner interface (init,
// improve, crossover, fix: one proposal a call) and its implementations —
// the LLM planner (the paper's prompts, package prompts; the ReAct style;
// every call in the store's ledger through LLMRecorder) and the offline
// grammar planner (package grammar). FixLoop turns a planner's proposals
// into admitted, stored policies (extraction from an answer, the
// sandbox's check, the planner's fixes). GuidedPlanner is the side of a
// planner that GEPA drives. Nothing here plays a stored policy: that is
// the arena's.
package planner
