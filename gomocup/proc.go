package gomocup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// proc is one run of an engine's process. Its output is read through a
// pipe with read deadlines, so waiting for a reply needs no goroutine.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	r      *bufio.Reader
	log    io.Writer
}

func startProc(argv []string, log io.Writer) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = log // nil discards
	cmd.WaitDelay = time.Second
	isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	err = cmd.Start()
	pw.Close() // the child has its copy
	if err != nil {
		pr.Close()
		stdin.Close()
		return nil, err
	}
	return &proc{cmd: cmd, stdin: stdin, stdout: pr, r: bufio.NewReader(pr), log: log}, nil
}

// send writes a command, each of its lines ended by CR LF as a manager does.
func (p *proc) send(c Command) error {
	s := strings.ReplaceAll(c.String(), "\n", "\r\n") + "\r\n"
	_, err := io.WriteString(p.stdin, s)
	return err
}

// reply returns the engine's next reply by the deadline, skipping blank
// lines and passing MESSAGE and DEBUG lines to the log. ERROR is returned
// as an error. A cancelled ctx (nil for none) stops the wait; ctx's own
// deadline does not, as the caller's deadline includes a grace period
// after it.
func (p *proc) reply(ctx context.Context, deadline time.Time) (Reply, error) {
	for {
		line, err := p.readLine(ctx, deadline)
		if err != nil {
			return nil, err
		}
		r, err := ParseReply(line)
		switch r.(type) {
		case nil:
			if errors.Is(err, ErrEmpty) {
				continue
			}
			return nil, fmt.Errorf("engine answered %q: %w", line, err)
		case ReplyMessage, ReplyDebug:
			if p.log != nil {
				fmt.Fprintln(p.log, r)
			}
			continue
		case ReplyError:
			return nil, fmt.Errorf("engine: %s", r)
		}
		return r, nil
	}
}

// readLine reads one line of output by the deadline.
func (p *proc) readLine(ctx context.Context, deadline time.Time) (string, error) {
	p.stdout.SetReadDeadline(deadline) // unsupported (not Unix): the read waits
	if ctx != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			defer close(fired)
			if errors.Is(ctx.Err(), context.Canceled) {
				p.stdout.SetReadDeadline(time.Unix(1, 0)) // in the past: the read returns
			}
		})
		defer func() {
			if !stop() {
				<-fired
			}
		}()
	}
	line, err := p.r.ReadString('\n')
	switch {
	case err == nil:
		return line, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		if ctx != nil && errors.Is(ctx.Err(), context.Canceled) {
			return "", ctx.Err()
		}
		return "", errors.New("engine did not answer in time")
	case errors.Is(err, io.EOF):
		return "", errors.New("engine exited")
	}
	return "", fmt.Errorf("read from engine: %w", err)
}

// end waits until the deadline for the engine to close its output (after
// END), then kills what is left of its process group and waits for it.
func (p *proc) end(deadline time.Time) {
	p.stdin.Close()
	for {
		if _, err := p.readLine(nil, deadline); err != nil {
			break
		}
	}
	p.kill()
}

// kill kills the engine and its process group and waits for it.
func (p *proc) kill() {
	killTree(p.cmd)
	p.cmd.Wait()
	p.stdin.Close()
	p.stdout.Close()
}
