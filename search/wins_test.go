package search

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

var (
	updateWins = flag.Bool("update-wins", false, "rebuild testdata/wins.txt from the games of -wins-from")
	winsFrom   = flag.String("wins-from", "", "SGF file of arena games to mine for -update-wins")
)

const winsFile = "testdata/wins.txt"

// knownWin is a position of the suite: the game's moves up to it, and the
// length in plies of the winning line found when the suite was built (the
// side to move wins).
type knownWin struct {
	moves []gomoku.Point
	plies int
}

func (w knownWin) position(t testing.TB) *patterns.Position {
	pos := patterns.NewPosition(gomoku.Options{})
	for _, m := range w.moves {
		if err := pos.Play(m); err != nil {
			t.Fatalf("%v: %v", w.moves, err)
		}
	}
	return pos
}

func loadWins(t testing.TB) []knownWin {
	f, err := os.Open(winsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []knownWin
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		moves, plies, ok := strings.Cut(line, ";")
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(plies), "win in")))
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q", winsFile, line)
		}
		w := knownWin{plies: n}
		for _, s := range strings.Fields(moves) {
			q, err := gomoku.ParsePoint(s)
			if err != nil {
				t.Fatalf("%s: %v", winsFile, err)
			}
			w.moves = append(w.moves, q)
		}
		out = append(out, w)
	}
	return out
}

// TestKnownWins: every position of the suite (forced wins of 9 plies or
// more met in games, see buildWins) is solved by the engine within a node
// budget, and the winning line it returns is replayed and judged by gomoku.
func TestKnownWins(t *testing.T) {
	if *updateWins {
		buildWins(t)
	}
	wins := loadWins(t)
	if len(wins) < 30 {
		t.Fatalf("%d positions in %s, want at least 30", len(wins), winsFile)
	}
	s := New(DefaultConfig())
	var nodes int64
	for i, w := range wins {
		pos := w.position(t)
		s.Clear()
		res, err := s.Search(context.Background(), pos, Limits{Nodes: 400_000})
		if err != nil {
			t.Fatal(err)
		}
		nodes += res.Nodes
		if MatePlies(res.Score) <= 0 {
			t.Errorf("position %d (win in %d): not solved: %s, %d nodes\n%s", i+1, w.plies, res.Reason, res.Nodes, pos.Board())
			continue
		}
		if why := refereeLine(pos.Board(), res.PV); why != "" {
			t.Errorf("position %d: line %v: %s", i+1, res.PV, why)
		}
	}
	t.Logf("%d positions, %d nodes", len(wins), nodes)
}

// buildWins mines the games of an arena match saved as SGF (-wins-from,
// e.g. play match -a search -b forest -save FILE: real games in which the
// loser blundered into lost positions): walking back from each decided
// game's end over the winner's turns, it keeps the earliest position
// where the winner has a VCT or VCF of 9 plies or more and no
// threat-space win in fewer (shortWin), at most one position a game, 40
// in all.
func buildWins(t *testing.T) {
	data, err := os.ReadFile(*winsFrom)
	if err != nil {
		t.Fatalf("-wins-from: %v", err)
	}
	v := vctSearch{vcfNodes: DefaultConfig().VCTVCFNodes, vcfDepth: DefaultConfig().VCTVCFDepth}
	vcf := patterns.NewVCFTable(20)
	out := []string{"# Forced wins of 9+ plies from the games of an arena match (search against the",
		"# shipped forest policy, 100 ms a move; search.buildWins, go test -run KnownWins -args",
		"# -update-wins -wins-from FILE): the moves, then the length in plies of the line found",
		"# when the suite was built. The side to move wins."}
	for _, game := range sgfGames(string(data)) {
		if len(out) >= 4+40 {
			break
		}
		pos := patterns.NewPosition(gomoku.Options{})
		for _, m := range game {
			pos.Play(m)
		}
		winner := pos.Board().Winner()
		if winner == gomoku.Empty {
			continue
		}
		found := ""
		for n := len(game) - 1; n >= 8; n-- {
			pos.Undo()
			if pos.Board().ToMove() != winner || pos.Count(patterns.MakesFive, winner.Other()) > 0 {
				continue
			}
			v.noVCF = false
			line, plies, _ := v.run(pos, winner, 12, 150_000, vcf, nil)
			if plies == 0 {
				break // the win began later
			}
			if len(line) >= 9 && !shortWin(pos, winner) {
				var sb strings.Builder
				for _, m := range pos.Board().History() {
					sb.WriteString(m.String() + " ")
				}
				found = fmt.Sprintf("%s; win in %d", sb.String(), len(line))
			}
		}
		if found != "" {
			out = append(out, found)
		}
	}
	if err := os.WriteFile(winsFile, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sgfGames reads the move lists of an SGF collection (";B[hh];W[ih]…",
// x then y as letters from a).
func sgfGames(s string) [][]gomoku.Point {
	var games [][]gomoku.Point
	for _, tree := range strings.Split(s, "(;")[1:] {
		var g []gomoku.Point
		for _, part := range strings.Split(tree, ";")[1:] {
			if len(part) >= 5 && (part[0] == 'B' || part[0] == 'W') && part[1] == '[' {
				g = append(g, gomoku.Pt(int(part[2]-'a'), int(part[3]-'a')))
			}
		}
		games = append(games, g)
	}
	return games
}

// shortWin reports a threat-space win for me in fewer than 9 plies: a VCF
// of at most 3 fours, or a VCT of at most 3 threat moves.
func shortWin(pos *patterns.Position, me gomoku.Player) bool {
	if _, ok, _ := patterns.VCF(pos, me, patterns.Limits{MaxNodes: 1 << 20, MaxDepth: 3}); ok {
		return true
	}
	v := vctSearch{noVCF: true}
	_, plies, _ := v.run(pos, me, 3, 1<<18, patterns.NewVCFTable(4), nil)
	return plies > 0
}

// BenchmarkKnownWins: one op solves every position of the suite from a
// fresh table (the VCT time of the suite); reports nodes/s.
func BenchmarkKnownWins(b *testing.B) {
	wins := loadWins(b)
	ps := make([]*patterns.Position, len(wins))
	for i, w := range wins {
		ps[i] = w.position(b)
	}
	s := New(DefaultConfig())
	var nodes int64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, pos := range ps {
			s.Clear()
			res, err := s.Search(context.Background(), pos, Limits{Nodes: 400_000})
			if err != nil {
				b.Fatal(err)
			}
			nodes += res.Nodes
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ps)), "µs/position")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
