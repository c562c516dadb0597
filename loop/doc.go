// Package loop is the learning loop v2 (README.md, "The learning loop
// v2"; the shipped model's recipe in data/README.md): expert iteration, a
// search teacher distilled into two forests, generation after generation.
//
// A generation g:
//
//  1. plays Config.Games teacher games (selfplay.Teacher: the search with a
//     node budget, ordered by the adopted policy model and evaluated with
//     the adopted value model; exploration among near-best root moves for
//     the first plies), each seeded from (Seed, g, game index) alone
//     (selfplay.TeacherSeed), on Config.Workers worker processes
//     (coordinator.PlayTeacher): every game keeps the teacher's move and
//     its search (score, depth, every root move's score) per ply, the
//     outcome and the generation, and is published in a sealed teacher
//     shard and merged into the store exactly once (store.Merge), like a
//     self-play game;
//  2. builds training sets from the games of the last Config.Window
//     generations, split by game (a game's positions are all held out or
//     all used): policy rows are the teacher's move (label 1) and
//     Config.Negatives other candidates of the pattern filter drawn at
//     random (label 0), with feature set 2; value rows are the positions
//     the engine's search evaluates (Config.ValueQuiet:
//     search.Config.Evaluated; with it off, every position after the
//     book) with Config.ValueSet's features (policy's value feature sets; set 2
//     sees each side's threats) and a target blended from the teacher's
//     root score, turned into a win probability by a logistic whose scale
//     is fitted on the window (ScoreWin), and the game's outcome for the
//     mover, Config.ValueTarget of the first, and with Config.ValueTD
//     the next position's target blended in, TD(λ) along the game
//     (target.go; each choice's measurement in TUNING.md);
//  3. fits the policy and value forests and measures them on the held-out
//     games: within-position top-1 agreement with the teacher and
//     within-position AUC (every candidate of a held-out position is
//     scored), the value model's AUC beside the teacher's score's;
//  4. gates the new engine against the adopted one: the engine is what
//     users play, the search over a generation's models (arena's search
//     agent, its prior depth and value scale) at Config.GateNodes nodes a
//     move, so the gate is reproducible; paired games from generated
//     openings, ended by an SPRT; the generation is adopted when the SPRT
//     accepts H1 (by default a non-regression gate: that it is not
//     weaker; with Gate.Elo1 above 0, that it is stronger), or, if the
//     gate reaches Gate.MaxGames undecided (always so under
//     2·Gate.MinPairs games), by the pair score's 95% interval (see
//     Gate); the record says what decided (with Gate.MaxGames 0 there is
//     no gate: every generation is adopted);
//  5. measures the new engine's Elo against fixed anchors (Loop.Anchors —
//     the shipped engine, for train loop —, generation 0's engine,
//     patterns) and the new pure policy's (generation 0's policy,
//     patterns), with 95% intervals: the curve;
//  6. records it all (store.Generation, Details as JSON of Record), the
//     models first where the store keeps them (store.ModelStore).
//
// Everything is drawn from seeds: the same Config and database give the
// same games, the same samples and byte-identical models, however many
// workers or machines play them and whatever stopped the loop on the way.
//
// # Who plays what: plans, claims and the lead
//
// A Run is a member of the database's loop (store.LoopMember). A
// generation's quota is recorded as its plan (store.TeacherPlan: the
// games, cut into blocks of Config.Block, and the recipe — Config but the
// workers and the block — which every member must share, or it is
// refused). A member claims one block at a time for its workers: the
// lowest block never claimed, or, when there is none, the lowest block
// whose member is gone with games missing, of which it gets only the
// missing games. Its teacher job merges the shards its workers publish.
// Once every game of the generation is stored, the member that takes the
// lead fits, gates and records it; the others wait for the record, load
// the models it names (fetched from the database when it keeps them) and
// go on with the next generation. A member waits for the others (games
// still being played, a fit) by looking again every Loop.Poll.
//
// On a SQLite database the process is the only member (one writer). On a
// PostgreSQL database every machine that runs the loop is one: a member
// lives as long as its session advisory lock, which the server releases
// when its process or connection dies; the lead is another advisory lock,
// held for the fit, gate and record. So no game is played twice while its
// player lives, a dead machine's unfinished blocks are played by the
// others, and a fit survives its leader: the next member to take the lead
// fits the same games into the same models.
//
// # Resume
//
// Run first merges the shards that an earlier job on this machine left
// (coordinator.AdoptShards: a stopped or crashed loop's published games),
// then goes on where the database is: a generation with a record is done;
// one with all its games in is fitted without playing; otherwise the
// blocks claimed by a gone member (the crashed run) give the games still
// missing, and only those are played. A game finished but not published
// when its worker died is played again — the same game.
package loop
