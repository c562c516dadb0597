package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// cutProxy forwards TCP connections to a PostgreSQL server until a client
// first sends a COPY into young (the first merge): then it closes every
// connection and refuses new ones, as a server that went away, until
// restore; it cuts only once. The cut follows what the client sends, not
// the clock.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	armed  bool // the next COPY cuts
	cut    bool
	conns  []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, armed: true}
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *cutProxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(c, s) {
		c.Close()
		if s != nil {
			s.Close()
		}
		return
	}
	go func() { io.Copy(c, s); c.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 && p.cutAt(buf[:n]) || err != nil {
			s.Close()
			return
		}
		if _, err := s.Write(buf[:n]); err != nil {
			return
		}
	}
}

// track records a connection pair, or refuses it while cut.
func (p *cutProxy) track(c, s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c, s)
	return !p.cut
}

// cutAt reports whether data from a client must not reach the server: it
// is cut, or data is the COPY the proxy is armed for (which cuts).
func (p *cutProxy) cutAt(data []byte) bool {
	p.mu.Lock()
	copying := p.armed && bytes.Contains(data, []byte("COPY young"))
	cut := p.cut
	p.mu.Unlock()
	if copying {
		p.setCut(true)
	}
	return cut || copying
}

func (p *cutProxy) setCut(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = on
	if on {
		p.armed = false
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// TestPostgresBacklogBound: with the server gone from the first merge on
// and -backlog 1B, the worker is held after its first shard (one warning
// line), so one shard at most ever waits; when the server is back (the
// test restores it once both warnings are out) the run goes on and every
// game is stored exactly once. Nothing here depends on timing: the cut
// follows the first COPY, the restore follows the coordinator's lines,
// and the bound is a handshake.
func TestPostgresBacklogBound(t *testing.T) {
	u := pgSchemaURL(t)
	pu, _ := url.Parse(u)
	proxy := newCutProxy(t, pu.Host)
	pu.Host = proxy.ln.Addr().String()
	dir := t.TempDir()
	cmd := trainCmd(t, "run", "-db", pu.String(), "-workers", "1", "-games", "4000", "-shard-games", "1000",
		"-flush-every", "1h", "-backlog", "1B", "-seed", "5")
	cmd.Dir = dir
	var out, errOut syncBuffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitLines(io.TeeReader(stderr, &errOut), "workers pause after their next shard", "warning: store: merge")
	proxy.setCut(false)
	io.Copy(&errOut, stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	if n := strings.Count(errOut.String(), "workers pause"); n != 1 {
		t.Errorf("%d pause warnings, want 1:\n%s", n, errOut.String())
	}
	for _, want := range []string{"(1 shards at most)", "games this run 4000:", "backlog: workers were held "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary without %q:\n%s", want, out.String())
		}
	}
	if st, _, code := trainIn(t, dir, "stats", "-db", u, "-json"); code != 0 || !regexp.MustCompile(`"games":\s*4000\b`).MatchString(st) {
		t.Errorf("stats after the run: exit %d\n%s", code, st)
	}
}

// waitLines reads r until it has seen a line containing each of wants (in
// any order) or r ends.
func waitLines(r io.Reader, wants ...string) {
	sc := bufio.NewScanner(r)
	for len(wants) > 0 && sc.Scan() {
		for i, w := range wants {
			if strings.Contains(sc.Text(), w) {
				wants = append(wants[:i], wants[i+1:]...)
				break
			}
		}
	}
}
