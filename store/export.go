package store

import "strconv"

// ExportHeader is the first line of Export's output.
const ExportHeader = "key,mx,my,wsum,games,blacklisted,position_games"

// Generation is one learning-loop generation's record.
type Generation struct {
	Gen        int     // generation number, unique
	Games      int64   // self-play games of the generation
	Rows       int64   // training rows the forest was fit on
	FitSeconds float64 // forest fit wall time, seconds
	AUC        float64 // forest ROC AUC on held-out rows
	Score      float64 // match score against the previous generation, [0, 1]
	ScoreLow   float64 // 95% interval of Score
	ScoreHigh  float64
	Model      string // model file path
	Seed       int64  // seed of the generation
	Created    string // RFC 3339 UTC; set by AddGeneration when empty
	Details    string // the learning loop's measurements, JSON (package loop); "" for the v1 loop
}

// exportRecord fills rec with m's columns of ExportHeader.
func ExportRecord(rec []string, m MoveStat) []string {
	rec[0] = m.Key
	rec[1] = strconv.Itoa(int(m.Move.X))
	rec[2] = strconv.Itoa(int(m.Move.Y))
	rec[3] = strconv.FormatInt(m.WSum, 10)
	rec[4] = strconv.FormatInt(m.Games, 10)
	rec[5] = "0"
	if m.Blacklisted {
		rec[5] = "1"
	}
	rec[6] = strconv.FormatInt(m.PositionGames, 10)
	return rec
}
