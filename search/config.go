package search

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config tunes a Searcher: every number the search is tuned by is a
// field here, with its default in DefaultConfig and its range in Options
// (which also names it for command lines: search,NAME=VALUE). Each field
// names the row of search/TUNING.md that measured it, or says that it is
// unmeasured. Start from DefaultConfig: a zero field means zero (off,
// none), not the default, except where a field says otherwise.
type Config struct {
	// Threads is how many threads search (Lazy SMP: they share the
	// transposition table; see Searcher); 0 means 1. One thread at a node
	// or depth limit is deterministic; more are not. Resources: TUNING.md,
	// "Threads".
	Threads int
	// TTBits is log2 of the transposition table's buckets (4 entries of
	// 16 bytes each); 18 is 16 MiB; 0 means 18. Resources, not strength.
	TTBits int
	// VCFTableBits is log2 of the slots (8 bytes each) of the table of
	// positions known to have no VCF; 0 means 16. Resources, not strength.
	VCFTableBits int

	// Width is how many moves a node at a given remaining depth keeps,
	// best-ranked first: Width[d] for depth d (the last entry for deeper
	// nodes). The root keeps RootWidth. Forced move sets (blocks, the
	// defences against an open three) are never cut, and a node whose
	// kept moves all lose searches the rest (a loss is claimed only over
	// every move). Empty and 0 mean DefaultConfig's. TUNING.md:
	// "narrower move widths", "wider move widths", "root width 32",
	// "root width 16".
	Width     []int
	RootWidth int

	// NodeVCF and LeafVCF bound the VCF tried at interior nodes (where
	// the side to move has a four to make) and at the horizon, in VCF
	// nodes; 0 turns it off there. TUNING.md: "a leaf VCF of 150 nodes".
	// NodeVCFDepth bounds both VCFs' length in attacking moves.
	NodeVCF, LeafVCF int
	NodeVCFDepth     int
	// RootVCF and RootVCT bound the threat-space searches at the root, in
	// nodes (0: off); RootVCFDepth bounds the root VCF's length (also the
	// VCF that completes a won line, see LineNodes), VCTDepth the root
	// VCT's attacking moves (0 means 10). Unmeasured: set by hand.
	RootVCF, RootVCT int
	RootVCFDepth     int
	VCTDepth         int
	// VCTVCFNodes and VCTVCFDepth bound each VCF tried inside the VCT.
	// Unmeasured.
	VCTVCFNodes, VCTVCFDepth int
	// ThreatShare: a node-limited search gives each root threat search at
	// most 1/ThreatShare of its nodes, a timed one at most 1/ThreatShare
	// of its time (a VCF cannot be stopped) at ThreatNodesPerMS nodes a
	// millisecond, a safe (low) estimate of the threat searches' speed.
	// Unmeasured.
	ThreatShare      int
	ThreatNodesPerMS int
	// RootProof bounds the root's proof-number search (proof.go: threats
	// and quiet moves that threaten a VCF, tried after the VCF and the
	// VCT), in nodes (0: off). It runs in searches with a node limit or a
	// clock (not in those bounded by depth alone, such as the bench): a
	// node-limited search gives it at most 1/ThreatShare of its nodes, a
	// timed one at most 1/ThreatShare of its time left (it is stopped
	// there). It is not started with a budget under ProofMinNodes (in a
	// timed search: the time's share at ThreatNodesPerMS), too small to
	// prove what the VCT cannot. TUNING.md: "A proof-number search at the
	// root".
	RootProof, ProofMinNodes int
	// ProofVCFNodes and ProofVCFDepth bound each VCF the proof search
	// tries (at every attacker node, and after each quiet move);
	// ProofThreePN and ProofQuietPN are the starting proof numbers of a
	// three and of the quiet moves not yet generated, ProofForcedPN what a
	// forced reply adds (see proofSearch). TUNING.md: "A proof-number
	// search at the root".
	ProofVCFNodes, ProofVCFDepth int
	ProofThreePN, ProofQuietPN   int
	ProofForcedPN                int
	// LineNodes bounds the searches that complete a won line to the five
	// (Result.PV; see mateLine). Not strength: the move is chosen before.
	LineNodes int
	// OneMoveDepth is the iteration after which a root with a single move
	// (a forced block) stops. Unmeasured.
	OneMoveDepth int

	// Late-move reductions: at nodes of at least LMRDepth plies left with
	// more than LMRMinMoves moves, a move from the LMRMove-th on (counted
	// from 0) that ranks below LMRQuiet (no three or four made or
	// blocked) is searched a ply shallower, two from the LMRDeepMove-th
	// on at nodes of at least LMRDeepDepth plies; a reduced move that
	// beats alpha is searched again at full depth. NoLMR turns them off.
	// TUNING.md: "a more aggressive LMR".
	NoLMR        bool
	LMRDepth     int
	LMRMove      int
	LMRMinMoves  int
	LMRQuiet     int32
	LMRDeepDepth int
	LMRDeepMove  int
	// Reverse futility pruning (a static null move): a node that is not
	// on the principal variation, with at most RFPDepth plies left
	// (0: off) and no threat of the opponent to answer (no five, four-three
	// or straight-four point), whose static evaluation beats beta by
	// RFPMargin a ply left returns that evaluation unsearched.
	// Razoring: such a node whose static evaluation falls RazorMargin a
	// ply left short of alpha, with at most RazorDepth plies left (0:
	// off), is judged at the horizon (its VCF, else that evaluation).
	// TUNING.md: "Cuts by the evaluation".
	RFPDepth, RFPMargin     int
	RazorDepth, RazorMargin int
	// Fail-high reduction: at a node off the principal variation, with at
	// least FHRDepth plies left and no threat of the opponent to answer,
	// whose static evaluation beats beta by FHRMargin a ply left (0: off),
	// every move but those that make a four is searched a ply shallower.
	// TUNING.md: "Fail-high reduction".
	FHRDepth, FHRMargin int
	// NoExtensions stops extending a forced block beyond the horizon (a
	// block costs no depth). Unmeasured (the slow twin turns it off).
	NoExtensions bool
	// PartialRoot plays the move of an iteration cut short by the clock
	// or the node limit when it beat the previous best move at the new
	// depth, both searched to the end, so that an iteration started late
	// is not thrown away (with TimeOptimum 0.85). TUNING.md: "An iteration
	// cut short".
	PartialRoot bool

	// Move ordering among the moves a node keeps (it changes the order,
	// never the set): the table's move first; the two killers (moves
	// that refuted a sibling) add KillerBonus[0] and [1], the history
	// (the sum of depth² over the cutoffs a move made, at most HistoryMax,
	// divided by 2^HistoryAging at each new search) adds up to HistoryCap,
	// all in 1/65,536 of a pattern point: they break ties of the pattern
	// score. TUNING.md: "Killers and history".
	KillerBonus  [2]int64
	HistoryCap   int32
	HistoryMax   int32
	HistoryAging int

	// TTAgeWeight: the table replaces, in a full bucket, the entry of
	// least depth − TTAgeWeight × its age in searches. Unmeasured.
	TTAgeWeight int

	// The learned models (SetPrior, SetValue). The prior ranks the moves
	// at the root and at nodes with at least PriorDepth plies left,
	// adding PriorWeight × its score (in [0, 1]) to a move's pattern
	// score; the value model adds ValueScale × (v − ½) to every
	// evaluation — or, with ValueLogit L > 0, ValueScale × z / 4, where z
	// is v's logit ln(v / (1 − v)) held within ±L: the same slope at
	// v = ½, but a value near 0 or 1 keeps telling positions apart
	// instead of flattening out. TUNING.md: the first "Kept" row
	// (PriorDepth), "the learned prior weighed 120 or 30" (PriorWeight),
	// "value scale" (ValueScale, ValueLogit).
	PriorDepth  int
	PriorWeight float64
	ValueScale  float64
	ValueLogit  float64

	// ShapeShare is the share of the hand-set shape evaluation (Weights'
	// Own, Their, OwnDouble and TheirDouble) kept beside a value model:
	// 1 all of it, 0 none (the value model and the tempo alone). Without
	// a value model the evaluation is the shapes'. The network predicts
	// the game from the same shapes and more, so the shapes added to it
	// count twice. TUNING.md: "The shapes beside the value network".
	ShapeShare float64

	// Weights are the evaluation's and the move ranking's numbers.
	// TUNING.md: "evaluation weights fitted to game results".
	Weights Weights

	// The time manager (time.go: the formulas). TimeReserve is kept back
	// from every limit for what a move costs outside the search, and
	// TimeMargin of the turn limit besides; TimeOptimum is the share of
	// the maximum after which no iteration starts when the turn limit
	// binds; TimeUnstable is what each recent change of the best move
	// adds to the optimum (as a share of it); a score fall of
	// TimeFallScale units doubles it, up to TimeFallMax times. Under a
	// match clock the time left is spread over our share of the
	// MatchPlies a game is expected to last, at least MatchMovesMin
	// moves, and a move takes at most 1/MatchMaxShare of it. TUNING.md:
	// "Time".
	TimeReserve   time.Duration
	TimeMargin    float64
	TimeOptimum   float64
	TimeUnstable  float64
	TimeFallScale int
	TimeFallMax   float64
	MatchPlies    int
	MatchMovesMin int
	MatchMaxShare int
}

// DefaultConfig is the engine's tuned configuration.
func DefaultConfig() Config {
	return Config{
		Threads:      1,
		TTBits:       18,
		VCFTableBits: 16,
		Width:        []int{1, 7, 8, 10, 11, 12, 13, 14},
		RootWidth:    24,
		NodeVCF:      300, LeafVCF: 60, NodeVCFDepth: 16,
		RootVCF: 50000, RootVCT: 40000, RootVCFDepth: 30, VCTDepth: 10,
		VCTVCFNodes: 2000, VCTVCFDepth: 20,
		ThreatShare: 4, ThreatNodesPerMS: 400,
		RootProof: 1_000_000, ProofMinNodes: 5000,
		ProofVCFNodes: 20, ProofVCFDepth: 20, ProofThreePN: 2, ProofQuietPN: 10, ProofForcedPN: 1,
		LineNodes:    20_000,
		OneMoveDepth: 2,
		LMRDepth:     3, LMRMove: 3, LMRMinMoves: 4, LMRQuiet: 40, LMRDeepDepth: 5, LMRDeepMove: 8,
		RFPDepth: 3, RFPMargin: 150, RazorDepth: 2, RazorMargin: 200, FHRDepth: 4, FHRMargin: 50,
		PartialRoot: true,
		KillerBonus: [2]int64{1 << 15, 1 << 14}, HistoryCap: 1 << 13, HistoryMax: 1 << 20, HistoryAging: 2,
		TTAgeWeight: 4,
		PriorDepth:  6, PriorWeight: 60, ValueScale: 3000, ShapeShare: 0.25,
		Weights: DefaultWeights(),

		TimeReserve: 30 * time.Millisecond, TimeMargin: 0.08, TimeOptimum: 0.85,
		TimeUnstable: 0.5, TimeFallScale: 200, TimeFallMax: 1.5,
		MatchPlies: 90, MatchMovesMin: 15, MatchMaxShare: 7,
	}
}

// Option is one knob of Config as a command line names it: NAME=VALUE.
type Option struct {
	Name     string
	Doc      string // what it is, with its unit and range
	get      func(*Config) string
	set      func(*Config, string) error
	min, max float64
}

// Options lists Config's knobs that can be set by name (Set): every
// number but the evaluation weights. Their documentation is the field's.
func Options() []Option { return options }

var options = []Option{
	intOpt("threads", "search threads (Lazy SMP)", 1, MaxThreads, func(c *Config) *int { return &c.Threads }),
	intOpt("ttbits", "log2 of the transposition table's buckets", 4, 28, func(c *Config) *int { return &c.TTBits }),
	intOpt("vcftablebits", "log2 of the no-VCF table's slots", 4, 26, func(c *Config) *int { return &c.VCFTableBits }),
	{Name: "width", Doc: "moves kept by remaining depth, slash-separated (1/7/8/…)", get: getWidth, set: setWidth, min: 1, max: maxMoves},
	intOpt("rootwidth", "moves kept at the root", 1, maxMoves, func(c *Config) *int { return &c.RootWidth }),
	intOpt("nodevcf", "VCF nodes at interior nodes (0: none)", 0, 1<<30, func(c *Config) *int { return &c.NodeVCF }),
	intOpt("leafvcf", "VCF nodes at the horizon (0: none)", 0, 1<<30, func(c *Config) *int { return &c.LeafVCF }),
	intOpt("nodevcfdepth", "attacking moves of the interior and horizon VCFs", 1, 64, func(c *Config) *int { return &c.NodeVCFDepth }),
	intOpt("rootvcf", "VCF nodes at the root (0: none)", 0, 1<<30, func(c *Config) *int { return &c.RootVCF }),
	intOpt("rootvct", "VCT nodes at the root (0: none)", 0, 1<<30, func(c *Config) *int { return &c.RootVCT }),
	intOpt("rootvcfdepth", "attacking moves of the root VCF", 1, 64, func(c *Config) *int { return &c.RootVCFDepth }),
	intOpt("vctdepth", "attacking moves of the root VCT", 1, 63, func(c *Config) *int { return &c.VCTDepth }),
	intOpt("vctvcfnodes", "nodes of each VCF inside the VCT (0: none)", 0, 1<<30, func(c *Config) *int { return &c.VCTVCFNodes }),
	intOpt("vctvcfdepth", "attacking moves of each VCF inside the VCT", 1, 64, func(c *Config) *int { return &c.VCTVCFDepth }),
	intOpt("threatshare", "a root threat search's share of the nodes or time is 1/N", 1, 1<<20, func(c *Config) *int { return &c.ThreatShare }),
	intOpt("threatnodesperms", "the threat searches' speed assumed, nodes a millisecond", 1, 1<<20, func(c *Config) *int { return &c.ThreatNodesPerMS }),
	intOpt("rootproof", "nodes of the root's proof-number search (0: none)", 0, 1<<30, func(c *Config) *int { return &c.RootProof }),
	intOpt("proofminnodes", "least budget the root's proof search is started with", 0, 1<<30, func(c *Config) *int { return &c.ProofMinNodes }),
	intOpt("proofvcfnodes", "nodes of each VCF inside the proof search", 1, 1<<30, func(c *Config) *int { return &c.ProofVCFNodes }),
	intOpt("proofvcfdepth", "attacking moves of each VCF inside the proof search", 1, 64, func(c *Config) *int { return &c.ProofVCFDepth }),
	intOpt("proofthreepn", "starting proof number of a three in the proof search", 1, 1000, func(c *Config) *int { return &c.ProofThreePN }),
	intOpt("proofquietpn", "starting proof number of the quiet moves in the proof search", 1, 1000, func(c *Config) *int { return &c.ProofQuietPN }),
	intOpt("proofforcedpn", "proof number a forced reply adds in the proof search", 0, 1000, func(c *Config) *int { return &c.ProofForcedPN }),
	intOpt("linenodes", "nodes to complete a won line", 0, 1<<30, func(c *Config) *int { return &c.LineNodes }),
	intOpt("onemovedepth", "iterations of a root with one move", 1, MaxDepth, func(c *Config) *int { return &c.OneMoveDepth }),
	boolOpt("lmr", "late-move reductions (1 on, 0 off)", func(c *Config) *bool { return &c.NoLMR }, true),
	intOpt("lmrdepth", "least depth left of a reduced node", 1, MaxDepth, func(c *Config) *int { return &c.LMRDepth }),
	intOpt("lmrmove", "first move (from 0) that may be reduced", 1, maxMoves, func(c *Config) *int { return &c.LMRMove }),
	intOpt("lmrminmoves", "a reduced node has more moves than this", 0, maxMoves, func(c *Config) *int { return &c.LMRMinMoves }),
	sizedIntOpt("lmrquiet", "moves ranked below this pattern score may be reduced", 0, 1<<20, func(c *Config) *int32 { return &c.LMRQuiet }),
	intOpt("lmrdeepdepth", "least depth left for a reduction of two", 1, MaxDepth, func(c *Config) *int { return &c.LMRDeepDepth }),
	intOpt("lmrdeepmove", "first move reduced by two", 1, maxMoves, func(c *Config) *int { return &c.LMRDeepMove }),
	intOpt("rfpdepth", "most plies left at which a node may be cut by its static evaluation (0: off)", 0, MaxDepth, func(c *Config) *int { return &c.RFPDepth }),
	intOpt("rfpmargin", "evaluation units over beta a ply left for that cut", 0, 1<<20, func(c *Config) *int { return &c.RFPMargin }),
	intOpt("fhrdepth", "least plies left at which a node likely to fail high searches its moves a ply shallower", 1, MaxDepth, func(c *Config) *int { return &c.FHRDepth }),
	intOpt("fhrmargin", "evaluation units over beta a ply left for that reduction (0: off)", 0, 1<<20, func(c *Config) *int { return &c.FHRMargin }),
	intOpt("razordepth", "most plies left at which a node short of alpha is judged at the horizon (0: off)", 0, MaxDepth, func(c *Config) *int { return &c.RazorDepth }),
	intOpt("razormargin", "evaluation units under alpha a ply left for that", 0, 1<<20, func(c *Config) *int { return &c.RazorMargin }),
	boolOpt("partialroot", "play a move that beat the best one in an iteration cut short (1 on, 0 off)", func(c *Config) *bool { return &c.PartialRoot }, false),
	boolOpt("extensions", "a forced block costs no depth (1 on, 0 off)", func(c *Config) *bool { return &c.NoExtensions }, true),
	sizedIntOpt("killer1", "ordering bonus of the first killer", 0, 1<<30, func(c *Config) *int64 { return &c.KillerBonus[0] }),
	sizedIntOpt("killer2", "ordering bonus of the second killer", 0, 1<<30, func(c *Config) *int64 { return &c.KillerBonus[1] }),
	sizedIntOpt("historycap", "most the history adds to a move's order", 0, 1<<30, func(c *Config) *int32 { return &c.HistoryCap }),
	sizedIntOpt("historymax", "most a move's history grows to", 0, 1<<30, func(c *Config) *int32 { return &c.HistoryMax }),
	intOpt("historyaging", "the history is divided by 2^N at each search", 0, 31, func(c *Config) *int { return &c.HistoryAging }),
	intOpt("ttageweight", "table replacement: depth − N × age", 0, 64, func(c *Config) *int { return &c.TTAgeWeight }),
	intOpt("priordepth", "least depth left at which the learned prior ranks moves", 0, MaxDepth, func(c *Config) *int { return &c.PriorDepth }),
	floatOpt("priorweight", "pattern points a prior of 1 adds to a move", 0, 1e6, func(c *Config) *float64 { return &c.PriorWeight }),
	floatOpt("valuescale", "evaluation units of a sure win over ½ (value model)", 0, 1e6, func(c *Config) *float64 { return &c.ValueScale }),
	floatOpt("shapeshare", "share of the hand-set shape evaluation kept beside a value model (1 all, 0 none)", 0, 1, func(c *Config) *float64 { return &c.ShapeShare }),
	floatOpt("valuelogit", "N > 0: the value model adds valuescale·z/4, z its logit held within ±N (0: valuescale·(v − ½))", 0, 30, func(c *Config) *float64 { return &c.ValueLogit }),
	msOpt("timereserve", "milliseconds kept back from every time limit", 0, 60_000, func(c *Config) *time.Duration { return &c.TimeReserve }),
	floatOpt("timemargin", "share of the turn limit kept back", 0, 0.9, func(c *Config) *float64 { return &c.TimeMargin }),
	floatOpt("timeoptimum", "share of the maximum after which no iteration starts", 0, 1, func(c *Config) *float64 { return &c.TimeOptimum }),
	floatOpt("timeunstable", "optimum's growth for each recent change of the best move", 0, 10, func(c *Config) *float64 { return &c.TimeUnstable }),
	intOpt("timefallscale", "a score fall of this many units doubles the optimum", 1, 1<<20, func(c *Config) *int { return &c.TimeFallScale }),
	floatOpt("timefallmax", "most the falling score multiplies the optimum by", 1, 10, func(c *Config) *float64 { return &c.TimeFallMax }),
	intOpt("matchplies", "plies a game is expected to last (match clock)", 1, 1000, func(c *Config) *int { return &c.MatchPlies }),
	intOpt("matchmovesmin", "least moves the time left is spread over", 1, 1000, func(c *Config) *int { return &c.MatchMovesMin }),
	intOpt("matchmaxshare", "a move takes at most 1/N of the time left", 1, 1000, func(c *Config) *int { return &c.MatchMaxShare }),
}

// MaxThreads bounds Config.Threads.
const MaxThreads = 256

// Set sets the knob name (see Options) from its text value; a value out
// of the knob's range is an error.
func (c *Config) Set(name, value string) error {
	for _, o := range options {
		if o.Name == name {
			if err := o.set(c, value); err != nil {
				return fmt.Errorf("search option %s=%s: %w", name, value, err)
			}
			return nil
		}
	}
	return fmt.Errorf("unknown search option %q", name)
}

// Get returns the knob name's value as Set reads it ("" for no such knob).
func (c *Config) Get(name string) string {
	for _, o := range options {
		if o.Name == name {
			return o.get(c)
		}
	}
	return ""
}

func inRange(v, lo, hi float64) error {
	if v < lo || v > hi {
		return fmt.Errorf("want %g to %g", lo, hi)
	}
	return nil
}

func intOpt(name, doc string, lo, hi int, f func(*Config) *int) Option {
	return Option{Name: name, Doc: doc, min: float64(lo), max: float64(hi),
		get: func(c *Config) string { return strconv.Itoa(*f(c)) },
		set: func(c *Config, s string) error {
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("want an integer")
			}
			if err := inRange(float64(n), float64(lo), float64(hi)); err != nil {
				return err
			}
			*f(c) = n
			return nil
		}}
}

// sizedIntOpt is intOpt for a field of another integer type.
func sizedIntOpt[T int32 | int64](name, doc string, lo, hi int, f func(*Config) *T) Option {
	var n int
	o := intOpt(name, doc, lo, hi, func(*Config) *int { return &n })
	get, set := o.get, o.set
	o.get = func(c *Config) string { n = int(*f(c)); return get(c) }
	o.set = func(c *Config, s string) error {
		if err := set(c, s); err != nil {
			return err
		}
		*f(c) = T(n)
		return nil
	}
	return o
}

// msOpt is a duration knob in whole milliseconds.
func msOpt(name, doc string, lo, hi int, f func(*Config) *time.Duration) Option {
	var n int
	o := intOpt(name, doc, lo, hi, func(*Config) *int { return &n })
	get, set := o.get, o.set
	o.get = func(c *Config) string { n = int(f(c).Milliseconds()); return get(c) }
	o.set = func(c *Config, s string) error {
		if err := set(c, s); err != nil {
			return err
		}
		*f(c) = time.Duration(n) * time.Millisecond
		return nil
	}
	return o
}

func floatOpt(name, doc string, lo, hi float64, f func(*Config) *float64) Option {
	return Option{Name: name, Doc: doc, min: lo, max: hi,
		get: func(c *Config) string { return strconv.FormatFloat(*f(c), 'g', -1, 64) },
		set: func(c *Config, s string) error {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("want a number")
			}
			if err := inRange(v, lo, hi); err != nil {
				return err
			}
			*f(c) = v
			return nil
		}}
}

// boolOpt is an on/off knob, 1 or 0; negated: the field says "No…" and
// 1 (on) stores false.
func boolOpt(name, doc string, f func(*Config) *bool, negated bool) Option {
	return Option{Name: name, Doc: doc, min: 0, max: 1,
		get: func(c *Config) string {
			if *f(c) != negated {
				return "1"
			}
			return "0"
		},
		set: func(c *Config, s string) error {
			switch s {
			case "0", "1":
				*f(c) = (s == "1") != negated
				return nil
			}
			return fmt.Errorf("want 1 (on) or 0 (off)")
		}}
}

func getWidth(c *Config) string {
	s := make([]string, len(c.Width))
	for i, w := range c.Width {
		s[i] = strconv.Itoa(w)
	}
	return strings.Join(s, "/")
}

func setWidth(c *Config, s string) error {
	var w []int
	for _, f := range strings.Split(s, "/") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > maxMoves {
			return fmt.Errorf("want moves by depth, each 1 to %d, slash-separated (1/7/8/10)", maxMoves)
		}
		w = append(w, n)
	}
	c.Width = w
	return nil
}
