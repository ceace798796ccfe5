// Package timing adds up where a job's time goes: planning, checking,
// compiling, playing and storing, and the episodes played. The job, its
// arena, the fix loop and the local executor all write to one Profile;
// the job reports its Totals with each iteration and at the end.
package timing
