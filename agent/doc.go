// Package agent is what a player is to the programs that ask it for moves:
// the Agent interface (a match in arena, a game in the terminal, a manager
// through gomocup, the web page) and the optional interfaces some agents
// add (Noticer, Prover, Ranker), and Random, the agent without a brain.
// It depends on gomoku alone, so the terminal and the protocol server use
// agents without linking the engines (search, forest) that implement them;
// arena builds those.
//
// Like every Ocvist library it never prints, exits or starts goroutines.
package agent
