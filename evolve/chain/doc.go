// Package chain is the paper's single-chain search (its Algorithm 1) as a
// search mode: one lineage, an initial policy and K refinements, each
// shown the previous source and sparse, dense, critic or raw feedback.
package chain
