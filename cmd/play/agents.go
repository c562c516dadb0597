package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/data"
	"ocvist/gomocup"
	"ocvist/gomoku"
	"ocvist/internal/cli"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
)

// defaultAgent is the opponent of play terminal and the engine of play
// gomocup when -agent is not given: the search over the shipped forest.
const defaultAgent = "search"

// defaultTurn is the move time of external engines outside a match.
const defaultTurn = gomocup.DefaultTurn

// agentFlags are the flags that choose one agent.
type agentFlags struct {
	spec    string
	seed    uint64
	threads int
}

func (a *agentFlags) register(fs *flag.FlagSet, role string) {
	fs.StringVar(&a.spec, "agent", defaultAgent, role+": "+agentHelp)
	fs.Uint64Var(&a.seed, "seed", 1, "the agent's random seed")
	fs.IntVar(&a.threads, "threads", 0, "threads of a search agent (as search,threads=N; 0: the agent's own, 1 unless given)")
}

// threader is an agent that thinks on several threads (arena.Search).
type threader interface{ SetThreads(n int) }

func (a *agentFlags) new(env agentEnv) (agent.Agent, error) {
	env.seed = a.seed
	if a.threads < 0 || a.threads > search.MaxThreads {
		return nil, cli.Usagef("-threads %d: want 1 to %d", a.threads, search.MaxThreads)
	}
	ag, err := newAgent(a.spec, env)
	if err != nil || a.threads == 0 {
		return ag, err
	}
	t, ok := ag.(threader)
	if !ok {
		ag.Close()
		return nil, cli.Usagef("-threads %d: agent %s thinks on no threads", a.threads, a.spec)
	}
	t.SetThreads(a.threads)
	return ag, nil
}

// agentEnv is what an agent may need besides its name.
type agentEnv struct {
	seed uint64        // random seed of random and sampling agents
	turn time.Duration // move time limit, for external engines
	log  io.Writer     // an external engine's stderr; nil discards it
}

const agentHelp = "random, patterns, forest[:MODEL], search[:MODEL|none][,nodes=N][,depth=D][,value=FILE|none][,OPTION=V…] or engine:COMMAND"

// newAgent builds the agent named by spec.
func newAgent(spec string, env agentEnv) (agent.Agent, error) {
	mk, err := agentMaker(spec, env)
	if err != nil {
		return nil, err
	}
	return mk(env.seed)
}

// agentMaker parses spec once (loading any model) and returns a function
// that makes such an agent with a given seed, for matches that give every
// game its own agents.
func agentMaker(spec string, env agentEnv) (func(seed uint64) (agent.Agent, error), error) {
	name, arg := splitSpec(spec)
	switch name {
	case "random":
		if arg == "" {
			return func(seed uint64) (agent.Agent, error) { return agent.NewRandom(seed), nil }, nil
		}
	case "patterns":
		if arg == "" {
			return func(seed uint64) (agent.Agent, error) { return arena.NewPatterns(seed, patterns.Config{}), nil }, nil
		}
	case "forest":
		m, err := loadPolicy(arg, data.Forest)
		if err != nil {
			return nil, fmt.Errorf("agent %s: %w", spec, err)
		}
		return func(seed uint64) (agent.Agent, error) { return arena.NewForest(m, arena.ForestConfig{Seed: seed}) }, nil
	case "search":
		cfg, err := searchConfig(arg)
		if err != nil {
			return nil, fmt.Errorf("agent %s: %w", spec, err)
		}
		return func(uint64) (agent.Agent, error) { return arena.NewSearch(cfg) }, nil
	case "engine":
		argv := strings.Fields(arg)
		if len(argv) == 0 {
			return nil, fmt.Errorf("agent %q: want engine:COMMAND", spec)
		}
		opts := gomocup.ClientOptions{Turn: env.turn, Log: env.log}
		return func(uint64) (agent.Agent, error) { return gomocup.StartClient(argv, opts) }, nil
	}
	return nil, fmt.Errorf("unknown agent %q (want %s)", spec, agentHelp)
}

// splitSpec splits an agent spec into its name and argument: the name ends
// at the first ':' (a model or command follows) or ',' (options follow, as
// in search,nodes=N).
func splitSpec(spec string) (name, arg string) {
	if i := strings.IndexAny(spec, ":,"); i >= 0 {
		return spec[:i], spec[i+1:]
	}
	return spec, ""
}

// searchConfig reads search's argument: a model file, "none" (no learned
// prior) or nothing (the shipped model, with the shipped value model),
// then nodes=N, depth=D and value=FILE|none (a value model) options,
// comma-separated.
func searchConfig(arg string) (arena.SearchConfig, error) {
	cfg := arena.SearchConfig{Name: "search", Engine: search.DefaultConfig()}
	parts := strings.Split(arg, ",")
	model, valueSet := parts[0], false
	if strings.Contains(model, "=") {
		model, parts = "", append([]string{""}, parts...)
	}
	for _, o := range parts[1:] {
		isValue, err := searchOption(&cfg, o)
		if err != nil {
			return cfg, err
		}
		valueSet = valueSet || isValue
	}
	if model != "none" {
		m, err := loadPolicy(model, data.Model)
		if err != nil {
			return cfg, err
		}
		cfg.Model = m
		if model == "" && !valueSet { // the shipped models go together
			if cfg.Value, err = loadValue(""); err != nil {
				return cfg, err
			}
			renju, err := shippedRenju()
			if err != nil {
				return cfg, err
			}
			cfg.ByRule = map[gomoku.Rule]arena.Models{gomoku.Renju: renju}
			cfg.AnyRule = true // freestyle's serve standard too: see arena.SearchConfig.AnyRule
		}
	} else {
		cfg.Name = "search-none"
	}
	return cfg, nil
}

// searchOption applies one option o, "name=value", to cfg and reports
// whether it was value= (a value model file, or none). nodes and depth
// bound the agent's moves; every other name is a knob of search.Config
// (searchOptionsHelp lists them), and means what it says.
func searchOption(cfg *arena.SearchConfig, o string) (isValue bool, err error) {
	k, v, ok := strings.Cut(o, "=")
	if !ok {
		return false, fmt.Errorf("option %q: want NAME=VALUE", o)
	}
	switch k {
	case "value":
		vm, err := loadValue(v)
		if err != nil {
			return true, err
		}
		cfg.Value = vm
		return true, nil
	case "nodes", "depth":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return false, fmt.Errorf("option %q: want %s=N, N >= 1", o, k)
		}
		if k == "nodes" {
			cfg.Nodes = n
		} else {
			cfg.Depth = int(min(n, search.MaxDepth))
		}
		return false, nil
	}
	return false, cfg.Engine.Set(k, v)
}

// searchOptionsHelp lists the search agent's options: its own, then the
// knobs of search.Config with their defaults.
func searchOptionsHelp() string {
	var b strings.Builder
	b.WriteString("Options of the search agent (search[:MODEL],NAME=VALUE,…):\n")
	b.WriteString("  nodes=N, depth=D   bound every move (deterministic play); else the clock decides\n")
	b.WriteString("  value=FILE|none    the value model (default: the shipped one with the shipped policy)\n")
	def := search.DefaultConfig()
	for _, o := range search.Options() {
		fmt.Fprintf(&b, "  %s=%s: %s\n", o.Name, def.Get(o.Name), o.Doc)
	}
	b.WriteString("(search.Config documents each knob; search/TUNING.md what was measured.)")
	return b.String()
}

// loadValue loads the value model file path, the shipped one when path is
// empty, or none for "none".
func loadValue(path string) (*policy.ValueModel, error) {
	switch path {
	case "none":
		return nil, nil
	case "":
		return policy.LoadValue(bytes.NewReader(data.Value))
	}
	return policy.LoadValueFile(path)
}

// shippedRenju loads the shipped renju models (embedded, package data).
func shippedRenju() (arena.Models, error) {
	p, err := policy.Load(bytes.NewReader(data.RenjuModel))
	if err != nil {
		return arena.Models{}, fmt.Errorf("the shipped renju policy: %w", err)
	}
	v, err := policy.LoadValue(bytes.NewReader(data.RenjuValue))
	if err != nil {
		return arena.Models{}, fmt.Errorf("the shipped renju value model: %w", err)
	}
	return arena.Models{Policy: p, Value: v}, nil
}

// loadPolicy loads the policy file path, or the shipped one (embedded,
// package data) when path is empty: data.Forest for the forest agent (the
// pure policy, feature set 3), data.Model for the search (its prior,
// feature set 2).
func loadPolicy(path string, shipped []byte) (*policy.Model, error) {
	if path == "" {
		return policy.Load(bytes.NewReader(shipped))
	}
	return policy.LoadFile(path)
}
