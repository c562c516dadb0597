package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"ocvist/gomoku"
)

//go:embed assets
var assets embed.FS

// rules are the rules a game may be played under, in the order the page
// offers them (the first is the default). A new rule is one more entry.
var rules = []gomoku.Rule{gomoku.Freestyle, gomoku.Standard, gomoku.Renju}

// Config configures a Server. The zero value serves the board with the
// shipped models and no database.
type Config struct {
	// DBs are the databases the dashboard shows: SQLite files or
	// PostgreSQL URLs, opened read-only.
	DBs []string
	// MaxSearches is how many engine searches run at once in the server;
	// 0 means max(1, GOMAXPROCS/2). MaxQueue is how many more may wait
	// for one; 0 means 64.
	MaxSearches, MaxQueue int
	// Nice is the Linux niceness of the search threads (0 leaves them at
	// the process's); elsewhere it is ignored.
	Nice int
	// Nodes, when above 0, bounds every search by nodes instead of the
	// game's move time: deterministic play, for tests.
	Nodes int64
	// AnalyseTime bounds an analysis; 0 means 10 seconds.
	AnalyseTime time.Duration
	// MaxGames is how many games the server keeps; 0 means 200. The
	// least recently used finished game goes first.
	MaxGames int
	// Poll is how often the dashboard reads a database; 0 means 1 second.
	Poll time.Duration
}

func (c *Config) fill() {
	if c.MaxSearches <= 0 {
		c.MaxSearches = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = 64
	}
	if c.AnalyseTime <= 0 {
		c.AnalyseTime = 10 * time.Second
	}
	if c.MaxGames <= 0 {
		c.MaxGames = 200
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
}

// Server is the web server's handler. It is safe for concurrent use.
type Server struct {
	cfg    Config
	mux    *http.ServeMux
	models *models
	eng    *engines
	games  *gameList
	dbs    []*dbWatch
	once   sync.Once
	closed chan struct{} // closed by Close: live streams end
}

// New returns a Server for cfg. It loads the shipped models; databases
// are opened when first shown.
func New(cfg Config) (*Server, error) {
	cfg.fill()
	m, err := newModels()
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), models: m, eng: newEngines(cfg), games: newGameList(cfg.MaxGames), closed: make(chan struct{})}
	for _, path := range cfg.DBs {
		s.dbs = append(s.dbs, newDBWatch(len(s.dbs), path, cfg.Poll))
	}
	m.dbs = s.dbs
	s.routes()
	return s, nil
}

// Close ends the dashboard's live streams and closes the databases it
// opened.
func (s *Server) Close() error {
	var errs []error
	s.once.Do(func() {
		close(s.closed)
		for _, d := range s.dbs {
			errs = append(errs, d.close())
		}
	})
	return errors.Join(errs...)
}

func (s *Server) routes() {
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			fail(w, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: the page is read with GET", r.Method, r.URL.Path))
			return
		}
		files.ServeHTTP(w, r)
	})
	s.mux.HandleFunc("GET /api/config", s.getConfig)
	s.mux.HandleFunc("GET /api/games", s.listGames)
	s.mux.HandleFunc("POST /api/games", s.newGame)
	s.mux.HandleFunc("GET /api/games/{id}", s.withGame(s.getGame))
	s.mux.HandleFunc("POST /api/games/{id}/move", s.withGame(s.move))
	s.mux.HandleFunc("POST /api/games/{id}/engine", s.withGame(s.engineMove))
	s.mux.HandleFunc("POST /api/games/{id}/analyse", s.withGame(s.analyse))
	s.mux.HandleFunc("POST /api/games/{id}/undo", s.withGame(s.undo))
	s.mux.HandleFunc("POST /api/games/{id}/resign", s.withGame(s.resign))
	s.mux.HandleFunc("GET /api/games/{id}/sgf", s.withGame(s.sgf))
	s.mux.HandleFunc("GET /api/dbs", s.listDBs)
	s.mux.HandleFunc("GET /api/dbs/{i}", s.withDB(s.getDB))
	s.mux.HandleFunc("GET /api/dbs/{i}/events", s.withDB(s.dbEvents))
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, fmt.Errorf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
}

// ServeHTTP serves the page and the API. It refuses a request whose Host
// is not a loopback name when the server listens on loopback (a page
// elsewhere that renamed itself to this address), and a POST that is not
// JSON (which a cross-site form could send without asking).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(local.String()) && !isLoopbackHost(r.Host) {
		fail(w, http.StatusForbidden, fmt.Errorf("host %q refused: this server answers only to localhost", r.Host))
		return
	}
	if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		fail(w, http.StatusUnsupportedMediaType, errors.New("want a JSON body (Content-Type: application/json)"))
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			fail(w, http.StatusInternalServerError, fmt.Errorf("internal error in %s %s: %v", r.Method, r.URL.Path, v))
		}
	}()
	s.mux.ServeHTTP(w, r)
}

func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.EqualFold(host, "localhost") || isLoopback(host)
}

// configJSON is what the page needs to build its forms.
type configJSON struct {
	Rules     []string `json:"rules"`
	Agents    []string `json:"agents"`
	MoveTimes []int    `json:"move_times_ms"`
	DBs       []string `json:"dbs"`
	Nodes     int64    `json:"nodes,omitempty"`
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	c := configJSON{Agents: agentKinds, MoveTimes: moveTimes, Nodes: s.cfg.Nodes, DBs: []string{}}
	for _, r := range rules {
		c.Rules = append(c.Rules, r.String())
	}
	for _, d := range s.dbs {
		c.DBs = append(c.DBs, d.name)
	}
	reply(w, c)
}

// maxBody bounds a request body (an SGF of a long game is a few KB).
const maxBody = 1 << 20

// decode reads r's JSON body into v: one clear error for a body that is
// too large, malformed or has unknown fields.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fmt.Errorf("request body over %d bytes", maxBody)
		}
		return fmt.Errorf("bad request body: %v", err)
	}
	return nil
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// httpError is an error with the status it answers.
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func errorf(status int, format string, a ...any) error {
	return &httpError{status, fmt.Errorf(format, a...)}
}

// fail answers err as {"error": "..."} with status, or with err's own
// status when it has one.
func fail(w http.ResponseWriter, status int, err error) {
	var he *httpError
	if errors.As(err, &he) {
		status = he.status
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": strings.ReplaceAll(err.Error(), "\n", "; ")})
}
