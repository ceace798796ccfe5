package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"policyevolve/render"
	"policyevolve/report"
	"policyevolve/sandbox"
)

// reportOptions are the flags of "report".
type reportOptions struct {
	id       string
	out      string
	steps    string // --replay-steps A-B
	seed     int64  // --replay-seed; -1: the run's first evaluation seed
	scale    int
	noReplay bool
	storeOptions
	sandboxOptions
}

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o reportOptions
	fs := newFlagSet("report", "RUN_ID|CMP_ID -o FILE.html [flags]", `
Write one self-contained HTML page about an evolution run: best, median
and champion self-play efficiency, equality, sustainability and peace per
iteration; the Elo of the global pool per iteration (champion, median,
each member); the champion's lineage as a tree with the operator on each
edge; the final pool; the iterations; the champion's source, coloured,
and a replay GIF of it in self-play. A run made by compare also gets the
comparison it belongs to.

CMP_ID (cmp-…, as "runs show" names the pool tag of compare's runs)
writes the comparison alone: the Table-1-style table and its charts.

Charts are inline SVG, the replay a data: URI; the page loads nothing
else (no script, no font), so it opens offline, on a phone as on a wide
screen. Safe to run while a job writes to the store: the page shows what
is committed. Replaying a source champion needs the sandbox (--backend).`, stdout)
	fs.StringVar(&o.out, "o", "", "the HTML file to write (required; - for standard output)")
	fs.StringVar(&o.steps, "replay-steps", fmt.Sprintf("0-%d", report.DefaultReplayFrames), "frames of the replay GIF: A-B, cut to the episode")
	fs.Int64Var(&o.seed, "replay-seed", -1, "seed of the replayed episode (default: the run's first self-play seed)")
	fs.IntVar(&o.scale, "scale", report.DefaultReplayScale, fmt.Sprintf("pixels per cell of the replay, 1-%d", render.MaxScale))
	fs.BoolVar(&o.noReplay, "no-replay", false, "leave the replay out (nothing is played)")
	o.storeOptions.register(fs)
	o.sandboxOptions.register(fs)
	id, err := oneArg(fs, args, "one run id (or comparison id)")
	if err != nil {
		return err
	}
	o.id = id
	return runReport(ctx, o, stdout, stderr)
}

func runReport(ctx context.Context, o reportOptions, stdout, stderr io.Writer) error {
	if o.out == "" {
		return usagef("-o is required: the HTML file to write")
	}
	if ext := strings.ToLower(filepath.Ext(o.out)); ext != ".html" && ext != ".htm" && ext != "" && o.out != "-" {
		return usagef("-o %s: report writes an HTML page, whatever the name says; name the output NAME.html", o.out)
	}
	from, to, err := parseSpan(o.steps, math.MaxInt32)
	if err != nil {
		return usagef("--replay-steps: %v", err)
	}
	if _, err := sandbox.ParseBackend(o.backend); err != nil {
		return usagef("--backend: %v", err)
	}
	s, err := o.storeOptions.open(readStore)
	if err != nil {
		return err
	}
	rep, err := report.Load(s, o.id)
	if err != nil {
		return err
	}
	if run := rep.Run; run != nil && !o.noReplay {
		ro := report.ReplayOptions{From: from, To: to, Scale: o.scale}
		if o.seed >= 0 {
			seed := uint64(o.seed)
			ro.Seed = &seed
		}
		if run.Champion != nil && run.Champion.Builtin == "" {
			if ro.Sandbox, err = o.sandboxOptions.open(stderr); err != nil {
				return err
			}
		}
		if err := rep.AddReplay(ctx, ro); err != nil {
			return err
		}
		if note := run.Replay.Note; note != "" {
			fmt.Fprintf(stderr, "policyevolve report: replay: %s\n", note)
		}
	}
	outs, err := createOutputs([]string{o.out}, stdout)
	if err != nil {
		return err
	}
	if err := rep.Write(outs.w[0]); err != nil {
		outs.discard()
		return err
	}
	if err := outs.commit(); err != nil {
		return err
	}
	if o.out != "-" {
		fmt.Fprintf(stdout, "wrote %s (%s)%s\n", o.out, fileSize(o.out), reportContents(rep))
	}
	return nil
}

// reportContents says in a few words what a report holds.
func reportContents(rep *report.Report) string {
	var parts []string
	if r := rep.Run; r != nil {
		parts = append(parts, r.Record.ID)
		if r.Champion != nil {
			parts = append(parts, "champion "+r.Champion.ID[:12])
		}
		if r.Replay != nil && len(r.Replay.GIF) > 0 {
			parts = append(parts, fmt.Sprintf("replay GIF %.1f KB", float64(len(r.Replay.GIF))/1000))
		}
	}
	if rep.Compare != nil {
		parts = append(parts, "comparison "+rep.Compare.ID)
	}
	return ": " + strings.Join(parts, ", ")
}
