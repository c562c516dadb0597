// Package pgtest helps the PostgreSQL tests of the store and the commands:
// a TCP proxy between a client and the test server that the test can cut
// (every connection closed, new ones refused, as a server that went away)
// and restore. Cutting a proxy instead of stopping the server leaves the
// tests of other packages, which share the server, alone.
package pgtest

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a server until it is cut.
type Proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	at     []byte // client data that cuts (nil: none)
	cut    bool
	conns  []net.Conn
}

// NewProxy starts a proxy to the server of the URL u and returns it with
// u pointing at it. It is closed when the test ends.
func NewProxy(t testing.TB, u string) (*Proxy, string) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: pu.Host}
	t.Cleanup(func() { ln.Close(); p.Cut() })
	go p.serve()
	pu.Host = ln.Addr().String()
	return p, pu.String()
}

// CutAt makes the first client data containing at cut the proxy (it does
// not reach the server): the cut follows what the client sends, not the
// clock.
func (p *Proxy) CutAt(at string) {
	p.mu.Lock()
	p.at = []byte(at)
	p.mu.Unlock()
}

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() { p.set(true) }

// Restore lets connections through again.
func (p *Proxy) Restore() { p.set(false) }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(c net.Conn) {
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
func (p *Proxy) track(c, s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c, s)
	return !p.cut
}

// cutAt reports whether data from a client must not reach the server: the
// proxy is cut, or data holds what cuts it (which it does, once).
func (p *Proxy) cutAt(data []byte) bool {
	p.mu.Lock()
	hit := p.at != nil && bytes.Contains(data, p.at)
	cut := p.cut
	p.mu.Unlock()
	if hit {
		p.Cut()
	}
	return cut || hit
}

func (p *Proxy) set(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = on
	if on {
		p.at = nil
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}
