// Package prompts renders the LLM planner's prompts: Go editions of the
// prompts of Gallego (2026) and the population-search prompts built on
// them. They are text/template files embedded from templates/, and a
// folder of files with the same names (--prompts DIR) replaces any of
// them.
//
// Nothing game-specific is typed into a template: the rules' numbers come
// from the map and the game's parameters (Game), and the list of what a
// policy may call is generated from the source of package ssd (API), so
// neither can drift from the code. The policy contract (allowed imports,
// the signature) comes from the sandbox.
//
// Templates:
//
//	system.tmpl     the system message, one per game: role, rules, actions,
//	                the ssd API, the contract, the BFS example
//	init.tmpl       iteration 0: write a policy from scratch
//	improve.tmpl    rewrite a parent from feedback (sparse, dense, critic),
//	                with the chain's history or the population's inspirations
//	crossover.tmpl  merge two parents
//	fix.tmpl        the paragraph appended to the failed user prompt
//	guidance.tmpl   GEPA: a prompt candidate's strategy guidance, appended
//	                to the system message
//	reflect.tmpl    GEPA: the reflection that rewrites a candidate's
//	                guidance from its policy and scores
package prompts
