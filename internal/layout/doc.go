// Package layout has no code: its tests check the shape of the module
// that README.md ("Layout") describes, from the source files:
//
//   - dependencies point one way: gomoku ← canon ← patterns ← search;
//     forest uses gonum (and internal/splitmix) only; policy uses forest,
//     patterns and canon; store uses gomoku and canon; gomocup uses gomoku
//     only (it knows nothing of how a move is chosen, and search and
//     policy know nothing of the protocol); only commands use internal/cli
//     and terminal;
//   - libraries never print, exit or read the process's standard streams;
//   - goroutines start only in the commands and in the few library calls
//     that run a bounded loop and are done when the call returns (listed
//     in the test with the reason).
package layout
