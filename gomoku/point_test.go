package gomoku

import (
	"encoding/json"
	"testing"
)

// TestRuleText: a rule reads and writes as its name in JSON (and flags,
// through encoding.TextUnmarshaler); an unknown name or rule is an error.
func TestRuleText(t *testing.T) {
	type cfg struct {
		Rule Rule `json:"rule"`
	}
	for r := range NumRules {
		b, err := json.Marshal(cfg{r})
		if err != nil || string(b) != `{"rule":"`+r.String()+`"}` {
			t.Fatalf("%v: %s, %v", r, b, err)
		}
		var back cfg
		if err := json.Unmarshal(b, &back); err != nil || back.Rule != r {
			t.Fatalf("%s read back as %v, %v", b, back.Rule, err)
		}
	}
	var c cfg
	if err := json.Unmarshal([]byte(`{"rule":"caro"}`), &c); err == nil {
		t.Error("caro read as a rule")
	}
	if _, err := json.Marshal(cfg{NumRules}); err == nil {
		t.Error("rule(3) written")
	}
}
