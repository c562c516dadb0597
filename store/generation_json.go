package store

import "encoding/json"

// generationJSON is a Generation in JSON ("train stats -json", the
// dashboard): Details, the learning loop's measurements, as the JSON
// object it is.
type generationJSON struct {
	Gen        int             `json:"gen"`
	Games      int64           `json:"games"`
	Rows       int64           `json:"rows"`
	FitSeconds float64         `json:"fit_seconds"`
	AUC        float64         `json:"auc"`
	Score      float64         `json:"score"`
	ScoreLow   float64         `json:"score_low"`
	ScoreHigh  float64         `json:"score_high"`
	Model      string          `json:"model"`
	Seed       int64           `json:"seed"`
	Created    string          `json:"created"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// MarshalJSON writes g with snake_case names and Details inline (left out
// when it is not JSON).
func (g Generation) MarshalJSON() ([]byte, error) {
	j := generationJSON{g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model, g.Seed, g.Created, nil}
	if g.Details != "" && json.Valid([]byte(g.Details)) {
		j.Details = json.RawMessage(g.Details)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (g *Generation) UnmarshalJSON(b []byte) error {
	var j generationJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*g = Generation{j.Gen, j.Games, j.Rows, j.FitSeconds, j.AUC, j.Score, j.ScoreLow, j.ScoreHigh, j.Model, j.Seed, j.Created, string(j.Details)}
	return nil
}
