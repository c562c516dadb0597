// Package layout has no code: its tests check the shape of the module
// that README.md ("Layout") describes, from the source files:
//
//   - every package imports exactly the module packages that README.md's
//     graph block draws for it (the test reads the block), and the other
//     modules listed in the test; the lower packages (gomoku, canon,
//     patterns, agent, gomocup, terminal) never reach the engines, the
//     store or the training job; only commands use internal/cli and
//     terminal; internal/pgtest is for tests;
//   - libraries never print, exit or read the process's standard streams;
//   - goroutines start only in the commands and in the few library calls
//     that run a bounded loop and are done when the call returns (listed
//     in the test with the reason).
package layout
