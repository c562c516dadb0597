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
	w, input, err := config()
	if err != nil {
		return usageError{err.Error()}
	}
	if input {
		w.In = lines(stdin)
	}
	return coordinator.Work(ctx, w, stdout)
}

// lines delivers the lines read from r (the coordinator's go-aheads and
// answers) and is closed at its end: a coordinator that is gone holds no
// worker back.
func lines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}
