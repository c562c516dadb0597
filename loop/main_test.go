package loop

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"ocvist/coordinator"
)

// The loop's teacher games are played by worker processes, copies of the
// running program started as "PROGRAM worker …": in this package's tests,
// the test binary, which TestMain makes a worker then (as the train
// command's worker does). OCVIST_TEST_WORKER "die-at-played=N" kills the
// worker (SIGKILL) as soon as it has said "played N" (after its Nth
// game), "die-at-played=N,worker=I" only worker I; OCVIST_TEST_LOOP makes
// the binary a loop of its own (see loopChild).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(testWorker(os.Args[2:]))
	}
	if os.Getenv(childEnv) != "" {
		os.Exit(loopChild())
	}
	os.Exit(m.Run())
}

func testWorker(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	config := coordinator.WorkerFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	w, input, err := config()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if input {
		ch := make(chan string)
		go func() {
			defer close(ch)
			for sc := bufio.NewScanner(os.Stdin); sc.Scan(); {
				ch <- sc.Text()
			}
		}()
		w.In = ch
	}
	var out io.Writer = os.Stdout
	if spec, ok := strings.CutPrefix(os.Getenv("OCVIST_TEST_WORKER"), "die-at-played="); ok {
		n, who, _ := strings.Cut(spec, ",worker=")
		if who == "" || who == strconv.Itoa(w.Index) {
			out = dieAt{os.Stdout, "played " + n + "\n"}
		}
	}
	if err := coordinator.Work(ctx, w, out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// dieAt passes a worker's lines on and kills the worker once it has
// written the line at.
type dieAt struct {
	w  io.Writer
	at string
}

func (d dieAt) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if string(p) == d.at {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return n, err
}
