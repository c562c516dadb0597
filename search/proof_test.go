package search

import (
	"flag"
	"os"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// provenMoves copies the proven positions of the last proof search
// (keyed by the board's hash): the attacker's move, and the plies of its
// win, at those where the attacker is to move.
func (s *proofSearch) provenMoves() map[uint64]pnEntry {
	out := map[uint64]pnEntry{}
	for h, e := range s.tt {
		if e.pn == 0 && e.move.Valid() {
			out[h] = e
		}
	}
	return out
}

// vcfHolds is the slow twin of a VCF threat: it replays line (the
// attacker, to move, and the defender alternating) on pos and reports
// whether it wins against every defence: at each of the defender's turns
// the defender has no five-point and the attacker has one or more, the
// defender's move in the line is the block when there is one five-point
// (with two or more, any block leaves one), and the line ends in the
// attacker's five. pos is restored.
func vcfHolds(pos *patterns.Position, line []gomoku.Point) bool {
	b := pos.Board()
	a := b.ToMove()
	d := a.Other()
	played := 0
	defer func() {
		for range played {
			pos.Undo()
		}
	}()
	for i, m := range line {
		if b.ToMove() == d {
			fives := pos.Set(patterns.MakesFive, a)
			if !pos.Set(patterns.MakesFive, d).Empty() || fives.Empty() || fives.Len() == 1 && !fives.Has(m) {
				return false
			}
		}
		if pos.Play(m) != nil {
			return false
		}
		played++
		if b.Winner() == a {
			return i == len(line)-1
		}
		if b.Over() {
			return false
		}
	}
	return false
}

// TestVCFDefencesTwin: on seeded positions of both rules where the side
// not to move would win by a VCF if it moved, every empty cell outside
// vcfDefences leaves that VCF winning against every defence (vcfHolds):
// the cells the proof search does not try against a VCF threat cannot
// refute it. Every empty cell of the board is tried, not just those near
// the stones.
func TestVCFDefencesTwin(t *testing.T) {
	for _, rule := range []gomoku.Rule{gomoku.Freestyle, gomoku.Standard} {
		t.Run(rule.String(), func(t *testing.T) {
			threats, tried, outside := 0, 0, 0
			for _, pos := range rulePositions(rule, 31, 600, 10, 60) {
				b := pos.Board()
				a := b.ToMove().Other() // the attacker, as if it moved again
				ps := proofSearch{pos: pos, a: a, d: a.Other(), vcfNodes: 2000, vcfDepth: 20, vcf: patterns.NewVCFTable(12)}
				th, ok := ps.vcfThreat()
				if !ok {
					continue
				}
				threats++
				line := ps.threatLine(th)
				for r := gomoku.Point(0); r < gomoku.NumCells; r++ {
					if b.At(r) != gomoku.Empty {
						continue
					}
					tried++
					if th.def.Has(r) {
						continue
					}
					outside++
					if pos.Play(r) != nil {
						t.Fatalf("cannot play %v", r)
					}
					holds := vcfHolds(pos, line)
					pos.Undo()
					if !holds {
						t.Fatalf("%v outside the defences %v refutes the VCF %v\n%s", r, th.def.AppendTo(nil), line, history(pos))
					}
				}
			}
			t.Logf("%d VCF threats, %d cells tried, %d outside the defences", threats, tried, outside)
			if threats < 50 {
				t.Errorf("only %d VCF threats", threats)
			}
		})
	}
}

var updateQuietWins = flag.Bool("update-quiet-wins", false, "rebuild testdata/quietwins.txt (see buildQuietWins)")

const quietWinsFile = "testdata/quietwins.txt"

// TestProofsVerified: every position of testdata/quietwins.txt (wins that
// the root VCF and VCT do not find and whose proof needs quiet moves that
// threaten a VCF; see buildQuietWins) is proved by the proof search
// within 100,000 nodes, with quiet moves in its proof, a win the
// full-width checker verifies to the claimed length and a line gomoku's
// referee accepts, as long as the claim.
func TestProofsVerified(t *testing.T) {
	if *updateQuietWins {
		buildQuietWins(t)
	}
	wins := loadQuietWins(t)
	if len(wins) < 15 {
		t.Fatalf("%d positions in %s, want at least 15", len(wins), quietWinsFile)
	}
	s := New(DefaultConfig())
	nodes := 0
	for i, pos := range wins {
		if !threatsFail(pos) {
			t.Fatalf("position %d: the VCF or the VCT wins: no test of the proof search\n%s", i+1, history(pos))
		}
		ps := newProofSearch(&s.cfg)
		line, plies, n := ps.run(pos, pos.Board().ToMove(), 100_000, patterns.NewVCFTable(14), nil)
		nodes += n
		if plies == 0 || !ps.usedQuiet() {
			t.Errorf("position %d: proved in %d plies (quiet moves: %v), %d nodes (after a change of the proof search's knobs, rebuild the file: -update-quiet-wins)\n%s", i+1, plies, plies > 0 && ps.usedQuiet(), n, history(pos))
			continue
		}
		if why := refereeLine(pos.Board(), line); why != "" || len(line) != plies {
			t.Errorf("position %d: line %v of a win in %d: %s\n%s", i+1, line, plies, why, history(pos))
		}
		s.prover = ps // the checker's oracle consults its proof
		res := Result{Move: line[0], Score: Mate - plies, PV: line, Reason: "(proof-number search)"}
		if win, ok := verifyClaimCalls(s, pos, res, 40_000, 20_000); !win || !ok {
			t.Errorf("position %d: a win in %d with %v not verified (settled: %v)\n%s", i+1, plies, line, ok, history(pos))
		}
	}
	t.Logf("%d positions, %d nodes", len(wins), nodes)
}

// loadQuietWins reads testdata/quietwins.txt: a rule and the moves (h8
// style) a line; the side to move wins.
func loadQuietWins(t *testing.T) []*patterns.Position {
	data, err := os.ReadFile(quietWinsFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []*patterns.Position
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		rule, err := gomoku.ParseRule(f[0])
		if err != nil {
			t.Fatalf("%s: %q: %v", quietWinsFile, line, err)
		}
		pos := patterns.NewPosition(gomoku.Options{Rule: rule})
		for _, m := range f[1:] {
			q, err := gomoku.ParsePoint(m)
			if err == nil {
				err = pos.Play(q)
			}
			if err != nil {
				t.Fatalf("%s: %q: %v", quietWinsFile, line, err)
			}
		}
		out = append(out, pos)
	}
	return out
}

// buildQuietWins writes testdata/quietwins.txt: of 400 seeded positions
// of each of Freestyle and Standard (rulePositions, seed 77, 12 to 50
// stones), those where the root VCF and VCT find no win (threatsFail) and
// the proof search proves one within 100,000 nodes whose proof holds a
// quiet move.
func buildQuietWins(t *testing.T) {
	out := []string{"# Wins that need quiet moves: the rule, then the moves; the side to move wins",
		"# (search.buildQuietWins: go test -run ProofsVerified -args -update-quiet-wins)."}
	for _, rule := range []gomoku.Rule{gomoku.Freestyle, gomoku.Standard} {
		for _, pos := range rulePositions(rule, 77, 400, 12, 50) {
			if !threatsFail(pos) {
				continue
			}
			cfg := DefaultConfig()
			ps := newProofSearch(&cfg)
			_, plies, _ := ps.run(pos, pos.Board().ToMove(), 100_000, patterns.NewVCFTable(14), nil)
			if plies == 0 || !ps.usedQuiet() {
				continue
			}
			var moves []string
			for _, m := range pos.Board().History() {
				moves = append(moves, m.String())
			}
			out = append(out, rule.String()+" "+strings.Join(moves, " "))
		}
	}
	if err := os.WriteFile(quietWinsFile, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// threatsFail reports whether the side to move on pos has no five, open
// four, root VCF (50,000 nodes) or VCT (DefaultConfig's root bounds).
func threatsFail(pos *patterns.Position) bool {
	me := pos.Board().ToMove()
	if pos.Count(patterns.MakesFive, me) > 0 || pos.Count(patterns.MakesFive, me.Other()) > 0 || pos.Count(patterns.MakesWin, me) > 0 {
		return false
	}
	c := DefaultConfig()
	if _, ok, _ := patterns.VCF(pos, me, patterns.Limits{MaxNodes: c.RootVCF, MaxDepth: c.RootVCFDepth}); ok {
		return false
	}
	v := vctSearch{vcfNodes: c.VCTVCFNodes, vcfDepth: c.VCTVCFDepth}
	_, plies, _ := v.run(pos, me, c.VCTDepth, c.RootVCT, patterns.NewVCFTable(14), nil)
	return plies == 0
}

// usedQuiet reports whether the last proof holds a quiet move: a
// defender position under a VCF threat, reached from the root through
// the proof (the attacker's winning moves, all the defender's answers).
func (s *proofSearch) usedQuiet() bool {
	seen := map[uint64]bool{}
	var walk func() bool
	walk = func() bool {
		p := s.pos
		b := p.Board()
		h := b.Hash()
		if seen[h] || b.Over() {
			return false
		}
		seen[h] = true
		if _, ok := s.threat[h]; ok && b.ToMove() == s.d {
			return true
		}
		var next []gomoku.Point
		if sp, ok := s.kids[h]; ok && b.ToMove() == s.d {
			for _, k := range s.kidBuf[sp.off : sp.off+sp.n] {
				next = append(next, k.move)
			}
		} else if e, ok := s.tt[h]; ok && e.pn == 0 && e.move.Valid() && b.ToMove() == s.a {
			next = append(next, e.move)
		}
		for _, m := range next {
			if p.Put(m, b.ToMove()) != nil {
				continue
			}
			found := walk()
			p.Undo()
			if found {
				return true
			}
		}
		return false
	}
	return walk()
}

// TestProofPollsStop: the proof search polls its stop function at least
// every 256 nodes plus two VCFs (a node's own and one quiet move's), and
// stops at the first true without a win.
func TestProofPollsStop(t *testing.T) {
	cfg := DefaultConfig()
	ps := newProofSearch(&cfg)
	pos := gomocupPosition(t, measured[2].moves)
	var polls []int
	_, plies, n := ps.run(pos, pos.Board().ToMove(), 1_000_000, patterns.NewVCFTable(14), func() bool {
		polls = append(polls, ps.nodes)
		return false
	})
	if plies == 0 || len(polls) < 100 {
		t.Fatalf("position 3: a win in %d, %d polls in %d nodes", plies, len(polls), n)
	}
	last := 0
	for _, p := range append(polls, n) {
		if p-last > 256+2*cfg.ProofVCFNodes+2 {
			t.Fatalf("%d nodes between polls (at %d of %d)", p-last, last, n)
		}
		last = p
	}
	calls := 0
	ps.forget() // else the kept proof answers at once
	_, plies, n2 := ps.run(pos, pos.Board().ToMove(), 1_000_000, patterns.NewVCFTable(14), func() bool { calls++; return calls == 3 })
	if plies > 0 || calls != 3 || n2 >= n {
		t.Errorf("stopped at the third poll: win in %d, %d polls, %d of %d nodes", plies, calls, n2, n)
	}
}

// BenchmarkProof: one op proves position 3 of the measured positions (a
// win that needs quiet moves) from fresh tables, as the root does at
// DefaultConfig; reports the nodes it takes.
func BenchmarkProof(b *testing.B) {
	cfg := DefaultConfig()
	ps := newProofSearch(&cfg)
	pos := gomocupPosition(b, measured[2].moves)
	vcf := patterns.NewVCFTable(cfg.VCFTableBits)
	nodes := 0
	b.ReportAllocs()
	for b.Loop() {
		vcf.Clear()
		ps.forget()
		_, plies, n := ps.run(pos, pos.Board().ToMove(), cfg.RootProof, vcf, nil)
		if plies == 0 {
			b.Fatal("position 3 not proved")
		}
		nodes += n
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// TestProofKept: after proving position 3 of the measured positions, the
// position two plies on along the proof's line (the win, the longest
// answer) is proved from the kept tables without a node, its win two
// plies shorter at most; a search for the other side after the win
// starts from empty tables and proves nothing (it has lost).
func TestProofKept(t *testing.T) {
	cfg := DefaultConfig()
	vcf := patterns.NewVCFTable(14)
	pos := gomocupPosition(t, measured[2].moves)
	me := pos.Board().ToMove()
	ps := newProofSearch(&cfg)
	line, plies, _ := ps.run(pos, me, cfg.RootProof, vcf, nil)
	if plies == 0 {
		t.Fatal("position 3 not proved")
	}
	pos.Play(line[0])
	pos.Play(line[1])
	_, next, n := ps.run(pos, me, cfg.RootProof, vcf, nil)
	if next == 0 || next > plies-2 || n != 0 {
		t.Errorf("after %v %v: a win in %d (%d nodes), want at most %d from the kept tables", line[0], line[1], next, n, plies-2)
	}
	pos.Undo()
	if _, other, n := ps.run(pos, me.Other(), cfg.RootProof, vcf, nil); other != 0 || n == 0 {
		t.Errorf("after %v the loser proves a win in %d (%d nodes)", line[0], other, n)
	}
}
