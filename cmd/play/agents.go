package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"ocvist/arena"
	"ocvist/data"
	"ocvist/forest"
	"ocvist/patterns"
)

// defaultAgent is the opponent of play terminal and the engine of play
// gomocup when -agent is not given: the shipped forest policy.
const defaultAgent = "forest"

// agentEnv is what an agent may need besides its name.
type agentEnv struct {
	seed uint64        // random seed of random and sampling agents
	turn time.Duration // move time limit, for external engines
	log  io.Writer     // an external engine's stderr; nil discards it
}

const agentHelp = "random, patterns, forest[:MODEL] or engine:COMMAND"

// newAgent builds the agent named by spec.
func newAgent(spec string, env agentEnv) (arena.Agent, error) {
	name, arg, _ := strings.Cut(spec, ":")
	switch name {
	case "random":
		if arg != "" {
			break
		}
		return arena.NewRandom(env.seed), nil
	case "patterns":
		if arg != "" {
			break
		}
		return arena.NewPatterns(env.seed, patterns.Config{}), nil
	case "forest":
		return newForestAgent(arg, env)
	case "engine":
		if strings.TrimSpace(arg) == "" {
			return nil, fmt.Errorf("agent %q: want engine:COMMAND", spec)
		}
		return startExternal(arg, env.turn, env.log)
	}
	return nil, fmt.Errorf("unknown agent %q (want %s)", spec, agentHelp)
}

// newForestAgent loads the learned policy from the model file path, or
// the shipped model (embedded, package data) when path is empty. It plays
// its best move.
func newForestAgent(path string, env agentEnv) (arena.Agent, error) {
	var (
		m   *forest.Model
		err error
	)
	if path == "" {
		m, err = forest.Load(bytes.NewReader(data.Model))
	} else {
		m, err = forest.LoadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("agent forest: %w", err)
	}
	return arena.NewForest(m, "forest", 0, env.seed)
}
