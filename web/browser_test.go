package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"ocvist/data"
)

// The browser tests drive the page in headless Chromium. They skip with
// one line when no Chromium is installed (.ci/run installs Debian's).
// With OCVIST_SHOTS=DIR they also save screenshots of the board, the
// analysis and the dashboard at a desktop and a phone viewport.

// waitLong bounds every wait for the page: generous, for a loaded 2-core
// machine; the waits end as soon as their condition holds.
const waitLong = 60 * time.Second

func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// page is one browser tab on a test server.
type page struct {
	t   *testing.T
	ctx context.Context
	url string
}

// newBrowser starts headless Chromium with a fresh profile; its context
// ends with the test.
func newBrowser(t *testing.T) context.Context {
	path := chromium()
	if path == "" {
		t.Skip("no Chromium: the browser tests need it (apt-get install -y chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLong)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%v (status %q, error %q)", err, p.text("#status"), p.text("#error-text"))
	}
}

func (p *page) open(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.url+path), chromedp.EmulateViewport(1280, 800))
	p.until(`document.body.dataset.ready === "1"`)
}

// until waits for a JavaScript condition.
func (p *page) until(cond string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLong)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(waitLong))); err != nil {
		p.t.Fatalf("waiting for %s: %v (status %q, error %q)", cond, err, p.text("#status"), p.text("#error-text"))
	}
}

// eval evaluates a JavaScript expression, awaiting it if it is a promise.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLong)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (p *page) text(sel string) string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel)))
	return v
}

func (p *page) click(sel string) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(sel)))
}

// clickCell clicks the board's intersection q ("h8") where it is on the
// screen: the board is redrawn as the engine thinks, so its nodes come and
// go, but its place does not.
func (p *page) clickCell(q string) {
	p.t.Helper()
	xy := eval[[]float64](p, fmt.Sprintf(`(() => { const r = document.querySelector('rect[data-p=%q]').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, q))
	p.do(chromedp.MouseClickXY(xy[0], xy[1]))
}

// idle waits until no engine stream is running.
func (p *page) idle() { p.until(`document.body.dataset.busy === "0"`) }

func (p *page) moves() []string {
	return eval[[]string](p, `[...document.querySelectorAll("#moves li")].map(li => li.textContent)`)
}

func (p *page) selectValue(sel, v string) {
	p.t.Helper()
	p.do(chromedp.SetValue(chromedp.CSS(sel), v))
}

// shot saves a screenshot at the desktop and phone viewports when
// OCVIST_SHOTS names a directory.
func (p *page) shot(name string) {
	dir := os.Getenv("OCVIST_SHOTS")
	if dir == "" {
		return
	}
	os.MkdirAll(dir, 0o755)
	for _, vp := range [][2]int64{{1280, 800}, {390, 844}} {
		opt := []chromedp.EmulateViewportOption{}
		if vp[0] < 500 {
			opt = append(opt, chromedp.EmulateScale(2))
		}
		ctx, cancel := context.WithTimeout(p.ctx, waitLong)
		p.do(chromedp.EmulateViewport(vp[0], vp[1], opt...))
		eval[bool](p, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		cancel()
		if err != nil {
			p.t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%dx%d.png", name, vp[0], vp[1])), png, 0o644)
	}
	p.do(chromedp.EmulateViewport(1280, 800))
}

// TestBrowser plays, undoes, saves and loads, analyses and watches the
// dashboard in a real browser.
func TestBrowser(t *testing.T) {
	ctx := newBrowser(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "loop.db")
	addGames(t, db, 30)
	foreign := filepath.Join(dir, "notes.db")
	os.WriteFile(foreign, []byte("not a database\n"), 0o644)
	_, ts := newTestServer(t, Config{DBs: []string{db, foreign}, Poll: 100 * time.Millisecond, AnalyseTime: time.Minute})
	p := &page{t: t, ctx: ctx, url: ts.URL}

	t.Run("a game to the end", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.selectValue("#color", "x")
		p.selectValue("#agent", "search")
		p.click("#new")
		p.until(`document.querySelector("#status").textContent.includes("your move")`)
		order := spiral()
		for turn := 0; ; turn++ {
			if turn > 112 {
				t.Fatal("no result after 112 moves")
			}
			if strings.Contains(p.text("#status"), "wins") || strings.Contains(p.text("#status"), "draw") {
				break
			}
			before := len(p.moves())
			q := firstEmpty(p, order)
			p.clickCell(q)
			p.until(fmt.Sprintf(`document.querySelectorAll("#moves li").length >= %d && document.body.dataset.busy === "0"`, before+1))
			if turn == 0 {
				n := len(p.moves())
				if n != 2 {
					t.Fatalf("after one move and the reply: %v (error %q)", p.moves(), p.text("#error-text"))
				}
				if r := p.text("#reason"); !strings.HasPrefix(r, "White (search) "+p.moves()[1]+": ") {
					t.Errorf("reason %q", r)
				}
				if pv := eval[int](p, `document.querySelectorAll("#board [data-pv]").length`); pv == 0 {
					t.Errorf("no principal variation on the board; line %q", p.text("#pv"))
				}
				if s := p.text("#score"); s == "–" || !strings.Contains(p.text("#depth"), "depth") {
					t.Errorf("score %q, depth %q", s, p.text("#depth"))
				}
				p.shot("board")
			}
		}
		status := p.text("#status")
		if status != "White wins: five." && status != "Black wins: five." {
			t.Errorf("status at the end %q", status)
		}
		if eval[int](p, `document.querySelectorAll("#board .winline").length`) != 1 {
			t.Error("no winning line drawn")
		}
		if !strings.HasPrefix(p.text("#reason-text"), "makes five") && status == "White wins: five." {
			t.Errorf("the winning move's reason: %q", p.text("#reason-text"))
		}
		// Clicking a stone is refused with the server's one line.
		n := len(p.moves())
		p.click("#undo")
		p.until(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d`, n-2))
		first := p.moves()[0]
		p.clickCell(first)
		p.until(`!document.querySelector("#error").hidden`)
		if e := p.text("#error-text"); e != "move "+first+": cell is occupied" {
			t.Errorf("error line %q", e)
		}
	})

	t.Run("undo", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.click("#new")
		p.until(`document.querySelector("#status").textContent.includes("your move")`)
		for _, q := range []string{"h8", "g9"} {
			n := len(p.moves())
			if q == "g9" && strings.Contains(strings.Join(p.moves(), " "), "g9") {
				q = "j9"
			}
			p.clickCell(q)
			p.until(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d && document.body.dataset.busy === "0"`, n+2))
		}
		before := p.moves()
		p.click("#undo")
		p.until(`document.querySelectorAll("#moves li").length === 2`)
		if got := p.moves(); strings.Join(got, " ") != strings.Join(before[:2], " ") {
			t.Errorf("after undo %v, want %v", got, before[:2])
		}
		if eval[int](p, `document.querySelectorAll("#board .stone").length`) != 2 {
			t.Error("the board does not show 2 stones")
		}
	})

	t.Run("SGF saved and loaded", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.selectValue("#color", "both")
		p.selectValue("#rule", "standard")
		p.click("#new")
		p.idle()
		for _, q := range []string{"h8", "i9", "g9", "j10"} {
			p.clickCell(q)
			p.until(fmt.Sprintf(`[...document.querySelectorAll("#moves li")].some(li => li.textContent === %q)`, q))
		}
		p.click("#sgf-box summary")
		p.click("#sgf-save")
		p.until(`document.querySelector("#sgf").value.includes(";B[hh]")`)
		sgf := eval[string](p, `document.querySelector("#sgf").value`)
		p.selectValue("#rule", "freestyle")
		p.click("#new")
		p.until(`document.querySelectorAll("#moves li").length === 0`)
		p.do(chromedp.SetValue(chromedp.CSS("#sgf"), sgf))
		p.click("#sgf-load")
		p.until(`document.querySelectorAll("#moves li").length === 4`)
		if got := strings.Join(p.moves(), " "); got != "h8 i9 g9 j10" {
			t.Errorf("loaded back %q from %s", got, sgf)
		}
		rule := eval[string](p, `fetch("/api/games").then(r => r.json()).then(l => l[0].rule)`)
		if rule != "standard" {
			t.Errorf("loaded game's rule %q, want standard", rule)
		}
		// An SGF of another game is one line on the page, and nothing else.
		p.do(chromedp.SetValue(chromedp.CSS("#sgf"), "(;FF[4]GM[1]SZ[19];B[pd];W[dp])"))
		p.click("#sgf-load")
		p.until(`!document.querySelector("#error").hidden`)
		if e := p.text("#error-text"); e != "SGF: game 1: offset 7: GM[1]: not a gomoku game" {
			t.Errorf("error line %q", e)
		}
		if got := strings.Join(p.moves(), " "); got != "h8 i9 g9 j10" {
			t.Errorf("the bad SGF changed the board: %q", got)
		}
	})

	t.Run("analysis", func(t *testing.T) {
		p.t = t
		p.click("#analyse")
		p.until(`document.body.dataset.busy === "0" && document.querySelectorAll("#top tbody tr").length > 1`)
		if eval[int](p, `document.querySelectorAll("#board [data-pv]").length`) == 0 || !strings.HasPrefix(p.text("#reason"), "Analysis: Black ") {
			t.Errorf("analysis: PV %q, reason %q", p.text("#pv"), p.text("#reason"))
		}
		p.shot("analysis")
		p.click("#hint")
		p.until(`document.querySelectorAll("#board [data-hint]").length === 1 && document.body.dataset.busy === "0"`)
		if r := p.text("#reason"); !strings.HasPrefix(r, "Hint for Black ") {
			t.Errorf("hint reason %q", r)
		}
	})

	t.Run("keyboard", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.selectValue("#color", "both")
		p.do(chromedp.Focus(chromedp.CSS("#board")), chromedp.SendKeys(chromedp.CSS("#board"), "n"))
		p.until(`document.querySelector("#status").textContent === "Black to move."`)
		// The cursor starts on h8: left, up, Enter plays g9.
		p.do(chromedp.SendKeys(chromedp.CSS("#board"), kb.ArrowLeft+kb.ArrowUp+kb.Enter))
		p.until(`document.querySelectorAll("#moves li").length === 1`)
		if got := p.moves(); got[0] != "g9" {
			t.Errorf("the keyboard played %v, want g9", got)
		}
		p.do(chromedp.SendKeys(chromedp.CSS("#board"), "u"))
		p.until(`document.querySelectorAll("#moves li").length === 0`)
	})

	t.Run("set up by clicking", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.selectValue("#color", "o")
		p.click("#setup")
		for _, q := range []string{"h8", "i9", "j10"} {
			p.clickCell(q)
		}
		p.until(`document.querySelectorAll("#board .stone").length === 3`)
		p.click("#setup") // "Play from here": White, the person, is to move
		p.until(`document.querySelector("#status").textContent === "White to move — your move."`)
		if got := strings.Join(p.moves(), " "); got != "h8 i9 j10" || eval[int](p, `document.querySelectorAll("#moves li.book").length`) != 3 {
			t.Errorf("set-up moves %q", got)
		}
	})

	t.Run("watch", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.click("#tab-watch")
		p.selectValue("#w-black", "patterns")
		p.selectValue("#w-white", "search")
		p.click("#w-start")
		p.until(`document.querySelectorAll("#moves li").length >= 6`)
		p.until(`document.querySelector("#w-start").disabled === false`) // the game ended
		status := p.text("#status")
		if !strings.Contains(status, "wins: five") && !strings.HasPrefix(status, "Draw") {
			t.Errorf("status after the watched game: %q", status)
		}
		if r := p.text("#reason"); !strings.HasPrefix(r, "White (search) ") && !strings.HasPrefix(r, "Black (patterns) ") {
			t.Errorf("reason %q", r)
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		p.t = t
		p.open("/?tab=dash")
		p.until(`(document.querySelector("#db-0-games")||{}).textContent === "30"`)
		p.until(`document.querySelector("#db-1 .err") !== null`)
		if e := p.text("#db-1 .err"); !strings.Contains(e, "not an Ocvist database") || !strings.Contains(e, foreign) {
			t.Errorf("a foreign database's line on the page: %q", e)
		}
		addGames(t, db, 12) // the job writes while the page watches
		p.until(`document.querySelector("#db-0-games").textContent === "42"`)
		addGames(t, db, 8)
		p.until(`document.querySelector("#db-0-games").textContent === "50"`)
		models := filepath.Join(dir, "models")
		os.MkdirAll(models, 0o755)
		for gen := 1; gen <= 3; gen++ {
			os.WriteFile(filepath.Join(models, fmt.Sprintf("gen-%03d.policy.ocf", gen)), data.Model, 0o644)
			os.WriteFile(filepath.Join(models, fmt.Sprintf("gen-%03d.value.ocf", gen)), data.Value, 0o644)
			addGeneration(t, db, gen, 0.5+0.05*float64(gen))
		}
		p.until(`document.querySelectorAll("#gens-0 tbody tr").length === 3 && document.querySelector("#db-0-gens").textContent === "3"`)
		cells := eval[[]string](p, `[...document.querySelectorAll("#gens-0 tbody tr:nth-child(2) td")].map(td => td.textContent)`)
		if len(cells) < 8 || cells[0] != "2" || cells[5] != "0.600 [0.500, 0.700]" || cells[6] != "0.400" {
			t.Errorf("generation 2's row %q", cells)
		}
		p.shot("dashboard")
		p.click(`button[data-model="0/2"]`)
		p.until(`document.querySelector("#status").textContent === "Black to move — your move."`)
		if m := eval[string](p, `fetch("/api/games").then(r => r.json()).then(l => l[0].white.model)`); m != "0/2" {
			t.Errorf("the game's white model %q, want 0/2", m)
		}
	})
}

// spiral lists the board's points from the centre outwards: the order in
// which the test's player takes empty cells.
func spiral() []string {
	var out []string
	for r := 0; r < 8; r++ {
		for y := 7 - r; y <= 7+r; y++ {
			for x := 7 - r; x <= 7+r; x++ {
				if max(abs(x-7), abs(y-7)) == r {
					out = append(out, fmt.Sprintf("%c%d", 'a'+x, 15-y))
				}
			}
		}
	}
	return out
}

func abs(x int) int { return max(x, -x) }

func firstEmpty(p *page, order []string) string {
	taken := map[string]bool{}
	for _, m := range p.moves() {
		taken[m] = true
	}
	for _, q := range order {
		if !taken[q] {
			return q
		}
	}
	p.t.Fatal("the board is full")
	return ""
}
