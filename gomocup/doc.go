// Package gomocup is the Gomocup engine protocol
// (https://plastovicka.github.io/protocl2en.htm, with the extensions of
// common managers: YXSTOP, SWAP2BOARD, and Yixin-Board's analysis
// commands: YXBOARD, YXNBEST, YXSHOWFORBID, YXSHOWINFO, YXHASHCLEAR; see
// yixin.go and swap2.go), both ends:
// the typed commands and replies, the engine side (Server) and the manager
// side (Client) that drives an external engine process.
//
// # Commands and replies
//
// Every command of a manager is a Cmd* type (CmdStart, CmdTurn, CmdBoard,
// CmdInfo, …) and every line of a brain a Reply* type (ReplyOK, ReplyMove,
// ReplyError, ReplyAbout, …). Parse and ParseReply read them; String writes
// them; the two are inverses: Parse(c.String()) is c for every command
// Parse returns, and likewise for replies. A BOARD or SWAP2BOARD block is
// one command whose text spans lines up to DONE.
//
// # Server
//
// A Server plays for an Engine (agent.Agent is one): it keeps the board,
// the rule and the time control (INFO timeout_turn, timeout_match and
// time_left), asks the engine for each move with the clock as the manager
// stated it (gomoku.Clock: the engine decides how much of it to use; the
// server computes no budget), the context's deadline shortly before the
// move's limit, and plays a quick fallback move, after a
// MESSAGE saying why, when the engine fails or is late. YXSTOP stops a
// thinking engine by cancelling its move's context (made before the
// engine starts, so a YXSTOP is never lost): a searching engine answers
// at once with its best move so far. Serve reads lines from a channel that the command
// fills (a command owns its input), so that YXSTOP and END are seen while
// the engine thinks. Every command gets its one reply (none for INFO,
// YXSTOP and END), and no bad line breaks what follows: a malformed INFO
// value is ignored and reported once, by a MESSAGE before the next reply;
// INFO rule is Piskvork's bitmask (Options.YixinRules reads 2 as renju),
// whose caro bit refuses the moves until a rule Ocvist plays comes. An
// engine that implements the optional interfaces (Analyst, Reporter,
// Hasher, Limiter, Threader, agent.Noticer) gets the extensions that need them.
//
// # Client
//
// A Client starts an engine program and drives it as a tournament manager
// does (START, INFO, BEGIN/TURN/BOARD, RESTART, END); it has the methods
// of agent.Agent, so any Gomocup engine can play in the match arena.
//
// # Contract
//
// The package knows nothing of how a move is chosen, and nothing above
// package gomoku. It never prints or exits; it writes protocol lines only
// to the writer a Server is given. The Server runs an engine's Move on a
// goroutine of the call that asked for the move and waits for it to
// return before that call returns; the Client reads with deadlines on the
// engine's output pipe and starts no goroutine (os/exec copies an engine's
// stderr to a log writer on one of its own, until the process is waited
// for).
package gomocup
