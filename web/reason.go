package web

import (
	"fmt"
	"slices"
	"strings"

	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/search"
)

// explain says in a player's words what a stone of the side to move at
// empty cell q does on pos: the threat it makes ("makes a four-three")
// and the opponent's threats it stops ("blocks White's open three f7 g7
// h7"). It is "" for a quiet move. pos is not changed.
func explain(pos *patterns.Position, q gomoku.Point) string {
	if pos.Board().At(q) != gomoku.Empty {
		return ""
	}
	me := pos.Board().ToMove()
	var parts []string
	if a := attack(pos.Summary(q, me)); a != "" {
		parts = append(parts, a)
	}
	parts = append(parts, defence(pos, q, me.Other())...)
	return strings.Join(parts, "; ")
}

// attack names the strongest threat a stone makes.
func attack(s patterns.Summary) string {
	switch {
	case s.Fives > 0:
		return "makes five"
	case s.Best == patterns.StraightFour:
		return "makes an open four"
	case s.Fours >= 2 || s.Best == patterns.DoubleFour:
		return "makes a double four"
	case s.Fours == 1 && s.Threes >= 1:
		return "makes a four-three"
	case s.Threes >= 2:
		return "makes a double three"
	case s.Fours == 1:
		return "makes a four"
	case s.Threes == 1 && slices.Contains(s.Shapes[:], patterns.OpenThree):
		return "makes an open three"
	case s.Threes == 1:
		return "makes a broken three"
	case s.Best == patterns.ClosedThree:
		return "makes a closed three"
	case s.Best == patterns.Two:
		return "builds a two"
	}
	return ""
}

// defence names the threats of opp that a stone at q stops: its fours and
// threes on the board whose defence cells hold q, and its double-threat
// points taken.
func defence(pos *patterns.Position, q gomoku.Point, opp gomoku.Player) []string {
	who := colourName(opp)
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, t := range pos.Threats(nil, opp) {
		if !slices.Contains(t.Defence(), q) {
			continue
		}
		stones := pointList(t.Stones())
		switch {
		case t.Shape == patterns.Four:
			add(fmt.Sprintf("blocks %s's four %s", who, stones))
		case t.Shape == patterns.StraightFour:
			add(fmt.Sprintf("meets %s's open four %s (too late)", who, stones))
		case t.Shape == patterns.DoubleFour:
			add(fmt.Sprintf("stops %s's double four at %s", who, pointList(t.Points())))
		case t.Shape == patterns.OpenThree:
			add(fmt.Sprintf("blocks %s's open three %s", who, stones))
		case t.Shape == patterns.BrokenThree:
			add(fmt.Sprintf("blocks %s's broken three %s", who, stones))
		}
	}
	if len(out) > 0 {
		return out
	}
	switch s := pos.Summary(q, opp); {
	case pos.Has(q, patterns.MakesWin, opp):
		add(fmt.Sprintf("takes %s's open-four point", who))
	case pos.Has(q, patterns.MakesDouble, opp) && s.Fours > 0:
		add(fmt.Sprintf("takes %s's four-three point", who))
	case pos.Has(q, patterns.MakesDouble, opp):
		add(fmt.Sprintf("takes %s's double-three point", who))
	case s.Fours > 0:
		add(fmt.Sprintf("takes %s's four point", who))
	case s.Threes > 0:
		add(fmt.Sprintf("takes %s's three point", who))
	}
	return out
}

// verdict is the search's judgement in a player's words, with the line
// when it found a forced win or loss; "" when it has nothing decisive to
// say.
func verdict(r search.Result) string {
	line := pointList(r.PV)
	switch {
	case strings.HasPrefix(r.Reason, "wins by continuous fours"):
		return fmt.Sprintf("wins by VCF in %d: %s", len(r.PV), line)
	case strings.HasPrefix(r.Reason, "wins by continuous threats"):
		return fmt.Sprintf("wins by VCT in %d: %s", len(r.PV), line)
	case search.IsMate(r.Score) && r.Score > 0 && r.Reason != "makes five":
		return fmt.Sprintf("wins in %d: %s", search.MatePlies(r.Score), line)
	case search.IsMate(r.Score) && r.Score < 0:
		return fmt.Sprintf("every move loses, in %d at best: %s", -search.MatePlies(r.Score), line)
	}
	return ""
}

// moveReason is the reason shown for a move the search chose: what the
// stone does, then the search's verdict; a quiet move without a verdict
// says how the search ranked it.
func moveReason(pos *patterns.Position, r search.Result) string {
	parts := []string{}
	if e := explain(pos, r.Move); e != "" {
		parts = append(parts, e)
	}
	switch v := verdict(r); {
	case v != "":
		parts = append(parts, v)
	case r.Depth > 0:
		parts = append(parts, fmt.Sprintf("the search's choice at depth %d: %s %s", r.Depth, colourName(pos.Board().ToMove()), scoreWords(r.Score)))
	case len(parts) == 0 && r.Reason != "":
		parts = append(parts, r.Reason)
	}
	return strings.Join(parts, "; ")
}

// scoreWords says a non-mate score from the mover's view in words, as
// "stands better".
func scoreWords(score int) string {
	return "stands " + standing(score)
}

func standing(score int) string {
	switch {
	case score >= 1000:
		return "clearly better"
	case score >= 400:
		return "better"
	case score >= 150:
		return "slightly better"
	case score > -150:
		return "about even"
	case score > -400:
		return "slightly worse"
	case score > -1000:
		return "worse"
	}
	return "clearly worse"
}

func colourName(p gomoku.Player) string {
	if p == gomoku.White {
		return "White"
	}
	return "Black"
}

func pointList(ps []gomoku.Point) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, " ")
}
