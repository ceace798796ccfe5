package difftest

import "fmt"

// idiom writes a few statements in the style policies are written in:
// the patterns an LLM reaches for, with random details.
func (g *gen) idiom(out *w, d int) {
	idioms := []func(*w, int){
		g.nearest, g.candidates, g.setSorted, g.bestClosure, g.direction, g.debugString,
		g.floatScore, g.centroid, g.bfs, g.heapIdiom, g.memoIdiom, g.paths, g.loopClosures,
		g.lhsOrder, g.typeSwitch, g.valueCopies, g.localConsts, g.sortSort,
		g.methodExprs, g.redeclareCaptured,
	}
	idioms = append(idioms, g.insideIdioms()...)
	if d == g.cfg.Depth && g.fn.entry && g.fn.closure == 0 {
		idioms = append(idioms, g.gotoLoop) // labels at the top of a function
	}
	// Constructs the yaegi backend refuses, now and then: the entry
	// functions that hold them are left out of the comparison.
	refused := []func(*w, int){g.errorsIdiom, g.deferLoop, g.recoverValue, g.typedNil}
	if !g.fn.shared && g.chance(1, 12) {
		pick(g, refused)(out, d)
		return
	}
	// Constructs outside the subset, which yaegi must refuse: the entry
	// records them (Entry.Outside).
	if outside := g.outsideIdioms(); !g.fn.shared && g.chance(1, 10) {
		k := g.intn(len(outside))
		g.outside = append(g.outside, outsideNames[k])
		outside[k](out, d)
		return
	}
	pick(g, idioms)(out, d)
}

// pos is a position in scope or the agent's own.
func (g *gen) pos() string {
	if vs := g.varsOf(tPos, false); len(vs) > 0 && g.chance(2, 3) {
		return pick(g, vs).name
	}
	return "v.AgentPos(agent)"
}

// points is a slice of positions: the apples, the agents, or one in scope.
func (g *gen) points() string {
	if vs := g.varsOf(sliceOf(tPos), false); len(vs) > 0 && g.chance(1, 2) {
		return pick(g, vs).name
	}
	return pick(g, []string{"v.Apples()", "v.AppleSpawns()", "v.WasteCells()", "v.RiverCells()"})
}

func (g *gen) nearest(out *w, d int) {
	me, best, bestD := g.pos(), g.fresh("best"), g.fresh("bestD")
	a, dd := g.fresh("a"), g.fresh("d")
	out.line("%s, %s := ssd.Pos{R: -1, C: -1}, %s", best, bestD, pick(g, []string{"math.MaxInt32", "1 << 30", "9999", "math.MaxInt"}))
	out.line("for _, %s := range %s {", a, g.points())
	out.line("\t%s := abs(%s.R-%s.R) + abs(%s.C-%s.C)", dd, a, me, a, me)
	switch g.intn(3) {
	case 0:
		out.line("\tif %s < %s || (%s == %s && (%s.R < %s.R || (%s.R == %s.R && %s.C < %s.C))) {", dd, bestD, dd, bestD, a, best, a, best, a, best)
		out.line("\t\t%s, %s = %s, %s", best, bestD, a, dd)
	case 1:
		out.line("\tif %s < %s {", dd, bestD)
		out.line("\t\t%s, %s = ssd.Pos{R: %s.R, C: %s.C}, %s", best, bestD, a, a, dd)
	default:
		out.line("\tif %s <= %s {", dd, bestD)
		out.line("\t\t%s, %s = %s, ssd.Pos{%s.R, %s.C}", bestD, best, dd, a, a)
	}
	out.line("\t}")
	out.line("}")
	g.declare(best, tPos, false)
	g.declare(bestD, tInt, false)
}

func (g *gen) candidates(out *w, d int) {
	cs, i, a, c := g.fresh("cands"), g.fresh("i"), g.fresh("a"), g.fresh("c")
	me := g.pos()
	out.line("var %s []cand", cs)
	out.line("for %s, %s := range %s {", i, a, g.points())
	out.line("\tif %s%%%d == %d {", i, 2+g.intn(3), g.intn(2))
	out.line("\t\tcontinue")
	out.line("\t}")
	out.line("\t%s := cand{pos: %s, dist: abs(%s.R-%s.R) + abs(%s.C-%s.C), id: %s}", c, a, a, me, a, me, i)
	out.line("\t%s.score = float64(%s.dist)*%s - float64(%s%%3)/2", c, c, pick(g, []string{"0.5", "1.5", "1/2", "3/4.0"}), i)
	out.line("\t%s = append(%s, %s)", cs, cs, c)
	out.line("}")
	if g.chance(1, 2) {
		out.line("sort.Slice(%s, func(i, j int) bool {", cs)
		out.line("\tif %s[i].score != %s[j].score {", cs, cs)
		out.line("\t\treturn %s[i].score %s %s[j].score", cs, pick(g, []string{"<", ">"}), cs)
		out.line("\t}")
		out.line("\treturn %s[i].id < %s[j].id", cs, cs)
		out.line("})")
	} else {
		out.line("sort.SliceStable(%s, func(i, j int) bool { return %s[i].dist < %s[j].dist })", cs, cs, cs)
	}
	top := g.fresh("top")
	out.line("%s := cand{id: -1}", top)
	out.line("if len(%s) > 0 {", cs)
	out.line("\t%s = %s[0]", top, cs)
	out.line("}")
	g.declare(cs, sliceOf(tCand), false)
	g.declare(top, tCand, false)
}

func (g *gen) setSorted(out *w, d int) {
	set, keys, x, k := g.fresh("seen"), g.fresh("keys"), g.fresh("x"), g.fresh("k")
	switch g.intn(3) {
	case 0:
		out.line("%s := map[ssd.Pos]bool{}", set)
		out.line("for _, %s := range %s {", x, g.points())
		out.line("\t%s[ssd.Pos{R: %s.R / 2, C: %s.C / 2}] = true", set, x, x)
		out.line("}")
		out.line("%s := make([]ssd.Pos, 0, len(%s))", keys, set)
		out.line("for %s := range %s {", k, set)
		out.line("\t%s = append(%s, %s)", keys, keys, k)
		out.line("}")
		out.line("sort.Slice(%s, func(i, j int) bool {", keys)
		out.line("\tif %s[i].R != %s[j].R {", keys, keys)
		out.line("\t\treturn %s[i].R < %s[j].R", keys, keys)
		out.line("\t}")
		out.line("\treturn %s[i].C < %s[j].C", keys, keys)
		out.line("})")
		g.declare(keys, sliceOf(tPos), false)
		g.declare(set, mapOf(tPos, tBool), false)
	case 1:
		out.line("%s := map[string]int{}", set)
		out.line("for _, %s := range %s {", x, g.points())
		out.line("\t%s[strconv.Itoa(%s.R%%5)+\"-\"+strconv.Itoa(%s.C%%3)]++", set, x, x)
		out.line("}")
		out.line("var %s []string", keys)
		out.line("for %s := range %s {", k, set)
		out.line("\t%s = append(%s, %s)", keys, keys, k)
		out.line("}")
		out.line("sort.Strings(%s)", keys)
		g.declare(keys, sliceOf(tString), false)
		g.declare(set, mapOf(tString, tInt), false)
	default:
		out.line("%s := map[[2]int]int{}", set)
		out.line("for _, %s := range %s {", x, g.points())
		out.line("\t%s[[2]int{%s.R %% 4, %s.C %% 4}] += %s.R", set, x, x, x)
		out.line("}")
		out.line("%s := make([]int, 0)", keys)
		out.line("for %s, cnt := range %s {", k, set)
		out.line("\t%s = append(%s, %s[0]*100+%s[1]*10+cnt%%10)", keys, keys, k, k)
		out.line("}")
		out.line("sort.Ints(%s)", keys)
		g.declare(keys, sliceOf(tInt), false)
		g.declare(set, mapOf(arrayOf(2, tInt), tInt), false)
	}
}

func (g *gen) bestClosure(out *w, d int) {
	best, consider, p, dd := g.fresh("best"), g.fresh("consider"), g.fresh("p"), g.fresh("d")
	me := g.pos()
	out.line("%s := cand{dist: 1 << 30}", best)
	out.line("%s := func(%s ssd.Pos, %s int) {", consider, p, dd)
	out.line("\tif %s < %s.dist || (%s == %s.dist && %s.R < %s.pos.R) {", dd, best, dd, best, p, best)
	switch g.intn(3) {
	case 0:
		out.line("\t\t%s = cand{pos: %s, dist: %s, id: %s.id + 1}", best, p, dd, best)
	case 1:
		out.line("\t\t%s.pos, %s.dist = %s, %s", best, best, p, dd)
	default:
		out.line("\t\t%s = cand{%s, %s, float64(%s) / 3, %s.id + 1}", best, p, dd, dd, best)
	}
	out.line("\t}")
	out.line("}")
	x := g.fresh("x")
	out.line("for _, %s := range %s {", x, g.points())
	out.line("\t%s(%s, abs(%s.R-%s.R)+abs(%s.C-%s.C))", consider, x, x, me, x, me)
	out.line("}")
	g.declare(best, tCand, false)
}

func (g *gen) direction(out *w, d int) {
	dr, dc, act := g.fresh("dr"), g.fresh("dc"), g.fresh("act")
	target, me := g.pos(), g.pos()
	out.line("%s, %s := %s.R-%s.R, %s.C-%s.C", dr, dc, target, me, target, me)
	out.line("%s := ssd.Stand", act)
	if g.chance(1, 2) {
		out.line("switch {")
		out.line("case %s == 0 && %s == 0:", dr, dc)
		out.line("\t%s = ssd.Stand", act)
		out.line("case abs(%s) >= abs(%s) && %s < 0, %s > 5:", dr, dc, dr, dc)
		out.line("\t%s = ssd.DirectionToAction(-1, 0, v.Orientation(agent))", act)
		out.line("case abs(%s) >= abs(%s):", dr, dc)
		out.line("\t%s = ssd.DirectionToAction(1, 0, v.Orientation(agent))", act)
		if g.chance(1, 2) {
			out.line("\tfallthrough")
		}
		out.line("case %s < 0:", dc)
		out.line("\t%s = ssd.DirectionToAction(0, -1, v.Orientation(agent)) + %s%%2", act, act)
		out.line("default:")
		out.line("\t%s = ssd.DirectionToAction(0, 1, v.Orientation(agent))", act)
		out.line("}")
	} else {
		o := g.fresh("o")
		out.line("switch %s := v.Orientation(agent); %s {", o, o)
		out.line("case ssd.North, ssd.South:")
		out.line("\tif %s != 0 {", dr)
		out.line("\t\t%s = ssd.Forward", act)
		out.line("\t}")
		out.line("case ssd.East:")
		out.line("\t%s = ssd.RotateLeft", act)
		out.line("\tfallthrough")
		out.line("default:")
		out.line("\t%s += %s %% 3", act, dc)
		out.line("}")
	}
	g.declare(dr, tInt, false)
	g.declare(dc, tInt, false)
	g.declare(act, tInt, false)
}

func (g *gen) debugString(out *w, d int) {
	sb, dbg, i, x := g.fresh("sb"), g.fresh("dbg"), g.fresh("i"), g.fresh("x")
	if g.chance(1, 2) {
		out.line("var %s strings.Builder", sb)
		out.line("%s.WriteString(\"agent \")", sb)
		out.line("%s.WriteString(strconv.Itoa(agent))", sb)
		out.line("for %s, %s := range %s {", i, x, g.points())
		out.line("\tif %s > 3 {", i)
		out.line("\t\tbreak")
		out.line("\t}")
		out.line("\tif %s > 0 {", i)
		out.line("\t\t%s.WriteByte(',')", sb)
		out.line("\t}")
		out.line("\t%s.WriteString(strconv.Itoa(%s.R) + \":\" + strconv.Itoa(%s.C))", sb, x, x)
		out.line("}")
		out.line("%s := %s.String()", dbg, sb)
	} else {
		out.line("%s := \"\"", dbg)
		out.line("for %s, %s := range %s {", i, x, g.points())
		out.line("\tif %s >= 3 {", i)
		out.line("\t\tbreak")
		out.line("\t}")
		out.line("\t%s += strconv.Itoa(%s.R) + \",\" + strconv.FormatFloat(float64(%s.C)/3, 'f', 2, 64) + \" \"", dbg, x, x)
		out.line("}")
		out.line("%s = strings.TrimSpace(%s)", dbg, dbg)
	}
	g.declare(dbg, tString, false)
}

func (g *gen) floatScore(out *w, d int) {
	sc, ratio := g.fresh("score"), g.fresh("ratio")
	me := g.pos()
	out.line("%s := math.Abs(float64(%s.R))*%s + math.Max(0, float64(%s.C)/3) - %s*float64(agent)", sc, me,
		pick(g, []string{"0.5", "1/2", "1.0/2", "kHalf"}), me, pick(g, []string{"1/3", "1.0/3", "kSeven/kTwo", "(kSeven/2)*kHalf"}))
	out.line("%s := float64(v.NumAlive()) / float64(v.NumApples()+1)", ratio)
	out.line("if %s < %s {", ratio, pick(g, []string{"1/3", "1.0/3", "0.25", "kThird/10.0"}))
	out.line("\t%s = math.Min(%s, %s) + math.Floor(%s*10)/10", sc, sc, ratio, ratio)
	out.line("} else if %s > %s {", sc, pick(g, []string{"2", "1e3", "3/2"}))
	out.line("\t%s = math.Round(%s*100) / 100", sc, sc)
	out.line("}")
	out.line("%s = mixI(%s, int64(%s))", g.fn.acc, g.fn.acc, pick(g, []string{"int(" + sc + ")", "int(math.Round(" + sc + "))", "int(" + sc + "*1000)"}))
	g.declare(sc, tFloat64, false)
	g.declare(ratio, tFloat64, false)
}

func (g *gen) centroid(out *w, d int) {
	sr, scc, cnt, cr, cc, a := g.fresh("sumR"), g.fresh("sumC"), g.fresh("cnt"), g.fresh("cr"), g.fresh("cc"), g.fresh("a")
	out.line("%s, %s, %s := 0, 0, 0", sr, scc, cnt)
	out.line("for _, %s := range v.Agents() {", a)
	out.line("\tif %s.Timeout > 0 {", a)
	out.line("\t\tcontinue")
	out.line("\t}")
	out.line("\t%s += %s.Pos.R - %d", sr, a, g.intn(30))
	out.line("\t%s += %s.Pos.C", scc, a)
	out.line("\t%s++", cnt)
	out.line("}")
	out.line("%s, %s := -1, -1", cr, cc)
	out.line("if %s > 0 {", cnt)
	out.line("\t%s, %s = %s/%s, %s%%%s", cr, cc, sr, cnt, scc, cnt)
	out.line("}")
	center := g.fresh("center")
	out.line("%s := ssd.Pos{R: %s, C: %s / 2}", center, cr, cc)
	g.declare(center, tPos, false)
	g.declare(cr, tInt, false)
	g.declare(cc, tInt, false)
}

func (g *gen) bfs(out *w, d int) {
	if !g.affordable(80) {
		g.nearest(out, d)
		return
	}
	g.fn.cost += 80 * g.fn.mult
	dirs, start, dist, queue, cur, dd, nxt := g.fresh("dirs"), g.fresh("start"), g.fresh("dist"), g.fresh("queue"),
		g.fresh("cur"), g.fresh("dd"), g.fresh("nxt")
	out.line("%s := [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}", dirs)
	out.line("%s := %s", start, g.pos())
	out.line("%s := map[ssd.Pos]int{%s: 0}", dist, start)
	out.line("%s := []ssd.Pos{%s}", queue, start)
	out.line("for len(%s) > 0 && len(%s) < %d {", queue, dist, 20+g.intn(60))
	out.line("\t%s := %s[0]", cur, queue)
	out.line("\t%s = %s[1:]", queue, queue)
	out.line("\tfor _, %s := range %s {", dd, dirs)
	out.line("\t\t%s := ssd.Pos{R: %s.R + %s[0], C: %s.C + %s[1]}", nxt, cur, dd, cur, dd)
	out.line("\t\tif v.Wall(%s.R, %s.C) {", nxt, nxt)
	out.line("\t\t\tcontinue")
	out.line("\t\t}")
	out.line("\t\tif _, ok := %s[%s]; ok {", dist, nxt)
	out.line("\t\t\tcontinue")
	out.line("\t\t}")
	out.line("\t\t%s[%s] = %s[%s] + 1", dist, nxt, dist, cur)
	out.line("\t\t%s = append(%s, %s)", queue, queue, nxt)
	out.line("\t}")
	out.line("}")
	far := g.fresh("far")
	out.line("%s := 0", far)
	out.line("for _, dv := range %s {", dist)
	out.line("\tif dv > %s {", far)
	out.line("\t\t%s = dv", far)
	out.line("\t}")
	out.line("}")
	g.declare(dist, mapOf(tPos, tInt), false)
	g.declare(far, tInt, false)
	g.declare(queue, sliceOf(tPos), false)
}

func (g *gen) heapIdiom(out *w, d int) {
	q, i, x, it := g.fresh("q"), g.fresh("i"), g.fresh("x"), g.fresh("it")
	me := g.pos()
	out.line("%s := &pq{}", q)
	out.line("heap.Init(%s)", q)
	out.line("for %s, %s := range %s {", i, x, g.points())
	out.line("\tif %s >= %d {", i, 3+g.intn(8))
	out.line("\t\tbreak")
	out.line("\t}")
	out.line("\theap.Push(%s, pqItem{pos: %s, prio: abs(%s.R-%s.R) + abs(%s.C-%s.C), seq: %s})", q, x, x, me, x, me, i)
	out.line("}")
	if g.chance(1, 2) {
		out.line("if %s.Len() > 1 {", q)
		out.line("\t(*%s)[0].prio += %d", q, g.intn(10))
		out.line("\theap.Fix(%s, 0)", q)
		out.line("}")
	}
	out.line("for %s.Len() > 0 {", q)
	out.line("\t%s := heap.Pop(%s).(pqItem)", it, q)
	out.line("\t%s = mixI(%s, int64(%s.prio*1000+%s.seq))", g.fn.acc, g.fn.acc, it, it)
	out.line("}")
}

func (g *gen) memoIdiom(out *w, d int) {
	key, keys, k := g.fresh("key"), g.fresh("keys"), g.fresh("k")
	out.line("%s := %s", key, g.pos())
	out.line("memo[%s] += 1 + v.Step()%%3", key)
	out.line("if len(memo) > 40 {")
	out.line("\tfor %s := range memo {", k)
	out.line("\t\tdelete(memo, %s)", k)
	out.line("\t}")
	out.line("}")
	out.line("%s := make([]ssd.Pos, 0, len(memo))", keys)
	out.line("for %s := range memo {", k)
	out.line("\t%s = append(%s, %s)", keys, keys, k)
	out.line("}")
	out.line("sort.Slice(%s, func(i, j int) bool { return %s[i].R*1000+%s[i].C < %s[j].R*1000+%s[j].C })", keys, keys, keys, keys, keys)
	out.line("for _, %s := range %s {", k, keys)
	out.line("\t%s = mixI(%s, int64(memo[%s]))", g.fn.acc, g.fn.acc, k)
	out.line("}")
	g.declare(key, tPos, false)
}

// paths builds paths by appending to a shared prefix: whether two
// appends share memory depends on capacities.
func (g *gen) paths(out *w, d int) {
	path, all, i, p1, p2 := g.fresh("path"), g.fresh("paths"), g.fresh("i"), g.fresh("p1"), g.fresh("p2")
	out.line("%s := []ssd.Pos{%s}", path, g.pos())
	out.line("var %s [][]ssd.Pos", all)
	out.line("for %s := 0; %s < %d; %s++ {", i, i, 2+g.intn(5), i)
	out.line("\t%s := append(%s, ssd.Pos{R: %s, C: 1})", p1, path, i)
	out.line("\t%s := append(%s, ssd.Pos{R: %s, C: 2})", p2, path, i)
	out.line("\t%s = append(%s, %s, %s)", all, all, p1, p2)
	out.line("\t%s = %s", path, pick(g, []string{p1, p2}))
	out.line("}")
	x := g.fresh("x")
	out.line("for _, %s := range %s {", x, all)
	out.line("\t%s = %s", g.fn.acc, g.fold(g.fn.acc, sliceOf(tPos), x))
	out.line("}")
	g.declare(path, sliceOf(tPos), false)
}

func (g *gen) loopClosures(out *w, d int) {
	fns, i, x, f := g.fresh("fns"), g.fresh("i"), g.fresh("x"), g.fresh("f")
	out.line("var %s []func() int", fns)
	out.line("for %s := 0; %s < %d; %s++ {", i, i, 1+g.intn(4), i)
	out.line("\t%s = append(%s, func() int { return %s * %s })", fns, fns, i, i)
	out.line("}")
	out.line("for %s, %s := range %s {", i, x, g.points())
	out.line("\tif %s > 2 {", i)
	out.line("\t\tbreak")
	out.line("\t}")
	out.line("\t%s = append(%s, func() int { return %s.R*100 + %s })", fns, fns, x, i)
	out.line("}")
	out.line("for %s := range %d {", i, 1+g.intn(3))
	out.line("\t%s = append(%s, func() int { return -%s })", fns, fns, i)
	out.line("}")
	out.line("for _, %s := range %s {", f, fns)
	out.line("\t%s = mixI(%s, int64(%s()))", g.fn.acc, g.fn.acc, f)
	out.line("}")
}

// lhsOrder: index expressions on the left of a parallel assignment are
// evaluated before any assignment.
func (g *gen) lhsOrder(out *w, d int) {
	arr, j, m, k := g.fresh("arr"), g.fresh("j"), g.fresh("m"), g.fresh("k")
	out.line("%s := [4]int{%d, %d, %d, %d}", arr, g.intn(9), g.intn(9), g.intn(9), g.intn(9))
	out.line("%s := ix(%s, 4)", j, g.runtimeValue(tInt).s)
	out.line("%s, %s[%s] = ix(%s+1, 4), %s", j, arr, j, j, g.expr(tInt, 1).s)
	out.line("%s[%s], %s = %s[ix(%s+2, 4)], ix(%s+3, 4)", arr, j, j, arr, j, j)
	if g.chance(1, 2) {
		out.line("%s := map[int]int{}", m)
		out.line("%s := %d", k, g.intn(5))
		out.line("%s, %s[%s] = %s+1, %s", k, m, k, k, g.expr(tInt, 1).s)
		g.declare(m, mapOf(tInt, tInt), false)
		g.declare(k, tInt, false)
	}
	g.declare(arr, arrayOf(4, tInt), false)
	g.declare(j, tInt, false)
}

func (g *gen) errorsIdiom(out *w, d int) {
	check, err, x := g.fresh("check"), g.fresh("err"), g.fresh("x")
	out.line("%s := func(%s int) error {", check, x)
	out.line("\tif %s%%3 == 0 {", x)
	out.line("\t\treturn &errT{code: %s}", x)
	out.line("\t}")
	out.line("\tif %s%%3 == 1 {", x)
	out.line("\t\treturn sentinel")
	out.line("\t}")
	out.line("\treturn nil")
	out.line("}")
	out.line("for %s := 0; %s < 4; %s++ {", x, x, x)
	out.line("\t%s := %s(%s + %s)", err, check, x, g.runtimeValue(tInt).s)
	out.line("\tif %s != nil {", err)
	out.line("\t\t%s = mixS(%s, %s.Error())", g.fn.acc, g.fn.acc, err)
	out.line("\t}")
	out.line("\t%s = mixB(%s, errors.Is(%s, sentinel))", g.fn.acc, g.fn.acc, err)
	out.line("\t%s = mixB(%s, %s == sentinel)", g.fn.acc, g.fn.acc, err)
	out.line("}")
}

func (g *gen) typeSwitch(out *w, d int) {
	vals, x := g.fresh("vals"), g.fresh("x")
	out.line("%s := []any{%s, %s, %s, nil, %s}", vals, g.expr(tInt, 1).s, g.expr(tString, 1).s, g.expr(tFloat64, 1).s, g.expr(tPos, 1).s)
	out.line("for _, %s := range %s {", x, vals)
	out.line("\tswitch y := %s.(type) {", x)
	out.line("\tcase int:")
	out.line("\t\t%s = mixI(%s, int64(y))", g.fn.acc, g.fn.acc)
	out.line("\tcase string, float64:")
	out.line("\t\t%s = dgAny(%s, y)", g.fn.acc, g.fn.acc)
	out.line("\tcase ssd.Pos:")
	out.line("\t\t%s = mixI(%s, int64(y.R))", g.fn.acc, g.fn.acc)
	out.line("\tcase nil:")
	out.line("\t\t%s = mix(%s, 99)", g.fn.acc, g.fn.acc)
	out.line("\t}")
	out.line("\tif n, ok := %s.(int); ok {", x)
	out.line("\t\t%s = mixI(%s, int64(n))", g.fn.acc, g.fn.acc)
	out.line("\t}")
	out.line("}")
	if len(g.types) > 1 && g.chance(1, 12) {
		// A type switch on a value whose type has methods (refused).
		t := g.types[1+g.intn(len(g.types)-1)]
		y := g.fresh("y")
		out.line("var %s any = %s", y, g.compositeStruct(t, 1).s)
		out.line("switch %s.(type) {", y)
		out.line("case %s:", t)
		out.line("\t%s = mix(%s, 1)", g.fn.acc, g.fn.acc)
		out.line("default:")
		out.line("\t%s = mix(%s, 2)", g.fn.acc, g.fn.acc)
		out.line("}")
	}
}

// valueCopies: assigning structs and arrays copies them.
func (g *gen) valueCopies(out *w, d int) {
	t := g.randType(1)
	for t.k != kStruct && t.k != kArray || !t.comparable() {
		t = pick(g, append([]*typ{tPos, tCand, arrayOf(3, tPos)}, g.types...))
	}
	a, b, pa := g.fresh("orig"), g.fresh("cp"), g.fresh("pa")
	out.line("%s := %s", a, g.expr(t, 2).s)
	out.line("%s := %s", b, a)
	out.line("%s := &%s", pa, a)
	g.declare(a, t, false)
	g.declare(b, t, false)
	g.declare(pa, ptrTo(t), false)
	var mine []lvalue
	for _, lv := range g.lvalues() {
		if len(lv.s) > len(b) && lv.s[:len(b)] == b && lv.guard == "" && lv.s != b {
			mine = append(mine, lv)
		}
	}
	if len(mine) > 0 {
		lv := pick(g, mine)
		out.line("%s = %s", lv.s, g.expr(lv.t, 1).s)
	}
	out.line("*%s = %s", pa, g.expr(t, 1).s)
	out.line("%s = mixB(%s, %s == %s)", g.fn.acc, g.fn.acc, a, b)
}

func (g *gen) localConsts(out *w, d int) {
	a, b, c := g.fresh("ca"), g.fresh("cb"), g.fresh("cc")
	out.line("const (")
	out.line("\t%s = iota * %d", a, 1+g.intn(5))
	out.line("\t%s", b)
	out.line("\t_")
	out.line("\t%s", c)
	out.line(")")
	x := g.fresh("cx")
	out.line("var %s float64 = %s / %s", x, pick(g, []string{c, "kSeven"}), pick(g, []string{"2", b, "kTwo"}))
	out.line("%s = mixI(%s, int64(%s+%s*10+%s*100))", g.fn.acc, g.fn.acc, a, b, c)
	g.declare(x, tFloat64, false)
}

func (g *gen) sortSort(out *w, d int) {
	bd, i, x := g.fresh("bd"), g.fresh("i"), g.fresh("x")
	me := g.pos()
	out.line("var %s byDist", bd)
	out.line("for %s, %s := range %s {", i, x, g.points())
	out.line("\t%s = append(%s, cand{pos: %s, dist: abs(%s.R-%s.R) + abs(%s.C-%s.C), id: %s})", bd, bd, x, x, me, x, me, i)
	out.line("}")
	switch g.intn(3) {
	case 0:
		out.line("sort.Sort(%s)", bd)
	case 1:
		out.line("sort.Sort(sort.Reverse(%s))", bd)
	default:
		out.line("sort.Stable(%s)", bd)
	}
	out.line("%s = mixI(%s, int64(sort.Search(len(%s), func(i int) bool { return %s[i].dist >= %d })))", g.fn.acc, g.fn.acc, bd, bd, g.intn(10))
	g.declare(bd, sliceOf(tCand), false)
}

// methodExprs: method values and method expressions of the program's
// types.
func (g *gen) methodExprs(out *w, d int) {
	var t *typ
	var m *method
	for _, u := range g.types {
		for _, mm := range methodSet(u) {
			if mm.result != nil && (t == nil || g.chance(1, 2)) {
				t, m = u, mm
			}
		}
	}
	if t == nil {
		g.nearest(out, d)
		return
	}
	x, f := g.fresh("x"), g.fresh("f")
	out.line("%s := %s", x, g.compositeStruct(t, 1).s)
	if m.ptr {
		out.line("%s := (*%s).%s", f, t, m.name)
		out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, m.result, fmt.Sprintf("%s(&%s, v, agent%s)", f, x, g.argsPrefixed(m.params, false))))
	} else {
		out.line("%s := %s.%s", f, t, m.name)
		out.line("%s = %s", g.fn.acc, g.fold(g.fn.acc, m.result, fmt.Sprintf("%s(%s, v, agent%s)", f, x, g.argsPrefixed(m.params, false))))
	}
	g.declare(x, t, false)
}

// argsPrefixed is ", " and arguments for parameters ps, or "".
func (g *gen) argsPrefixed(ps []*typ, recursive bool) string {
	if len(ps) == 0 {
		return ""
	}
	return ", " + g.args(ps, recursive, 2)
}

func (g *gen) gotoLoop(out *w, d int) {
	i, l := g.fresh("gi"), g.fresh("again")
	out.line("%s := 0", i)
	out.line("%s:", l)
	out.line("%s += %d", i, 1+g.intn(3))
	out.line("if %s < %d {", i, 5+g.intn(5))
	out.line("\tgoto %s", l)
	out.line("}")
	g.declare(i, tInt, false)
}

// deferLoop defers calls in a loop, with arguments: evaluated at the
// defer statement.
func (g *gen) deferLoop(out *w, d int) {
	s := g.fresh("ds")
	out.line("%s := \"\"", s)
	out.line("func() {")
	out.line("\tfor i := 0; i < %d; i++ {", 2+g.intn(3))
	if g.chance(1, 2) {
		out.line("\t\tdefer func(k int) { %s += strconv.Itoa(k) }(i)", s)
	} else {
		out.line("\t\tdefer func() { %s += strconv.Itoa(i) }()", s)
	}
	out.line("\t}")
	out.line("}()")
	g.declare(s, tString, false)
}

// recoverValue looks at the value recovered from a panic.
func (g *gen) recoverValue(out *w, d int) {
	s := g.fresh("rv")
	out.line("%s := func() (out string) {", s)
	out.line("\tdefer func() {")
	out.line("\t\tif r := recover(); r != nil {")
	out.line("\t\t\tif msg, ok := r.(string); ok {")
	out.line("\t\t\t\tout = msg")
	out.line("\t\t\t}")
	out.line("\t\t}")
	out.line("\t}()")
	out.line("\tpanic(%s)", g.literal(tString).s)
	out.line("}()")
	g.declare(s, tString, false)
}

// redeclareCaptured redeclares, with :=, a variable a closure captured.
func (g *gen) redeclareCaptured(out *w, d int) {
	a, b, get := g.fresh("rc"), g.fresh("rd"), g.fresh("get")
	out.line("%s := %s", a, g.typed(tInt, g.expr(tInt, 1)))
	out.line("%s := func() int { return %s }", get, a)
	out.line("%s, %s := %s+1, %s", a, b, a, g.expr(tInt, 1).s)
	out.line("%s = mixI(%s, int64(%s()))", g.fn.acc, g.fn.acc, get)
	g.declare(a, tInt, false)
	g.declare(b, tInt, false)
}

// typedNil returns a nil pointer as an error (the check added by the
// rewrite stops the policy when it is nil).
func (g *gen) typedNil(out *w, d int) {
	f, err := g.fresh("mayFail"), g.fresh("err")
	out.line("%s := func(x int) error {", f)
	out.line("\tvar e *errT")
	out.line("\tif x%%2 == 0 {")
	out.line("\t\te = &errT{code: x}")
	out.line("\t}")
	out.line("\treturn e")
	out.line("}")
	out.line("%s := %s(%s)", err, f, g.runtimeValue(tInt).s)
	out.line("%s = mixB(%s, %s != nil)", g.fn.acc, g.fn.acc, err)
}
