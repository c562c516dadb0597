package arena

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"ocvist/data"
	"ocvist/gomocup"
	"ocvist/gomoku"
	"ocvist/policy"
)

// shippedModels are the policy and value models embedded in package data.
func shippedModels(tb testing.TB) (*policy.Model, *policy.ValueModel) {
	tb.Helper()
	pm, err := policy.Load(bytes.NewReader(data.Model))
	if err != nil {
		tb.Fatal(err)
	}
	vm, err := policy.LoadValue(bytes.NewReader(data.Value))
	if err != nil {
		tb.Fatal(err)
	}
	return pm, vm
}

// TestSearchAgentRules: the search agent refuses a game under a rule its
// prior or its value model was not fitted for, unless AnyRule, which plays
// it with them and says so in Notice (empty for a game of the models'
// rule).
func TestSearchAgentRules(t *testing.T) {
	pm, vm := shippedModels(t)
	standardValue := &policy.ValueModel{Forest: vm.Forest, Net: vm.Net, Rule: gomoku.Standard, Set: vm.Set}
	for _, c := range []struct {
		name    string
		cfg     SearchConfig
		rule    gomoku.Rule
		err     string // "" for none
		noticed bool
	}{
		{"no models", SearchConfig{}, gomoku.Standard, "", false},
		{"prior", SearchConfig{Model: pm}, gomoku.Standard, "the model was fitted for freestyle, not standard", false},
		{"value", SearchConfig{Value: vm}, gomoku.Standard, "the value model was fitted for freestyle, not standard", false},
		{"value of another", SearchConfig{Model: pm, Value: standardValue}, gomoku.Freestyle, "the value model was fitted for standard, not freestyle", false},
		{"both", SearchConfig{Model: pm, Value: vm}, gomoku.Freestyle, "", false},
		{"any rule", SearchConfig{Model: pm, Value: vm, AnyRule: true}, gomoku.Standard, "", true},
		{"any rule, own", SearchConfig{Model: pm, Value: vm, AnyRule: true}, gomoku.Freestyle, "", false},
	} {
		c.cfg.Nodes = 3000
		a, err := NewSearch(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = a.NewGame(c.rule)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: NewGame(%v) = %v, want %q", c.name, c.rule, err, c.err)
			continue
		}
		want := ""
		if c.noticed {
			want = "search: models fitted for another rule serve this standard game (policy: the model was fitted for freestyle, not standard)"
		}
		if a.Notice() != want {
			t.Errorf("%s: notice %q, want %q", c.name, a.Notice(), want)
		}
		if err != nil {
			continue
		}
		b := gomoku.New(gomoku.Options{Rule: c.rule})
		b.Play(gomoku.Center)
		if p, err := a.Move(context.Background(), b, gomoku.Clock{}); err != nil || b.Play(p) != nil {
			t.Errorf("%s: move %v, %v", c.name, p, err)
		}
	}
}

// TestSearchAgentByRule: a rule with models of its own (ByRule) gets them,
// with no notice; the other rules get Model and Value (with a notice
// under AnyRule), and a game of each in turn switches back and forth.
func TestSearchAgentByRule(t *testing.T) {
	pm, vm := shippedModels(t)
	renjuPolicy := &policy.Model{Forest: pm.Forest, Spec: pm.Spec}
	renjuPolicy.Spec.Rule = gomoku.Renju
	renju := Models{renjuPolicy, &policy.ValueModel{Forest: vm.Forest, Net: vm.Net, Rule: gomoku.Renju, Set: vm.Set}}
	a, err := NewSearch(SearchConfig{Model: pm, Value: vm, ByRule: map[gomoku.Rule]Models{gomoku.Renju: renju}, AnyRule: true, Nodes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule    gomoku.Rule
		want    Models
		noticed bool
	}{
		{gomoku.Renju, renju, false},
		{gomoku.Freestyle, Models{pm, vm}, false},
		{gomoku.Standard, Models{pm, vm}, true},
		{gomoku.Renju, renju, false},
	} {
		if err := a.NewGame(c.rule); err != nil {
			t.Fatalf("%v: %v", c.rule, err)
		}
		if a.models != c.want || (a.Notice() != "") != c.noticed {
			t.Errorf("%v: models %p/%p, notice %q; want %p/%p, noticed %v", c.rule, a.models.Policy, a.models.Value, a.Notice(), c.want.Policy, c.want.Value, c.noticed)
		}
		b := gomoku.New(gomoku.Options{Rule: c.rule})
		b.Play(gomoku.Center)
		if p, err := a.Move(context.Background(), b, gomoku.Clock{}); err != nil || b.Play(p) != nil {
			t.Errorf("%v: move %v, %v", c.rule, p, err)
		}
	}
}

// gatedSearch begins its move only once the move's context is done.
type gatedSearch struct{ *Search }

func (g gatedSearch) Move(ctx context.Context, b *gomoku.Board, clk gomoku.Clock) (gomoku.Point, error) {
	<-ctx.Done()
	return g.Search.Move(ctx, b, clk)
}

// TestSearchStoppedBeforeMove: through the Gomocup server, a YXSTOP queued
// behind TURN, which the server takes before the search begins (the
// engine waits for it), stops the search at once: with a turn limit of
// 28 hours and no node limit the reply is still a legal move of the
// search's, not the fallback.
func TestSearchStoppedBeforeMove(t *testing.T) {
	a, err := NewSearch(SearchConfig{})
	if err != nil {
		t.Fatal(err)
	}
	in := make(chan string, 8)
	for _, l := range []string{"START 15", "INFO timeout_turn 100000000", "BOARD", "7,7,2", "8,8,1", "7,8,2", "DONE", "YXSTOP"} {
		in <- l
	}
	close(in)
	var out bytes.Buffer
	srv := gomocup.NewServer(gatedSearch{a}, &out, gomocup.Options{})
	if err := srv.Serve(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != "OK" {
		t.Fatalf("replies %q, want OK and a move", lines)
	}
	p, err := gomoku.ParseGomocup(lines[1])
	if err != nil || srv.Board().At(p) == gomoku.Empty || srv.Board().Stones() != 4 {
		t.Errorf("reply %q: not a move played (%v)", lines[1], err)
	}
	if r := a.Last(); r.Depth != 0 || r.Nodes > 1 {
		t.Errorf("the search went on after the stop: depth %d, %d nodes (%s)", r.Depth, r.Nodes, r.Reason)
	}
}
