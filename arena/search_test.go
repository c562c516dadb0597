package arena

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"ocvist/data"
	"ocvist/forest"
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
	f, err := forest.Load(bytes.NewReader(data.Value))
	if err != nil {
		tb.Fatal(err)
	}
	vm, err := policy.ValueFromForest(f)
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
	standardValue := &policy.ValueModel{Forest: vm.Forest, Rule: gomoku.Standard}
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
		if p, err := a.Move(context.Background(), b); err != nil || b.Play(p) != nil {
			t.Errorf("%s: move %v, %v", c.name, p, err)
		}
	}
}
