package critic

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"policyevolve/envs/ssd"
)

// WriteReflections prints ranked reflections, one numbered line each
// with its code and stake.
func WriteReflections(w io.Writer, refl []Reflection) error {
	if _, err := fmt.Fprintln(w, "reflections (stake: estimated per-agent reward at stake)"); err != nil {
		return err
	}
	if len(refl) == 0 {
		_, err := fmt.Fprintln(w, "  none: nothing found worth changing")
		return err
	}
	for i, r := range refl {
		if _, err := fmt.Fprintf(w, "%2d. [%s, %s] %s\n", i+1, r.Code, strconv.FormatFloat(r.Stake, 'f', 3, 64), r.Text); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable prints the diagnostics as a plain-text table, the form shown
// to people (policyevolve critique) and to the LLM critic.
func (d *Diagnostics) WriteTable(w io.Writer) error {
	seeds := make([]string, len(d.Seeds))
	for i, s := range d.Seeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	fmt.Fprintf(w, "%s, %dx%d map, %d agents, %d steps, %d episodes (seeds %s); the policy plays %s agents per episode\n\n",
		d.Game, d.Width, d.Height, d.Agents, d.Steps, d.Episodes, strings.Join(seeds, ","), num(d.Mine))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{label}, args...)...)
	}
	row("reward", "%s per agent, %s apples, equality %s", num(d.Reward), num(d.Apples), num(d.Equality))
	row("activity", "%s active steps per agent; %s apples per active step (map supply %s)", num(d.ActiveSteps), num(d.Rate), num(d.Supply))
	mix := make([]string, 0, len(d.Actions))
	for a := range gameActions(d.Game) {
		mix = append(mix, fmt.Sprintf("%s %s", ssd.ActionName(a), pct(d.Actions[ssd.ActionName(a)])))
	}
	row("actions", "%s", strings.Join(mix, ", "))
	row("idle", "%s of active steps; %s steps per agent standing while apples were on the map", pct(d.Idle), num(d.IdleWithApples))
	row("oscillation", "%s of active steps undid the previous move or turn", pct(d.Oscillation))
	b := d.Beams
	row("beams", "%s fired per agent, %s hit someone; %s hits and %s tags dealt (%s on the policy's own agents)",
		num(b.Fired), pct(b.HitRate), num(b.Hits), num(b.Tags), pct(b.Friendly))
	row("", "%s hits and %s tags suffered, %s steps tagged out per agent; %s reward lost to beams",
		num(b.HitsSuffered), num(b.TagsSuffered), num(b.TaggedOut), num(b.Cost))
	c := d.Contest
	row("contest", "%s of active steps chasing an apple another agent chased; %s contested apples per step; %s steps per agent chasing apples others took",
		pct(c.Share), num(c.Apples), num(c.Wasted))
	cv := d.Coverage
	row("coverage", "%d apple spawns, %s never harvested per episode; %s reappeared per episode, %s of them uncollected at the end",
		cv.Spawns, num(cv.Never), num(cv.Respawned), num(cv.Uncollected))
	if cl := d.Cleanup; cl != nil {
		row("waste", "density mean %s, at or above %s on %s of steps, min %s, max %s", num(cl.Waste), num(cl.Threshold), pct(cl.AtThreshold), num(cl.Min), num(cl.Max))
		row("waste over time", "%s", series(cl.WasteOverTime))
		row("regrowth", "%s per episode; %s expected regrowths lost to waste; collapsed (no regrowth in the last %d steps) in %d of %d episodes",
			num(cl.Regrowth), num(cl.LostRegrowth), cl.CollapseWindow, cl.Collapsed, d.Episodes)
		row("regrowth over time", "%s", series(cl.RegrowthOverTime))
		row("cleaning", "%s clean beams per agent, %s cells removed per beam (%s removed none); %s cleaners per step, %s agents cleaned per episode",
			num(cl.CleanBeams), num(cl.WastePerBeam), pct(cl.Empty), num(cl.CleanersPerStep), num(cl.Cleaners))
		row("free-riding", "%s of the apples went to agents that never cleaned", pct(cl.FreeRiding))
	}
	starving := "none"
	if len(d.Starving) > 0 {
		starving = strings.Trim(fmt.Sprint(d.Starving), "[]")
	}
	row("starving", "%s (agents whose mean return is below %s of the policy's mean)", starving, pct(d.StarveShare))
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nper agent (means per episode; shares of active steps)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "id\treturn\tapples\tactive\tidle\tosc\tbeams\thit\ttags\tsuffered\tout"
	if d.Cleanup != nil {
		head += "\tcleans\tremoved"
	}
	fmt.Fprintln(tw, head+"\t")
	for _, ag := range d.PerAgent {
		line := fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", ag.ID, num(ag.Return), num(ag.Apples), num(ag.ActiveSteps),
			pct(ag.Idle), pct(ag.Oscillation), num(ag.Beams), num(ag.BeamsHit), num(ag.Tags), num(ag.TagsSuffered), num(ag.TaggedOut))
		if d.Cleanup != nil {
			line += fmt.Sprintf("\t%s\t%s", num(ag.Cleans), num(ag.Removed))
		}
		fmt.Fprintln(tw, line+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(d.Opponents) > 0 {
		fmt.Fprintln(w, "\nopponents (per-agent returns; tags per episode)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "name\tepisodes\tmine\ttheirs\tmargin\tbeaten\ttags suffered/dealt\tseats\tapples\tcleans\texploited")
		for _, o := range d.Opponents {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s/%s\t%s\t%s\t%s\t%s\n", o.Name, o.Episodes, num(o.Mine), num(o.Theirs), num(o.Margin),
				yes(o.Beaten), num(o.TagsSuffered), num(o.TagsDealt), pct(o.Seats), pct(o.AppleShare), pct(o.CleanShare), yes(o.Exploited))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "\ncoverage map ('.' spawn never harvested by the policy, 1-9 harvest relative to the busiest spawn; @ wall, ~ river, = stream)")
	for _, line := range cv.Map {
		fmt.Fprintln(w, "  "+line)
	}
	return nil
}

func gameActions(game string) int {
	g, err := ssd.ParseGame(game)
	if err != nil {
		return 0
	}
	return g.NumActions()
}

func series(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = num(x)
	}
	return strings.Join(parts, " ")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
