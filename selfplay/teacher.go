package selfplay

import (
	"context"
	"fmt"
	"math/rand/v2"

	"ocvist/gomoku"
	"ocvist/internal/splitmix"
	"ocvist/patterns"
	"ocvist/search"
	"ocvist/store"
)

// TeacherConfig describes the games of the learning loop (README.md, "The
// learning loop v2"; package loop): every move is chosen by the search with a node
// budget, the teacher; the learned models it uses (a prior, a value) are
// set on the Searcher by the caller.
//
// Exploration, so that games differ and the learner sees more than one
// line: a game starts from one of Openings (drawn at random), and for the
// first Explore plies after it the move played is drawn uniformly among
// the teacher's root moves scoring within Margin of the best (never a
// move the search scored as lost while a better one exists). The sample
// of such a ply still records the teacher's own choice. After Explore
// plies the teacher's move is played.
type TeacherConfig struct {
	Rule     gomoku.Rule
	Radius   int // candidate radius (1..gomoku.MaxRadius; 0 = 2)
	MaxPly   int // a game with this many stones is a draw; 0 = full board
	Nodes    int64
	Explore  int
	Margin   int
	Openings [][]gomoku.Point
}

// Validate checks the configuration.
func (c TeacherConfig) Validate() error {
	sc := Config{Rule: c.Rule, Radius: c.Radius, MaxPly: c.MaxPly, Openings: c.Openings}
	if err := sc.Validate(); err != nil {
		return err
	}
	if c.Nodes < 100 {
		return fmt.Errorf("selfplay: teacher nodes %d: want at least 100", c.Nodes)
	}
	if c.Explore < 0 || c.Margin < 0 {
		return fmt.Errorf("selfplay: teacher explore %d and margin %d must not be negative", c.Explore, c.Margin)
	}
	return nil
}

// TeacherGame is one game of the learning loop: every stone, the opening's
// first, and for every ply after the opening the teacher's choice and its
// search: the move's score, the depth, every root move's score. The store
// keeps it (store.TeacherGame) for the learner's samples.
type TeacherGame struct {
	Moves   []gomoku.Point     // every stone in play order
	Book    int                // how many of Moves came from the opening
	Teacher []gomoku.Point     // per ply after the book: the teacher's move
	Plies   []store.TeacherPly // per ply after the book: the teacher's search
	Winner  gomoku.Player      // Empty for a draw
}

// Stored is the game as the store keeps it, game number game of
// generation gen.
func (g *TeacherGame) Stored(gen, game int) store.TeacherGame {
	return store.TeacherGame{Gen: gen, Game: game, Moves: g.Moves, Book: g.Book, Teacher: g.Teacher, Plies: g.Plies, Winner: g.Winner}
}

// TeacherSeed is the seed of game number game of generation gen of a
// learning loop seeded with seed: a game depends on it alone (and on the
// models), whoever plays it.
func TeacherSeed(seed uint64, gen, game int) uint64 {
	return splitmix.Derive(seed, 0x7eac, uint64(gen), uint64(game))
}

// Teacher plays TeacherGames. It owns a Searcher (set its models with
// Searcher()) and is used by one goroutine.
type Teacher struct {
	cfg TeacherConfig
	s   *search.Searcher
	pos *patterns.Position
	buf []search.RootMove
}

// NewTeacher returns a Teacher with the search configured by scfg. cfg
// must be valid.
func NewTeacher(cfg TeacherConfig, scfg search.Config) *Teacher {
	opts := gomoku.Options{Rule: cfg.Rule, Radius: cfg.Radius, MaxPly: cfg.MaxPly}
	return &Teacher{cfg: cfg, s: search.New(scfg), pos: patterns.NewPosition(opts)}
}

// Searcher is the teacher's search, for SetPrior and SetValue.
func (t *Teacher) Searcher() *search.Searcher { return t.s }

// Play plays one game; randomness (the opening, the exploration) comes
// only from rng, and the search is node-limited, so a seed gives a game.
func (t *Teacher) Play(rng *rand.Rand) TeacherGame {
	empty := gomoku.New(t.pos.Board().Options())
	t.pos.Reset(empty)
	t.s.Clear()
	var g TeacherGame
	if len(t.cfg.Openings) == 0 {
		t.pos.Play(gomoku.Center)
	} else {
		for _, p := range t.cfg.Openings[rng.IntN(len(t.cfg.Openings))] {
			t.pos.Play(p)
		}
	}
	b := t.pos.Board()
	g.Book = b.Stones()
	for ply := 0; !b.Over(); ply++ {
		explore := ply < t.cfg.Explore // exact root scores to choose among
		res, err := t.s.Search(context.Background(), t.pos, search.Limits{Nodes: t.cfg.Nodes, RootExact: explore})
		if err != nil {
			panic("selfplay: teacher search: " + err.Error()) // b.Over() was checked: a bug
		}
		play := res.Move
		if explore {
			play = t.explore(res, rng)
		}
		g.Teacher = append(g.Teacher, res.Move)
		g.Plies = append(g.Plies, stored(res, explore))
		if err := t.pos.Play(play); err != nil {
			panic(fmt.Sprintf("selfplay: teacher chose %v: %v", play, err))
		}
	}
	g.Moves = append([]gomoku.Point(nil), b.History()...)
	g.Winner = b.Winner()
	return g
}

// stored is what the store keeps of a teacher's search: scores clamped to
// int16 (the search's lie within ±search.Inf, 30,000).
func stored(res search.Result, exact bool) store.TeacherPly {
	clamp := func(v int) int16 { return int16(max(min(v, 32000), -32000)) }
	p := store.TeacherPly{Score: clamp(res.Score), Depth: min(res.Depth, 255), Exact: exact}
	if len(res.Root) > 0 {
		p.Root = make([]store.RootScore, len(res.Root))
		for i, r := range res.Root {
			p.Root[i] = store.RootScore{Move: r.Move, Score: clamp(r.Score)}
		}
	}
	return p
}

// explore draws the move to play among the root moves within Margin of
// the best score. Moves the search proved lost are kept out unless all are.
func (t *Teacher) explore(res search.Result, rng *rand.Rand) gomoku.Point {
	if len(res.Root) < 2 || search.IsMate(res.Score) {
		return res.Move
	}
	t.buf = t.buf[:0]
	for _, m := range res.Root {
		if m.Score >= res.Score-t.cfg.Margin && !(search.IsMate(m.Score) && m.Score < 0) {
			t.buf = append(t.buf, m)
		}
	}
	if len(t.buf) == 0 {
		return res.Move
	}
	return t.buf[rng.IntN(len(t.buf))].Move
}

// Outcome is the game's result for the player who made move i of Moves:
// +1 a win, −1 a loss, 0 a draw.
func (g *TeacherGame) Outcome(i int) int8 {
	switch {
	case g.Winner == gomoku.Empty:
		return 0
	case (i%2 == 0) == (g.Winner == gomoku.Black):
		return 1
	}
	return -1
}
