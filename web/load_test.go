package web

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ocvist/gomoku"
)

var (
	loadFor     = flag.Duration("load-for", time.Minute, "BenchmarkLoad: each train run's -duration")
	loadRounds  = flag.Int("load-rounds", 2, "BenchmarkLoad: pairs of runs, alone and under load, alternating")
	loadPlayers = flag.Int("load-players", 50, "BenchmarkLoad: clients playing against the engine")
	loadWatch   = flag.Int("load-watchers", 20, "BenchmarkLoad: clients watching the dashboard")
	loadMoveMS  = flag.Int("load-move-ms", 200, "BenchmarkLoad: the players' move time")
)

// BenchmarkLoad measures the server beside a training job (README, "In
// the browser"): a "train run" of -load-for alone, then the same run
// while -load-players clients play against the engine (time-limited
// searches, the default bound of concurrent searches and niceness) and
// -load-watchers clients watch its database on the dashboard, alternating
// -load-rounds times. It reports the job's end-to-end rate each way, the
// clients' errors and moves, and the server's heap over the run. It runs
// only when asked, on localhost:
//
//	go test -run NONE -bench Load -benchtime 1x ./web
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	train := filepath.Join(dir, "train")
	if out, err := exec.Command("go", "build", "-o", train, "ocvist/cmd/train").CombinedOutput(); err != nil {
		b.Fatalf("build train: %v\n%s", err, out)
	}
	b.Logf("machine: %d cores, load %s", runtime.NumCPU(), loadAvg())
	var alone, loaded []float64
	for round := range *loadRounds {
		alone = append(alone, trainRun(b, train, filepath.Join(dir, fmt.Sprintf("alone-%d.db", round)), nil))
		loaded = append(loaded, trainRun(b, train, filepath.Join(dir, fmt.Sprintf("loaded-%d.db", round)), underLoad))
		b.Logf("round %d: alone %.0f games/s, under load %.0f games/s (load %s)", round+1, alone[round], loaded[round], loadAvg())
	}
	ma, ml := mean(alone), mean(loaded)
	b.Logf("end-to-end rate: alone %.0f games/s, under load %.0f games/s: %+.1f%%", ma, ml, 100*(ml-ma)/ma)
	b.ReportMetric(ma, "alone-games/s")
	b.ReportMetric(ml, "loaded-games/s")
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:min(3, len(strings.Fields(string(b))))], " ")
}

var endToEnd = regexp.MustCompile(`end-to-end (\d+) games/s`)

// trainRun runs "train run" into db for -load-for with 2 workers, with
// load(db, done) beside it if not nil, and returns the job's end-to-end
// rate.
func trainRun(b *testing.B, train, db string, load func(b *testing.B, db string, done <-chan struct{})) float64 {
	cmd := exec.Command(train, "run", "-db", db, "-duration", loadFor.String(), "-workers", "2", "-seed", "1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	if load != nil {
		wg.Go(func() { load(b, db, done) })
	}
	all, _ := io.ReadAll(out)
	err = cmd.Wait()
	close(done)
	wg.Wait()
	m := endToEnd.FindSubmatch(all)
	if err != nil || m == nil {
		b.Fatalf("train run: %v\n%s", err, all)
	}
	rate, _ := strconv.ParseFloat(string(m[1]), 64)
	return rate
}

// underLoad serves the page for db and runs the clients until done.
func underLoad(b *testing.B, db string, done <-chan struct{}) {
	srv, err := New(Config{DBs: []string{db}, Nice: 19})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var served sync.WaitGroup
	served.Go(func() { srv.Serve(ctx, ln) })
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	var moves, games, events, errs atomic.Int64
	var firstErr atomic.Value
	fail := func(err error) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, err.Error())
	}
	var wg sync.WaitGroup
	for i := range *loadPlayers {
		wg.Go(func() { player(ctx, client, base, uint64(i), &moves, &games, fail) })
	}
	for range *loadWatch {
		wg.Go(func() { watcher(ctx, client, base, &events, fail) })
	}
	cpu0, wall0 := processCPU(), time.Now()
	var heaps []uint64
	tick := time.NewTicker(5 * time.Second)
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-tick.C:
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			heaps = append(heaps, ms.HeapAlloc>>20)
		}
	}
	tick.Stop()
	cpu, wall := processCPU()-cpu0, time.Since(wall0)
	plain := plainThreadsCPU()
	cancel()
	wg.Wait()
	served.Wait()
	b.Logf("under load: the server and its clients used %.1f s of CPU in %.0f s (%.0f%% of a core; at most %.1f s of it in threads at the process's priority, the rest in niced searches)",
		cpu.Seconds(), wall.Seconds(), 100*cpu.Seconds()/wall.Seconds(), plain.Seconds())
	b.Logf("under load: %d players made %d moves in %d games, %d watchers got %d snapshots, %d errors %v; server heap every 5 s (MiB): %v; searches at once at most %d",
		*loadPlayers, moves.Load(), games.Load(), *loadWatch, events.Load(), errs.Load(), firstErr.Load(), heaps, srv.cfg.MaxSearches)
}

// player plays games against the search until ctx ends: a random empty
// cell near the stones, then the engine's reply.
func player(ctx context.Context, c *http.Client, base string, seed uint64, moves, games *atomic.Int64, fail func(error)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for ctx.Err() == nil {
		var g GameJSON
		body := fmt.Sprintf(`{"black":{"agent":"human"},"white":{"agent":"search"},"move_time_ms":%d}`, *loadMoveMS)
		if err := post(ctx, c, base+"/api/games", body, &g); err != nil {
			if ctx.Err() == nil {
				fail(err)
			}
			return
		}
		games.Add(1)
		for !g.Over && ctx.Err() == nil {
			q := pick(rng, g.Moves)
			if err := post(ctx, c, base+"/api/games/"+g.ID+"/move", `{"move":"`+q+`"}`, &g); err != nil {
				if ctx.Err() == nil {
					fail(err)
				}
				return
			}
			moves.Add(1)
			if g.Over {
				break
			}
			if err := engine(ctx, c, base+"/api/games/"+g.ID+"/engine", &g); err != nil {
				if ctx.Err() == nil {
					fail(err)
				}
				return
			}
		}
	}
}

// pick is a random empty cell within 2 of a stone (the centre first).
func pick(rng *rand.Rand, moves []string) string {
	taken := map[string]bool{}
	var near []gomoku.Point
	for _, m := range moves {
		taken[m] = true
	}
	for _, m := range moves {
		p, _ := gomoku.ParsePoint(m)
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				if x, y := p.X()+dx, p.Y()+dy; gomoku.OnBoard(x, y) && !taken[gomoku.Pt(x, y).String()] {
					near = append(near, gomoku.Pt(x, y))
				}
			}
		}
	}
	if len(near) == 0 {
		return "h8"
	}
	return near[rng.IntN(len(near))].String()
}

func post(ctx context.Context, c *http.Client, url, body string, out any) error {
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("POST %s: %d %s", url, res.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

// engine asks for the engine's move and reads the stream to its end.
func engine(ctx context.Context, c *http.Client, url string, g *GameJSON) error {
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("POST %s: %d %s", url, res.StatusCode, b)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = line[7:]
		case strings.HasPrefix(line, "data: ") && name == "done":
			return json.Unmarshal([]byte(line[6:]), g)
		case strings.HasPrefix(line, "data: ") && name == "error":
			return fmt.Errorf("engine: %s", line[6:])
		}
	}
	return fmt.Errorf("engine: the stream ended without a move (%v)", sc.Err())
}

// watcher reads the dashboard's stream until ctx ends.
func watcher(ctx context.Context, c *http.Client, base string, events *atomic.Int64, fail func(error)) {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/dbs/0/events", nil)
	res, err := c.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			fail(err)
		}
		return
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			var s Snapshot
			if err := json.Unmarshal([]byte(line[6:]), &s); err != nil {
				fail(err)
				return
			}
			if s.Error != "" && !strings.Contains(s.Error, "no such file") {
				fail(fmt.Errorf("snapshot: %s", s.Error))
			}
			events.Add(1)
		}
	}
}

// processCPU is the process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// plainThreadsCPU is the user and system time of the process's live
// threads that run at niceness 0 (search threads end with their search).
func plainThreadsCPU() time.Duration {
	tasks, _ := filepath.Glob("/proc/self/task/*/stat")
	var ticks int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fs := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(fs) > 16 && fs[16] == "0" { // field 19, nice
			u, _ := strconv.ParseInt(fs[11], 10, 64)
			s, _ := strconv.ParseInt(fs[12], 10, 64)
			ticks += u + s
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
