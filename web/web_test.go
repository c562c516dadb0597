package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"ocvist/arena"
	"ocvist/canon"
	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/internal/pgtest"
	"ocvist/openings"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/store"
	"ocvist/store/backend"
	"ocvist/store/postgres"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

// testNodes bounds the tests' searches: fast and deterministic.
const testNodes = 20_000

func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.Nodes == 0 {
		cfg.Nodes = testNodes
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); ts.CloseClientConnections(); ts.Close() })
	return srv, ts
}

// call sends a JSON request and decodes the JSON answer into out (when
// not nil); it returns the status and, for an error status, the message.
func call(t *testing.T, ts *httptest.Server, method, path, body string, out any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 400 {
		var e struct{ Error string }
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s %s: status %d with a body that is not an error object: %q", method, path, res.StatusCode, b)
		}
		return res.StatusCode, e.Error
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, path, err, b)
		}
	}
	return res.StatusCode, ""
}

// streamEvents posts to an event-stream endpoint and returns its events.
func streamEvents(t *testing.T, ts *httptest.Server, path, body string) []event {
	t.Helper()
	res, err := ts.Client().Post(ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
	}
	var evs []event
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	var cur event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		case line == "":
			evs = append(evs, cur)
			cur = event{}
		}
	}
	return evs
}

type event struct{ name, data string }

func mustPoint(s string) gomoku.Point {
	p, err := gomoku.ParsePoint(s)
	if err != nil {
		panic(err)
	}
	return p
}

func playMoves(t *testing.T, moves ...string) *patterns.Position {
	t.Helper()
	pos := patterns.NewPosition(gomoku.Options{})
	for _, m := range moves {
		if err := pos.Play(mustPoint(m)); err != nil {
			t.Fatal(m, err)
		}
	}
	return pos
}

func TestExplain(t *testing.T) {
	tests := []struct {
		name  string
		moves string // alternately Black, White
		play  string
		want  string
	}{
		{"five", "h8 a1 i8 c1 j8 e1 k8 o15", "g8", "makes five"},
		{"open four", "h8 a1 i8 c1 j8 e1", "k8", "makes an open four"},
		{"four-three", "h8 g8 i8 a1 j8 c1 k9 e1 k10 o15", "k8", "makes a four-three"},
		{"double three", "i9 a1 j9 c1 k10 e1 k11 o15", "k9", "makes a double three"},
		{"open three", "h8 a1 i8 c1", "j8", "makes an open three"},
		{"broken three", "h8 a1 i8 c1", "k8", "makes a broken three"},
		{"blocks an open three", "a1 i9 c1 j9 e1 k9", "h9", "blocks White's open three i9 j9 k9"},
		{"blocks a four", "m9 i9 a1 j9 c1 k9 e1 l9", "h9", "blocks White's four i9 j9 k9 l9"},
		{"four and a block", "h10 i9 h11 j9 h12 k9 a1 h13", "h9", "makes a four; blocks White's open three i9 j9 k9"},
		{"quiet", "h8 a1", "c14", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := playMoves(t, strings.Fields(tt.moves)...)
			if got := explain(pos, mustPoint(tt.play)); got != tt.want {
				t.Errorf("explain %s = %q, want %q\n%s", tt.play, got, tt.want, pos.Board())
			}
		})
	}
}

func newGame(t *testing.T, ts *httptest.Server, body string) GameJSON {
	t.Helper()
	var g GameJSON
	if code, msg := call(t, ts, "POST", "/api/games", body, &g); code != 200 {
		t.Fatalf("new game %s: %d %s", body, code, msg)
	}
	return g
}

const humanVsSearch = `{"black":{"agent":"human"},"white":{"agent":"search"}}`

// TestEngineMove: the engine answers a person's move with its move, the
// stream's iterations and the reason; a win on the board ends the game.
func TestEngineMove(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := newGame(t, ts, `{"black":{"agent":"search"},"white":{"agent":"human"},"moves":["h8","a1","i8","c1","j8","e1"]}`)
	evs := streamEvents(t, ts, "/api/games/"+g.ID+"/engine", "{}")
	last := evs[len(evs)-1]
	if last.name != "done" {
		t.Fatalf("last event %+v", last)
	}
	var done GameJSON
	json.Unmarshal([]byte(last.data), &done)
	if got := done.Moves[len(done.Moves)-1]; got != "g8" && got != "k8" {
		t.Errorf("engine played %s, want the open four at g8 or k8", got)
	}
	if want := "makes an open four; wins in 3: "; !strings.HasPrefix(done.Last.Reason, want) || len(done.Last.PV) != 3 {
		t.Errorf("reason %q, PV %v; want %q… and a 3-move line", done.Last.Reason, done.Last.PV, want)
	}
	call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"a2"}`, nil)
	evs = streamEvents(t, ts, "/api/games/"+g.ID+"/engine", "{}")
	json.Unmarshal([]byte(evs[len(evs)-1].data), &done)
	if !done.Over || done.Winner != "x" || done.Result != "Black wins: five" || len(done.WinLine) != 5 {
		t.Errorf("game after the five: over %v winner %q result %q line %v", done.Over, done.Winner, done.Result, done.WinLine)
	}
}

// TestDeterministic: node-limited games are the same game twice.
func TestDeterministic(t *testing.T) {
	play := func() []string {
		_, ts := newTestServer(t, Config{})
		g := newGame(t, ts, humanVsSearch)
		for _, m := range []string{"h8", "h9", "h10"} {
			if code, msg := call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"`+m+`"}`, nil); code != 200 {
				if strings.Contains(msg, "occupied") {
					continue
				}
				t.Fatal(msg)
			}
			streamEvents(t, ts, "/api/games/"+g.ID+"/engine", "{}")
		}
		call(t, ts, "GET", "/api/games/"+g.ID, "", &g)
		return g.Moves
	}
	a, b := play(), play()
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("two runs: %v and %v", a, b)
	}
}

func TestBadInput(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := newGame(t, ts, humanVsSearch)
	call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"h8"}`, nil)
	over := newGame(t, ts, `{"black":{"agent":"human"},"white":{"agent":"human"},"moves":["h8","a1","i8","a2","j8","a3","k8","a4","l8"]}`)
	tests := []struct {
		name, method, path, body string
		code                     int
		msg                      string
	}{
		{"malformed move", "POST", "/api/games/" + g.ID + "/move", `{"move":"z99"}`, 400, `move "z99": `},
		{"no move", "POST", "/api/games/" + g.ID + "/move", `{"mvoe":"h8"}`, 400, `bad request body: json: unknown field "mvoe"`},
		{"not JSON", "POST", "/api/games/" + g.ID + "/move", `h8`, 400, "bad request body: invalid character 'h'"},
		{"engine's turn", "POST", "/api/games/" + g.ID + "/move", `{"move":"h9"}`, 409, "move h9: it is White's turn, played by search"},
		{"game over", "POST", "/api/games/" + over.ID + "/move", `{"move":"o15"}`, 409, "move o15: the game is over (Black wins: five)"},
		{"engine on a person's turn", "POST", "/api/games/" + over.ID + "/engine", `{}`, 409, "engine: the game is over (Black wins: five)"},
		{"no game", "GET", "/api/games/g999", "", 404, `no game "g999"`},
		{"no endpoint", "GET", "/api/nothing", "", 404, "no such endpoint: GET /api/nothing"},
		{"unknown rule", "POST", "/api/games", `{"rule":"caro"}`, 400, `unknown rule "caro" (want freestyle, standard or renju)`},
		{"unknown agent", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"alphazero"}}`, 400, `white: unknown player "alphazero" (want human or one of search, forest, patterns)`},
		{"bad model", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"search","model":"0/3"}}`, 400, `white: model "0/3": no database 0 (the server shows 0)`},
		{"move time", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"search"},"move_time_ms":999999}`, 400, "move time 999999 ms: want 50 to 60000"},
		{"occupied set-up", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"human"},"moves":["h8","h8"]}`, 400, "move 2 h8: cell is occupied"},
		{"set-up past the end", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"human"},"moves":["h8","a1","i8","a2","j8","a3","k8","a4","l8","a5"]}`, 400, "move 10 a5: the game was over after move 9 (Black wins: five)"},
		{"SGF of go", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"human"},"sgf":"(;FF[4]GM[1]SZ[19];B[pd];W[dp])"}`, 400, "SGF: game 1: offset 7: GM[1]: not a gomoku game"},
		{"SGF of 19x19", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"human"},"sgf":"(;FF[4]GM[4]SZ[19];B[jj])"}`, 400, "SGF: game 1: offset 12: SZ[19]: board size must be 15"},
		{"SGF of nothing", "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"human"},"sgf":"hello"}`, 400, "SGF: game 1: offset 0: want '(', found 'h'"},
		{"analyse past the end", "POST", "/api/games/" + g.ID + "/analyse", `{"ply":7}`, 400, "analyse: ply 7: the game has 1 moves"},
		{"analyse a won position", "POST", "/api/games/" + over.ID + "/analyse", `{}`, 409, "analyse: the game is over at move 9"},
		{"no database", "GET", "/api/dbs/0", "", 404, `no database "0" (the server shows 0)`},
		{"POST the page", "POST", "/index.html", `{}`, 405, "POST /index.html: the page is read with GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := call(t, ts, tt.method, tt.path, tt.body, nil)
			if code != tt.code || !strings.HasPrefix(msg, tt.msg) {
				t.Errorf("%d %q, want %d %q…", code, msg, tt.code, tt.msg)
			}
		})
	}
	var after GameJSON
	call(t, ts, "GET", "/api/games/"+g.ID, "", &after)
	if strings.Join(after.Moves, " ") != "h8" {
		t.Errorf("the bad requests changed the game: %v", after.Moves)
	}
	t.Run("form post", func(t *testing.T) {
		res, err := ts.Client().Post(ts.URL+"/api/games", "application/x-www-form-urlencoded", strings.NewReader("rule=freestyle"))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("a form post: %d", res.StatusCode)
		}
	})
	t.Run("foreign host", func(t *testing.T) {
		req, _ := http.NewRequest("GET", ts.URL+"/api/config", nil)
		req.Host = "evil.example:80"
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 403 || !strings.Contains(string(b), `host \"evil.example:80\" refused`) {
			t.Errorf("%d %s", res.StatusCode, b)
		}
	})
}

func TestUndoResign(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := newGame(t, ts, humanVsSearch)
	call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"h8"}`, nil)
	streamEvents(t, ts, "/api/games/"+g.ID+"/engine", "{}")
	var u GameJSON
	call(t, ts, "POST", "/api/games/"+g.ID+"/undo", "{}", &u)
	if len(u.Moves) != 0 || u.ToMove != "x" {
		t.Errorf("after undo: %v, %q to move; want the empty board, Black to move", u.Moves, u.ToMove)
	}
	if code, msg := call(t, ts, "POST", "/api/games/"+g.ID+"/undo", "{}", nil); code != 409 || msg != "undo: no move to take back" {
		t.Errorf("undo on the empty board: %d %q", code, msg)
	}
	call(t, ts, "POST", "/api/games/"+g.ID+"/resign", "{}", &u)
	if !u.Over || u.Winner != "o" || u.Result != "Black resigned" {
		t.Errorf("after resigning: %+v", u)
	}
	if code, msg := call(t, ts, "POST", "/api/games/"+g.ID+"/resign", "{}", nil); code != 409 || msg != "resign: the game is over (Black resigned)" {
		t.Errorf("resign twice: %d %q", code, msg)
	}
}

func TestSGFRoundTrip(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := newGame(t, ts, `{"rule":"standard","black":{"agent":"human"},"white":{"agent":"human"},"moves":["h8","h9","i9","g7"]}`)
	res, err := ts.Client().Get(ts.URL + "/api/games/" + g.ID + "/sgf")
	if err != nil {
		t.Fatal(err)
	}
	sgf, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body, _ := json.Marshal(map[string]any{"black": Player{Agent: "human"}, "white": Player{Agent: "human"}, "sgf": string(sgf)})
	back := newGame(t, ts, string(body))
	if strings.Join(back.Moves, " ") != "h8 h9 i9 g7" || back.Rule != "standard" || back.Book != 4 {
		t.Errorf("loaded back %v %s book %d from\n%s", back.Moves, back.Rule, back.Book, sgf)
	}
}

// TestQueue: a full queue refuses at once; a waiter gets the slot.
func TestQueue(t *testing.T) {
	e := newEngines(Config{MaxSearches: 1, MaxQueue: 1})
	sl := <-e.slots // every slot taken
	got := make(chan error)
	go func() {
		s, err := e.acquire(context.Background())
		if err == nil {
			e.slots <- s
		}
		got <- err
	}()
	for e.waiting.Load() != 1 {
		runtime.Gosched()
	}
	if _, err := e.acquire(context.Background()); !errors.Is(err, ErrBusy) {
		t.Errorf("a second waiter: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.slots <- sl
	if err := <-got; err != nil {
		t.Errorf("the waiter: %v", err)
	}
	sl = <-e.slots
	if _, err := e.acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled waiter: %v", err)
	}
}

// testGame is a small finished game for a database (its key need only be
// a well-formed one).
func testGame(i int) store.Game {
	b := gomoku.New(gomoku.Options{})
	b.Play(gomoku.Pt(i%15, i/15%15))
	k := canon.Of(b)
	return store.Game{Records: []store.Record{{Key: k.Key, Move: canon.Move{X: 1, Y: 0}, Weight: 1}}, Result: 1}
}

// addGames merges n games into the database at path (created if need be).
func addGames(t testing.TB, path string, n int) {
	t.Helper()
	db, err := sqlite.Open(path, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := shard.NewBatch()
	for i := range n {
		if err := b.Add(testGame(i)); err != nil {
			t.Fatal(err)
		}
	}
	shard, err := b.WriteShard(context.Background(), t.TempDir(), store.DefaultConfig(gomoku.Freestyle), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(context.Background(), shard); err != nil {
		t.Fatal(err)
	}
}

// addGeneration records generation gen with learning-loop details.
func addGeneration(t testing.TB, path string, gen int, score float64) {
	t.Helper()
	db, err := sqlite.Open(path, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	det := fmt.Sprintf(`{"gen":%d,"top1":%.2f,"auc":0.7,"value_auc":0.6,"policy_model":"models/gen-%03d.policy.ocf","value_model":"models/gen-%03d.value.ocf","anchors":[{"against":"random","elo":%d,"elo_low":0,"elo_high":400}],"adopted":true}`,
		gen, 0.3+0.05*float64(gen), gen, gen, 100*gen)
	g := store.Generation{Gen: gen, Games: int64(100 * gen), Rows: 1000, Score: score, ScoreLow: score - 0.1, ScoreHigh: score + 0.1, Seed: 7, Details: det}
	if err := db.AddGeneration(context.Background(), g); err != nil {
		t.Fatal(err)
	}
}

func TestDashboard(t *testing.T) {
	dir := t.TempDir()
	good, foreign, missing := filepath.Join(dir, "ocvist.db"), filepath.Join(dir, "notes.txt"), filepath.Join(dir, "later.db")
	addGames(t, good, 30)
	addGeneration(t, good, 1, 0.6)
	os.WriteFile(foreign, []byte("shopping list\n"), 0o644)
	_, ts := newTestServer(t, Config{DBs: []string{good, foreign, missing}, Poll: 1})
	var snaps []Snapshot
	call(t, ts, "GET", "/api/dbs", "", &snaps)
	if s := snaps[0]; s.Error != "" || s.Games != 30 || s.Rule != "freestyle" || len(s.Generations) != 1 || s.Generations[0].Score != 0.6 {
		t.Errorf("the database: %+v", s)
	}
	if m := snaps[0].Models; len(m) != 1 || m[0].Ref != "0/1" || m[0].Ready || m[0].Value == "" {
		t.Errorf("models %+v: want generation 1's, not ready (no files)", m)
	}
	if e := snaps[1].Error; !strings.Contains(e, "not an Ocvist database") || !strings.Contains(e, foreign) {
		t.Errorf("a foreign file: %q", e)
	}
	if e := snaps[2].Error; e != "database "+missing+": no such file (waiting for it to appear)" {
		t.Errorf("a missing file: %q", e)
	}
	addGames(t, good, 12)
	before := fileStates(t, dir)
	var s Snapshot
	call(t, ts, "GET", "/api/dbs/0", "", &s)
	if s.Games != 42 {
		t.Errorf("after 12 more games: %d", s.Games)
	}
	after := fileStates(t, dir)
	for name, st := range before {
		if after[name] != st {
			t.Errorf("%s changed while the dashboard read it", name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("reading made files: %v, before %v", after, before)
	}
	for _, suffix := range []string{"", ".lock"} {
		os.Remove(good + suffix)
	}
	os.RemoveAll(good + ".young")
	call(t, ts, "GET", "/api/dbs/0", "", &s)
	if s.Error != "database "+good+" vanished (no such file)" || s.Games != 42 {
		t.Errorf("a vanished database: %q, %d games", s.Error, s.Games)
	}
	if code, msg := call(t, ts, "POST", "/api/games", `{"black":{"agent":"human"},"white":{"agent":"search","model":"0/1"}}`, nil); code != 400 ||
		!strings.HasPrefix(msg, "white: model 0/1: database "+good+" vanished") {
		t.Errorf("playing a vanished database's model: %d %q", code, msg)
	}
}

// fileStates maps the files under dir to their size and modification time.
func fileStates(t *testing.T, dir string) map[string]string {
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			m[p] = fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return m
}

func TestFlagsPublic(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8080": false, "localhost:0": false, "[::1]:80": false, "0.0.0.0:8080": true, ":8080": true, "192.0.2.7:80": true} {
		if got := (&Flags{Addr: addr}).Public(); got != want {
			t.Errorf("%s: public %v", addr, got)
		}
	}
}

// TestDashboardPostgres: a PostgreSQL database on the dashboard, with a
// generation's models stored in it, played against. It runs against the
// server .ci/run starts (OCVIST_TEST_POSTGRES) and skips without one.
func TestDashboardPostgres(t *testing.T) {
	ctx := context.Background()
	u := pgtest.SchemaURL(t)
	pg, err := postgres.Open(ctx, u, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	b := shard.NewBatch()
	for i := range 25 {
		b.Add(testGame(i))
	}
	shard, err := b.WriteShard(ctx, t.TempDir(), store.DefaultConfig(gomoku.Freestyle), nil)
	if err == nil {
		_, err = pg.Merge(ctx, shard)
	}
	if err == nil {
		err = pg.PutModel(ctx, 1, store.RolePolicy, data.Model)
	}
	if err == nil {
		err = pg.PutModel(ctx, 1, store.RoleValue, data.Value)
	}
	if err == nil {
		err = pg.AddGeneration(ctx, store.Generation{Gen: 1, Games: 25, Score: 0.6, Details: `{"gen":1,"top1":0.4}`})
	}
	pg.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Config{DBs: []string{u}})
	var s Snapshot
	call(t, ts, "GET", "/api/dbs/0", "", &s)
	if s.Error != "" || s.Games != 25 || len(s.Generations) != 1 || len(s.Models) != 1 || !s.Models[0].Ready || s.Models[0].Value != "stored" {
		t.Fatalf("snapshot %+v", s)
	}
	if strings.Contains(s.Name, "password") || s.Name != backend.Redact(u) {
		t.Errorf("name %q shows the URL unmasked", s.Name)
	}
	g := newGame(t, ts, `{"black":{"agent":"human"},"white":{"agent":"search","model":"0/1"}}`)
	call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"h8"}`, nil)
	evs := streamEvents(t, ts, "/api/games/"+g.ID+"/engine", "{}")
	if evs[len(evs)-1].name != "done" {
		t.Errorf("the stored model's engine: %+v", evs[len(evs)-1])
	}
}

// TestSearchStops: a search ends when its page goes away (the request's
// context), without playing its move, and a person's move on the game
// stops an analysis running on it.
func TestSearchStops(t *testing.T) {
	srv, err := New(Config{AnalyseTime: time.Hour}) // time-limited: these searches would run for a minute or an hour
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer func() { srv.Close(); ts.CloseClientConnections(); ts.Close() }()
	g := newGame(t, ts, `{"black":{"agent":"human"},"white":{"agent":"search"},"move_time_ms":60000}`)
	call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"h8"}`, nil)
	waitIdle := func() {
		deadline := time.Now().Add(time.Minute)
		for srv.eng.running.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the search still runs a minute after its request ended")
			}
			time.Sleep(time.Millisecond)
		}
	}
	for _, path := range []string{"/engine", "/analyse"} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/games/"+g.ID+path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() && sc.Text() != "event: info" {
		}
		if path == "/analyse" { // a move on the game stops it
			if code, msg := call(t, ts, "POST", "/api/games/"+g.ID+"/undo", `{}`, nil); code != 200 {
				t.Fatalf("undo during the analysis: %d %s", code, msg)
			}
		}
		cancel()
		res.Body.Close()
		waitIdle()
	}
	var after GameJSON
	call(t, ts, "GET", "/api/games/"+g.ID, "", &after)
	if len(after.Moves) != 0 {
		t.Errorf("moves after a cancelled engine move and an undo: %v, want none", after.Moves)
	}
}

func TestVerdict(t *testing.T) {
	pv := []gomoku.Point{mustPoint("h8"), mustPoint("h9"), mustPoint("i8")}
	tests := []struct {
		r    search.Result
		want string
	}{
		{search.Result{Reason: "wins by continuous fours (VCF) in 3", PV: pv, Score: search.Mate - 3}, "wins by VCF in 3: h8 h9 i8"},
		{search.Result{Reason: "wins by continuous threats (VCT) in 3", PV: pv, Score: search.Mate - 3}, "wins by VCT in 3: h8 h9 i8"},
		{search.Result{Reason: "wins in 3 (search depth 5)", PV: pv, Score: search.Mate - 3, Depth: 5}, "wins in 3: h8 h9 i8"},
		{search.Result{Reason: "every move loses", PV: pv, Score: -(search.Mate - 4), Depth: 5}, "every move loses, in 4 at best: h8 h9 i8"},
		{search.Result{Reason: "makes five", PV: pv[:1], Score: search.Mate - 1}, ""},
		{search.Result{Reason: "search depth 5, score +20", PV: pv, Score: 20, Depth: 5}, ""},
	}
	for _, tt := range tests {
		if got := verdict(tt.r); got != tt.want {
			t.Errorf("verdict(%q) = %q, want %q", tt.r.Reason, got, tt.want)
		}
	}
	pos := playMoves(t, "h8", "a1")
	r := search.Result{Move: mustPoint("i9"), Score: 500, Depth: 7, PV: pv}
	if got, want := moveReason(pos, r), "builds a two; the search's choice at depth 7: Black stands better"; got != want {
		t.Errorf("moveReason = %q, want %q", got, want)
	}
}

// TestRenjuForbidden: under renju with Black to move the game lists
// Black's forbidden points (a double three here), and a move on one is
// refused with the referee's reason, changing nothing.
func TestRenjuForbidden(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	var setup []string
	for _, xy := range [][2]int{{7, 6}, {0, 0}, {7, 7}, {0, 2}, {5, 8}, {0, 4}, {6, 8}, {0, 6}} {
		setup = append(setup, `"`+gomoku.Pt(xy[0], xy[1]).String()+`"`)
	}
	g := newGame(t, ts, `{"rule":"renju","black":{"agent":"human"},"white":{"agent":"human"},"moves":[`+strings.Join(setup, ",")+`]}`)
	foul := gomoku.Pt(7, 8).String()
	if len(g.Forbidden) != 1 || g.Forbidden[0] != foul {
		t.Fatalf("forbidden %v, want [%s]", g.Forbidden, foul)
	}
	code, msg := call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"`+foul+`"}`, nil)
	if code < 400 || !strings.Contains(msg, "forbidden") {
		t.Errorf("move %s: %d %q; want a refusal naming the foul", foul, code, msg)
	}
	var after GameJSON
	call(t, ts, "GET", "/api/games/"+g.ID, "", &after)
	if len(after.Moves) != 8 || len(after.Forbidden) != 1 {
		t.Errorf("after the refused move: %d moves, forbidden %v", len(after.Moves), after.Forbidden)
	}
	var white GameJSON
	call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"`+gomoku.Pt(10, 10).String()+`"}`, &white)
	if white.ToMove != "o" || len(white.Forbidden) != 0 {
		t.Errorf("White to move: forbidden %v", white.Forbidden)
	}
	// The shipped engine plays renju with the renju models (no notice of
	// models of another rule), standard with the freestyle ones (a notice).
	for rule, noticed := range map[string]bool{"renju": false, "standard": true} {
		g := newGame(t, ts, `{"rule":"`+rule+`","black":{"agent":"human"},"white":{"agent":"search"}}`)
		if (g.Notice != "") != noticed {
			t.Errorf("%s against the shipped search: notice %q", rule, g.Notice)
		}
	}
}

// TestForestPurePolicy: the page's forest agent plays the shipped pure
// policy (data/forest.ocf), not the search's prior (data/model.ocf): on
// the first standard opening where the two differ, its move is the pure
// policy's.
func TestForestPurePolicy(t *testing.T) {
	load := func(b []byte) *arena.Forest {
		m, err := policy.Load(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		f, err := arena.NewForest(m, arena.ForestConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	pure, prior := load(data.Forest), load(data.Model)
	ops, err := openings.ReadFile("../data/openings/piskvork-15.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		b, err := o.Board(gomoku.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := pure.Move(context.Background(), b, gomoku.Clock{})
		if err != nil {
			t.Fatal(err)
		}
		if p, err := prior.Move(context.Background(), b, gomoku.Clock{}); err != nil || p == want {
			continue
		}
		moves := make([]string, len(o.Moves))
		for i, q := range o.Moves {
			moves[i] = fmt.Sprintf("%q", q.String())
		}
		side, other := `"black"`, `"white"`
		if b.ToMove() == gomoku.White {
			side, other = other, side
		}
		_, ts := newTestServer(t, Config{})
		g := newGame(t, ts, `{`+side+`:{"agent":"forest"},`+other+`:{"agent":"human"},"moves":[`+strings.Join(moves, ",")+`]}`)
		evs := streamEvents(t, ts, "/api/games/"+g.ID+"/engine", "{}")
		var done GameJSON
		json.Unmarshal([]byte(evs[len(evs)-1].data), &done)
		if got := done.Moves[len(done.Moves)-1]; got != want.String() {
			t.Errorf("opening %v: the page's forest played %s, the pure policy %s", o, got, want)
		}
		return
	}
	t.Fatal("no standard opening where the pure policy and the search's prior play different moves")
}
