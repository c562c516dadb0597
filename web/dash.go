package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"ocvist/store"
	"ocvist/store/backend"
)

// Snapshot is what the dashboard shows of one database at one time.
type Snapshot struct {
	Index int       `json:"index"`
	Name  string    `json:"name"` // the file, or the URL with its password masked
	Time  time.Time `json:"time"`
	// Error says why the database could not be read (missing, vanished,
	// not Ocvist's); the figures are then those of the last good read.
	Error       string             `json:"error,omitempty"`
	Rule        string             `json:"rule"`
	Created     string             `json:"created"`
	Games       int64              `json:"games"`
	BlackWins   int64              `json:"black_wins"`
	WhiteWins   int64              `json:"white_wins"`
	Draws       int64              `json:"draws"`
	Bytes       int64              `json:"bytes"`
	Rate        float64            `json:"games_per_s"` // over the last RateWindow
	Runs        []Run              `json:"runs"`
	Generations []store.Generation `json:"generations"`
	Models      []ModelEntry       `json:"models"`
}

// RateWindow is the span over which Snapshot.Rate is measured.
const RateWindow = 10 * time.Second

// Run is one "train run" recorded in a database's meta (run.N keys).
type Run struct {
	N       int             `json:"n"`
	Seed    string          `json:"seed"`
	Started string          `json:"started"`
	Config  json.RawMessage `json:"config"`
}

// ModelEntry is a generation's model that the page can play against.
type ModelEntry struct {
	Ref    string `json:"ref"` // "DB/GEN", what a new game's model field takes
	Gen    int    `json:"gen"`
	Policy string `json:"policy"`          // file, or "stored" (PostgreSQL)
	Value  string `json:"value,omitempty"` // file, or "stored"
	Ready  bool   `json:"ready"`           // the policy can be loaded
}

// dbWatch reads one database for the dashboard, at most once per poll
// interval whoever asks.
type dbWatch struct {
	index int
	path  string
	name  string
	poll  time.Duration

	mu   sync.Mutex // held while reading; guards the fields below
	db   store.Store
	file os.FileInfo // the file last opened (SQLite): nil until it existed
	snap Snapshot
	read time.Time // when snap was read
	hist []sample  // games over the last RateWindow
}

type sample struct {
	t     time.Time
	games int64
}

func newDBWatch(index int, path string, poll time.Duration) *dbWatch {
	name := path
	if backend.IsURL(path) {
		name = backend.Redact(path)
	}
	return &dbWatch{index: index, path: path, name: name, poll: poll}
}

func (d *dbWatch) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
		return nil
	}
	err := d.db.Close()
	d.db = nil
	return err
}

// snapshot returns the database's state, read now if the last read is
// older than the poll interval.
func (d *dbWatch) snapshot(ctx context.Context) Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	if now := time.Now(); now.Sub(d.read) >= d.poll || d.read.IsZero() {
		d.refresh(ctx, now)
		d.read = now
	}
	return d.snap
}

// refresh reads the database into d.snap; on failure d.snap keeps the
// last figures and says what went wrong.
func (d *dbWatch) refresh(ctx context.Context, now time.Time) {
	d.snap.Index, d.snap.Name, d.snap.Time = d.index, d.name, now
	if err := d.read1(ctx, now); err != nil {
		d.snap.Error = err.Error()
		d.snap.Rate = 0
		d.hist = d.hist[:0]
		if d.db != nil {
			d.db.Close()
			d.db = nil
		}
		return
	}
	d.snap.Error = ""
}

func (d *dbWatch) read1(ctx context.Context, now time.Time) error {
	if err := d.open(ctx); err != nil {
		return err
	}
	t, err := d.db.Totals(ctx)
	if err != nil {
		return fmt.Errorf("database %s: %w", d.name, err)
	}
	meta, err := d.db.Meta(ctx)
	if err != nil {
		return fmt.Errorf("database %s: %w", d.name, err)
	}
	gens, err := d.db.Generations(ctx)
	if err != nil {
		return fmt.Errorf("database %s: %w", d.name, err)
	}
	s := &d.snap
	s.Games, s.BlackWins, s.WhiteWins, s.Draws, s.Bytes = t.Games, t.BlackWins, t.WhiteWins, t.Draws, t.Bytes
	if !backend.IsURL(d.path) {
		s.Bytes += dirBytes(d.path + ".young") // the young runs, which Totals leaves out
	}
	s.Rule, s.Created = meta["rule"], meta["created"]
	s.Runs = runsOf(meta)
	s.Generations = append([]store.Generation{}, gens...) // [] rather than null
	if s.Models, err = d.modelsOf(ctx, gens); err != nil {
		return fmt.Errorf("database %s: models: %w", d.name, err)
	}
	d.hist = append(d.hist, sample{now, t.Games})
	for len(d.hist) > 2 && now.Sub(d.hist[1].t) >= RateWindow {
		d.hist = d.hist[1:]
	}
	s.Rate = 0
	if first := d.hist[0]; len(d.hist) > 1 && now.Sub(first.t) > 0 {
		s.Rate = float64(t.Games-first.games) / now.Sub(first.t).Seconds()
	}
	return nil
}

// open opens the database read-only if it is not open, or reopens it if
// its file was replaced; a file that vanished is an error.
func (d *dbWatch) open(ctx context.Context) error {
	if !backend.IsURL(d.path) {
		fi, err := os.Stat(d.path)
		switch {
		case errors.Is(err, os.ErrNotExist) && d.file != nil:
			return fmt.Errorf("database %s vanished (no such file)", d.name)
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("database %s: no such file (waiting for it to appear)", d.name)
		case err != nil:
			return fmt.Errorf("database %s: %w", d.name, err)
		case fi.IsDir():
			return fmt.Errorf("database %s: %w (a directory)", d.name, store.ErrNotOcvist)
		}
		if d.db != nil && !os.SameFile(fi, d.file) {
			d.db.Close()
			d.db = nil
		}
		d.file = fi
	}
	if d.db != nil {
		return nil
	}
	db, err := backend.OpenReadOnlyAt(ctx, d.path)
	if err != nil {
		return err // store's errors name the operation and the file
	}
	d.db = db
	return nil
}

// runsOf lists the runs recorded in meta: run.N (the configuration JSON),
// run.N.seed, run.N.started.
func runsOf(meta map[string]string) []Run {
	var runs []Run
	for k, v := range meta {
		n, err := strconv.Atoi(strings.TrimPrefix(k, "run."))
		if !strings.HasPrefix(k, "run.") || err != nil {
			continue
		}
		r := Run{N: n, Seed: meta[k+".seed"], Started: meta[k+".started"], Config: json.RawMessage("null")}
		if json.Valid([]byte(v)) {
			r.Config = json.RawMessage(v)
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].N < runs[j].N })
	return runs
}

// modelsOf lists the generations' models: for SQLite the files the
// records name (the learning loop v2's policy and value, the v1 loop's
// forest), ready when the policy file exists; for PostgreSQL the models
// the database keeps.
func (d *dbWatch) modelsOf(ctx context.Context, gens []store.Generation) ([]ModelEntry, error) {
	if ms, ok := d.db.(store.ModelStore); ok {
		list, err := ms.Models(ctx)
		if err != nil {
			return nil, err
		}
		by := map[int]*ModelEntry{}
		var out []ModelEntry
		for _, m := range list {
			if by[m.Gen] == nil {
				out = append(out, ModelEntry{Ref: fmt.Sprintf("%d/%d", d.index, m.Gen), Gen: m.Gen})
				by[m.Gen] = &out[len(out)-1]
			}
		}
		for _, m := range list {
			e := &out[slices.IndexFunc(out, func(e ModelEntry) bool { return e.Gen == m.Gen })]
			switch m.Role {
			case store.RolePolicy:
				e.Policy, e.Ready = "stored", true
			case store.RoleValue:
				e.Value = "stored"
			}
		}
		return out, nil
	}
	var out []ModelEntry
	for _, g := range gens {
		e := ModelEntry{Ref: fmt.Sprintf("%d/%d", d.index, g.Gen), Gen: g.Gen, Policy: g.Model}
		var det struct {
			Policy string `json:"policy_model"`
			Value  string `json:"value_model"`
		}
		if json.Unmarshal([]byte(g.Details), &det) == nil && det.Policy != "" {
			e.Policy, e.Value = det.Policy, det.Value
		}
		if e.Policy == "" {
			continue
		}
		e.Policy, e.Value = d.resolve(e.Policy), d.resolve(e.Value)
		_, err := os.Stat(e.Policy)
		e.Ready = err == nil
		out = append(out, e)
	}
	return out, nil
}

// resolve finds a model file named by a record: as written (relative to
// the job's directory), else beside the database.
func (d *dbWatch) resolve(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if alt := filepath.Join(filepath.Dir(d.path), filepath.Base(filepath.Dir(path)), filepath.Base(path)); fileExists(alt) {
		return alt
	}
	return path
}

// dirBytes is the size of the files in dir (0 if there is none).
func dirBytes(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// modelBytes returns generation gen's policy and value model files (value
// nil when there is none).
func (d *dbWatch) modelBytes(ctx context.Context, gen int) (pol, val []byte, err error) {
	snap := d.snapshot(ctx)
	if snap.Error != "" {
		return nil, nil, errors.New(snap.Error)
	}
	i := slices.IndexFunc(snap.Models, func(e ModelEntry) bool { return e.Gen == gen })
	if i < 0 {
		return nil, nil, fmt.Errorf("database %s has no model of generation %d", d.name, gen)
	}
	e := snap.Models[i]
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
		return nil, nil, fmt.Errorf("database %s is not open", d.name)
	}
	if ms, ok := d.db.(store.ModelStore); ok {
		m, err := ms.Model(ctx, gen, store.RolePolicy)
		if err != nil {
			return nil, nil, err
		}
		pol = m.Bytes
		if e.Value != "" {
			v, err := ms.Model(ctx, gen, store.RoleValue)
			if err != nil {
				return nil, nil, err
			}
			val = v.Bytes
		}
		return pol, val, nil
	}
	if pol, err = os.ReadFile(e.Policy); err != nil {
		return nil, nil, fmt.Errorf("generation %d's policy: %w", gen, err)
	}
	if e.Value != "" {
		if val, err = os.ReadFile(e.Value); err != nil {
			return nil, nil, fmt.Errorf("generation %d's value model: %w", gen, err)
		}
	}
	return pol, val, nil
}

func (s *Server) listDBs(w http.ResponseWriter, r *http.Request) {
	out := make([]Snapshot, 0, len(s.dbs))
	for _, d := range s.dbs {
		out = append(out, d.snapshot(r.Context()))
	}
	reply(w, out)
}

func (s *Server) withDB(h func(http.ResponseWriter, *http.Request, *dbWatch)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 || i >= len(s.dbs) {
			fail(w, http.StatusNotFound, fmt.Errorf("no database %q (the server shows %d)", r.PathValue("i"), len(s.dbs)))
			return
		}
		h(w, r, s.dbs[i])
	}
}

func (s *Server) getDB(w http.ResponseWriter, r *http.Request, d *dbWatch) {
	reply(w, d.snapshot(r.Context()))
}

// dbEvents streams the database's snapshot every poll interval until the
// page goes away.
func (s *Server) dbEvents(w http.ResponseWriter, r *http.Request, d *dbWatch) {
	ev, err := newEvents(w)
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		if ev.send("snapshot", d.snapshot(r.Context())) != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		case <-tick.C:
		}
	}
}
