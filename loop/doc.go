// Package loop is the learning loop v2 (README.md, "The learning loop
// v2"; the shipped model's recipe in data/README.md): expert iteration, a
// search teacher distilled into two forests, generation after generation.
//
// A generation g:
//
//  1. plays Config.Games teacher games (selfplay.Teacher: the search with a
//     node budget, ordered by the adopted policy model and evaluated with
//     the adopted value model; exploration among near-best root moves for
//     the first plies) on Config.Workers goroutines, each game seeded from
//     (Seed, g, game index) alone, and appends them to the store
//     (store.AddTeacherGames: once per (g, game));
//  2. builds training sets from the games of the last Config.Window
//     generations, split by game (a game's positions are all held out or
//     all used): policy rows are the teacher's move (label 1) and
//     Config.Negatives other candidates of the pattern filter drawn at
//     random (label 0), with feature set 2; value rows are the positions
//     with the game's outcome for the mover;
//  3. fits the policy and value forests and measures them on the held-out
//     games: within-position top-1 agreement with the teacher and
//     within-position AUC (every candidate of a held-out position is
//     scored), the value model's AUC;
//  4. gates the new policy against the adopted one: paired games of the
//     pure policies (best move, no search) from generated openings, ended
//     by an SPRT; the generation is adopted when the SPRT accepts that it
//     is stronger (H1), or, if the gate reaches Gate.MaxGames undecided
//     (always so under 2·Gate.MinPairs games), when the pair score's 95%
//     interval lies above 50%; the record says what decided;
//  5. measures the new policy's Elo against fixed anchors (random,
//     patterns, the generation-0 policy) with 95% intervals;
//  6. records it all (store.Generation, Details as JSON of Record).
//
// Everything is drawn from seeds: the same Config and database give the
// same games, the same samples and byte-identical models.
package loop
