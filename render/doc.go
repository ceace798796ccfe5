// Package render draws recorded episodes (envs.Trajectory) as pictures:
// one frame of the full map as a paletted image or PNG, an animated GIF
// of a range of frames, and the same frame as coloured text for a
// terminal.
//
// A frame shows walls, live apples, the river (clean or polluted) and the
// stream of Cleanup, the beams fired during the step that led to it
// (tagging or penalty beams yellow, cleaning beams cyan, as in the
// reference renderer), and the agents as triangles pointing where they
// face. Agents that are tagged out are grey. When one policy plays every
// agent, each agent has its own colour; when several do (Options.Sides,
// as in a match), each policy has its own hue and its agents are shades of
// it.
//
// Frame t of a trajectory is the state after t steps: frame 0 is the
// state after Reset, frame len(Steps) the last one.
//
// render imports only the standard library and envs. Typical use, e.g.
// for a report that embeds a replay:
//
//	res, _ := envs.Run(ctx, env, seats, envs.Options{Seed: 7, Record: true})
//	var buf bytes.Buffer
//	err := render.WriteGIF(&buf, res.Trajectory, render.Options{}, render.Animation{})
package render
