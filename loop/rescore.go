package loop

import (
	"context"
	"errors"
	"sync"

	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/store"
)

// Rescore searches the positions of teacher games again with a bigger
// node budget than the teacher had, so that a value model learns the
// scores of a deeper search ("train value -rescore-nodes"): the teacher's
// search settings (its prior depth, Config.ValueScale) over the models
// given, Nodes a position. Each game is searched by one worker from a
// cleared table, position after position, so its scores depend on the
// game alone, never on the workers or their order.
type Rescore struct {
	Nodes   int64
	Policy  *policy.Model      // the prior; nil for none
	Value   *policy.ValueModel // nil for none
	Workers int                // at least 1
	// Progress, when set, is told how many games are done of how many,
	// from one goroutine at a time.
	Progress func(done, total int)
}

// rescoreGames replaces the stored score of every position after the book
// of the decided games with r's search of it, in place; the draws, which
// give no value row, are left as they are.
func (r *Rescore) rescoreGames(ctx context.Context, cfg Config, games []*store.TeacherGame) error {
	if r.Nodes < 100 || r.Workers < 1 {
		return errors.New("loop: rescore: want at least 100 nodes and 1 worker")
	}
	scfg := search.DefaultConfig()
	scfg.PriorDepth, scfg.ValueScale = TeacherPriorDepth, cfg.ValueScale
	next := make(chan *store.TeacherGame)
	errs := make([]error, r.Workers)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := range r.Workers {
		s := search.New(scfg)
		if r.Policy != nil {
			s.SetPrior(func() search.Prior { return policy.NewPrior(r.Policy) })
		}
		if r.Value != nil {
			s.SetValue(func() search.Value { return policy.NewValuer(r.Value) })
		}
		pos := patterns.NewPosition(gomoku.Options{Rule: cfg.Rule, Radius: cfg.Radius})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				if errs[w] == nil {
					errs[w] = r.game(ctx, s, pos, g)
				}
				mu.Lock()
				done++
				if r.Progress != nil {
					r.Progress(done, len(games))
				}
				mu.Unlock()
			}
		}()
	}
	for _, g := range games {
		if ctx.Err() != nil {
			break
		}
		next <- g
	}
	close(next)
	wg.Wait()
	return errors.Join(append(errs, ctx.Err())...)
}

// game rescores one game's positions after its book.
func (r *Rescore) game(ctx context.Context, s *search.Searcher, pos *patterns.Position, g *store.TeacherGame) error {
	if g.Winner == gomoku.Empty {
		return nil
	}
	if g.Plies == nil {
		g.Plies = make([]store.TeacherPly, len(g.Teacher))
	}
	s.Clear()
	pos.Reset(gomoku.New(pos.Board().Options()))
	for i, m := range g.Moves {
		if i >= g.Book {
			res, err := s.Search(ctx, pos, search.Limits{Nodes: r.Nodes})
			if err != nil {
				return err
			}
			g.Plies[i-g.Book].Score = int16(max(min(res.Score, 32000), -32000))
		}
		if err := pos.Play(m); err != nil {
			return err
		}
	}
	return nil
}
