package web

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/policy"
)

// modelSet is what an agent plays with: a policy and, for the search, a
// value model. Models are read-only once loaded and shared by games.
type modelSet struct {
	name    string
	policy  *policy.Model
	value   *policy.ValueModel // nil: none
	anyRule bool               // the shipped models serve every rule (arena.SearchConfig.AnyRule)
	// forest is the policy the forest agent plays alone, when it is not
	// the search's: the shipped freestyle set's data.Forest (feature set
	// 3, which costs the search a third of its speed).
	forest *policy.Model
}

// pure is the policy the forest agent plays.
func (m *modelSet) pure() *policy.Model {
	if m.forest != nil {
		return m.forest
	}
	return m.policy
}

// check refuses a rule the models were not fitted for, unless anyRule.
func (m *modelSet) check(rule gomoku.Rule) error {
	if m.anyRule {
		return nil
	}
	if err := m.policy.Check(rule); err != nil {
		return fmt.Errorf("model %s: %w", m.name, err)
	}
	if m.value != nil {
		if err := m.value.Check(rule); err != nil {
			return fmt.Errorf("model %s: %w", m.name, err)
		}
	}
	return nil
}

// maxCached is how many databases' models stay loaded.
const maxCached = 4

// models holds the shipped models and loads generations' models from the
// dashboard's databases on demand.
type models struct {
	shipped      *modelSet
	shippedRenju *modelSet // the shipped renju models, for renju games
	dbs          []*dbWatch

	mu    sync.Mutex
	cache map[string]*modelSet
	order []string // oldest first
}

func newModels() (*models, error) {
	shipped, err := embeddedSet("shipped", data.Model, data.Value, true)
	if err != nil {
		return nil, err
	}
	if shipped.forest, err = policy.Load(bytes.NewReader(data.Forest)); err != nil {
		return nil, fmt.Errorf("the shipped forest policy: %w", err)
	}
	renju, err := embeddedSet("shipped renju", data.RenjuModel, data.RenjuValue, false)
	if err != nil {
		return nil, err
	}
	return &models{shipped: shipped, shippedRenju: renju, cache: map[string]*modelSet{}}, nil
}

// embeddedSet reads a policy and a value model shipped in the program.
func embeddedSet(name string, pol, val []byte, anyRule bool) (*modelSet, error) {
	p, err := policy.Load(bytes.NewReader(pol))
	if err != nil {
		return nil, fmt.Errorf("the %s policy: %w", name, err)
	}
	v, err := policy.LoadValue(bytes.NewReader(val))
	if err != nil {
		return nil, fmt.Errorf("the %s value model: %w", name, err)
	}
	return &modelSet{name: name, policy: p, value: v, anyRule: anyRule}, nil
}

// get returns the models named by ref for a game under rule: "" for the
// shipped ones (the renju ones under renju), "DB/GEN" for generation GEN
// of the dashboard's database DB.
func (m *models) get(ctx context.Context, ref string, rule gomoku.Rule) (*modelSet, error) {
	if ref == "" || ref == "shipped" {
		if rule == gomoku.Renju {
			return m.shippedRenju, nil
		}
		return m.shipped, nil
	}
	dbs, gens, ok := strings.Cut(ref, "/")
	db, err1 := strconv.Atoi(dbs)
	gen, err2 := strconv.Atoi(gens)
	if !ok || err1 != nil || err2 != nil {
		return nil, errorf(400, "model %q: want DB/GEN (a database of the dashboard and a generation) or empty for the shipped one", ref)
	}
	if db < 0 || db >= len(m.dbs) {
		return nil, errorf(400, "model %q: no database %d (the server shows %d)", ref, db, len(m.dbs))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.cache[ref]; s != nil {
		return s, nil
	}
	pol, val, err := m.dbs[db].modelBytes(ctx, gen)
	if err != nil {
		return nil, errorf(400, "model %s: %v", ref, err)
	}
	s := &modelSet{name: fmt.Sprintf("%s gen %d", m.dbs[db].name, gen)}
	if s.policy, err = policy.Load(bytes.NewReader(pol)); err != nil {
		return nil, errorf(400, "model %s: policy: %v", ref, err)
	}
	if val != nil {
		if s.value, err = policy.LoadValue(bytes.NewReader(val)); err != nil {
			return nil, errorf(400, "model %s: value: %v", ref, err)
		}
	}
	if len(m.order) >= maxCached {
		delete(m.cache, m.order[0])
		m.order = m.order[1:]
	}
	m.cache[ref], m.order = s, append(m.order, ref)
	return s, nil
}
