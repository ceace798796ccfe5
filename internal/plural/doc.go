// Package plural writes counts in English: "1 run", "2 runs",
// "1 policy", "3 policies", so that no message says "1 runs".
package plural
