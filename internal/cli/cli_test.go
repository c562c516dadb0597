package cli

import (
	"os"
	"syscall"
	"time"

	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"ocvist/internal/stop"
	"strings"
	"testing"
)

func TestExitCodeAndReport(t *testing.T) {
	live := context.Background()
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		code int
		line string // what Report writes
	}{
		{"done", live, nil, 0, ""},
		{"help", live, flag.ErrHelp, 0, ""},
		{"usage", live, Usagef("-games %d is negative", -3), 2, "x: -games -3 is negative\n"},
		{"wrapped usage", live, fmt.Errorf("run: %w", UsageError{"bad"}), 2, "x: run: bad\n"},
		{"failure", live, errors.New("open a.db:\nno such file"), 1, "x: open a.db:; no such file\n"},
		{"stopped", stopped, context.Canceled, 0, ""},
		{"stopped with news", stopped, fmt.Errorf("match stopped after 3 games: %w", context.Canceled), 0,
			"x: match stopped after 3 games: context canceled\n"},
		{"cancelled but not stopped", live, context.Canceled, 1, "x: context canceled\n"},
		{"deadline while stopped", stopped, context.DeadlineExceeded, 1, "x: context deadline exceeded\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.ctx, tt.err); got != tt.code {
				t.Errorf("ExitCode = %d, want %d", got, tt.code)
			}
			var b bytes.Buffer
			Report(&b, "x", tt.ctx, tt.err)
			if b.String() != tt.line {
				t.Errorf("Report wrote %q, want %q", b.String(), tt.line)
			}
		})
	}
}

func testProgram(ran *string) Program {
	mk := func(name string) RunFunc {
		return func(_ context.Context, args []string, _ io.Reader, _, stderr io.Writer) error {
			fs := NewFlagSet("p "+name, "[-n N]", "Does "+name+".", stderr)
			n := fs.Int("n", 1, "a number")
			if err := ParseNoArgs(fs, args); err != nil {
				return err
			}
			*ran = fmt.Sprintf("%s n=%d set=%v", name, *n, IsSet(fs, "n"))
			return nil
		}
	}
	return Program{Name: "p", About: "a test program.", Default: "one", Notes: "Agents: a, b.",
		Commands: []Command{
			{Name: "one", Summary: "the first", Run: mk("one")},
			{Name: "two", Summary: "the second", Run: mk("two")},
			{Name: "secret", Summary: "internal", Run: mk("secret"), Hidden: true},
		}}
}

func TestProgram(t *testing.T) {
	tests := []struct {
		args     []string
		ran      string
		code     int
		out, err string // fragments of stdout and of the error or stderr
	}{
		{nil, "one n=1 set=false", 0, "", ""},
		{[]string{"-n", "3"}, "one n=3 set=true", 0, "", ""},
		{[]string{"two", "-n=4"}, "two n=4 set=true", 0, "", ""},
		{[]string{"secret"}, "secret n=1 set=false", 0, "", ""},
		{[]string{"help"}, "", 0, "  two       the second\n", ""},
		{[]string{"-h"}, "", 0, "Agents: a, b.", ""},
		{[]string{"two", "-h"}, "", 0, "", "Usage: p two [-n N]\n\nDoes two.\n\nFlags:\n  -n int"},
		{[]string{"three"}, "", 2, "", `unknown command "three" (see p -h)`},
		{[]string{"two", "-m"}, "", 2, "", "p two: flag provided but not defined: -m (see -h)"},
		{[]string{"two", "-n", "x"}, "", 2, "", `p two: invalid value "x" for flag -n`},
		{[]string{"two", "extra"}, "", 2, "", `p two: unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var ran string
			var out, errb bytes.Buffer
			err := testProgram(&ran).Run(context.Background(), tt.args, nil, &out, &errb)
			if code := ExitCode(context.Background(), err); code != tt.code || ran != tt.ran {
				t.Errorf("exit %d ran %q (err %v), want %d %q", code, ran, err, tt.code, tt.ran)
			}
			if !strings.Contains(out.String(), tt.out) {
				t.Errorf("stdout %q lacks %q", out.String(), tt.out)
			}
			msg := errb.String()
			if err != nil {
				msg += err.Error()
			}
			if !strings.Contains(msg, tt.err) {
				t.Errorf("stderr and error %q lack %q", msg, tt.err)
			}
		})
	}
	var out bytes.Buffer
	testProgram(new(string)).Run(context.Background(), []string{"help"}, nil, &out, io.Discard)
	if strings.Contains(out.String(), "secret") || !strings.HasPrefix(out.String(), "p (Ocvist "+Version+"): a test program.") {
		t.Errorf("help:\n%s", out.String())
	}
}

func TestReadLines(t *testing.T) {
	l := ReadLines(context.Background(), strings.NewReader("a\r\nb\n\nc"))
	var got []string
	for s := range l.C {
		got = append(got, s)
	}
	if strings.Join(got, "|") != "a|b||c" || l.Err() != nil {
		t.Errorf("lines %q, err %v", got, l.Err())
	}
	boom := errors.New("boom")
	l = ReadLines(context.Background(), io.MultiReader(strings.NewReader("x\n"), errReader{boom}))
	got = got[:0]
	for s := range l.C {
		got = append(got, s)
	}
	if len(got) != 1 || !errors.Is(l.Err(), boom) {
		t.Errorf("lines %q, err %v; want [x] and boom", got, l.Err())
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestReadLinesStops: once the context is done the reader ends after its
// current read, whether or not anyone takes the line it read, and starts
// no other. The test waits until the second read is under way before it
// cancels (a cancel that lands before the reader loops back starts no
// read at all, and a write would then wait for ever: an earlier version
// of this test hung so, once in a while under -race); a reader cancelled
// before it starts reads nothing.
func TestReadLinesStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	reads := make(chan struct{}, 8)
	n := 0 // reads started; the reader goroutine's alone until C is closed
	l := ReadLines(ctx, readerFunc(func(p []byte) (int, error) {
		n++
		reads <- struct{}{}
		return pr.Read(p)
	}))
	go pw.Write([]byte("one\n"))
	if s := <-l.C; s != "one" {
		t.Fatalf("got %q", s)
	}
	<-reads // the read of "one"
	<-reads // the next, under way
	cancel()
	pw.Write([]byte("two\n")) // returns once the read under way has read it
	for s := range l.C {      // ends: the reader does not read again
		if s != "two" {
			t.Errorf("line %q after the context was done", s)
		}
	}
	if n != 2 {
		t.Errorf("%d reads, want 2: none after the context was done", n)
	}

	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	l = ReadLines(done, readerFunc(func([]byte) (int, error) {
		t.Error("a read though the context was done before ReadLines")
		return 0, io.EOF
	}))
	for s := range l.C {
		t.Errorf("line %q though the context was done before ReadLines", s)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestSignals: the first signal cancels the command's context and not
// stop.Next's; the second cancels that one too; release stops listening.
func TestSignals(t *testing.T) {
	ctx, release := Signals(context.Background(), syscall.SIGUSR1)
	defer release()
	next := stop.Next(ctx)
	wait := func(c context.Context, what string) {
		t.Helper()
		select {
		case <-c.Done():
		case <-time.After(time.Minute):
			t.Fatalf("%s not cancelled a minute after the signal", what)
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	wait(ctx, "the command's context")
	if next.Err() != nil {
		t.Fatal("the first signal cancelled the context of the work after a stop")
	}
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	wait(next, "the context of the work after a stop")
}

// TestNextWithout: without the scaffold's signals, the work after a stop
// is never cut short (stop.Next is the context without its cancellation).
func TestNextWithout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), struct{}{}, 1))
	cancel()
	if next := stop.Next(ctx); next.Err() != nil || next.Value(struct{}{}) != 1 {
		t.Errorf("stop.Next of a plain cancelled context: %v, value %v", next.Err(), next.Value(struct{}{}))
	}
}
