package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
)

// Lines is an input read line by line on a goroutine of the command, so
// that the command can wait for a line and for its context at once (a
// read from a terminal cannot be interrupted). Get one from ReadLines.
type Lines struct {
	// C delivers each line without its line break ("\n" or "\r\n"). It is
	// closed at the end of the input; Err then tells why.
	C <-chan string

	mu  sync.Mutex
	err error
}

// ReadLines starts reading r. The goroutine ends at the end of r, or, once
// ctx is done, as soon as its current read returns.
func ReadLines(ctx context.Context, r io.Reader) *Lines {
	c := make(chan string)
	l := &Lines{C: c}
	go func() {
		defer close(c)
		br := bufio.NewReader(r)
		// No read starts once ctx is done: the line read when it ended
		// may still be taken (the select below), but it is the last.
		for ctx.Err() == nil {
			line, err := br.ReadString('\n')
			if line != "" {
				line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
				select {
				case c <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					l.mu.Lock()
					l.err = err
					l.mu.Unlock()
				}
				return
			}
		}
	}()
	return l
}

// Err is the read error that ended the input: nil while it is being read
// and at its end. It is set before C is closed.
func (l *Lines) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
