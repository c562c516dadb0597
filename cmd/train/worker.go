package main

import (
	"bufio"
	"context"
	"io"

	"ocvist/coordinator"
)

func workerCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("worker", "[flags]", coordinator.WorkerAbout, stderr)
	config := coordinator.WorkerFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	w, gate, err := config()
	if err != nil {
		return usageError{err.Error()}
	}
	if gate {
		w.Gate = goAheads(stdin)
	}
	return coordinator.Work(ctx, w, stdout)
}

// goAheads delivers a value for each line read from r (the coordinator's
// go-aheads) and is closed at its end: a coordinator that is gone holds no
// worker back.
func goAheads(r io.Reader) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- struct{}{}
		}
	}()
	return ch
}
