package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// events writes server-sent events: "event: NAME\ndata: JSON\n\n", flushed
// at once.
type events struct {
	w http.ResponseWriter
	f http.Flusher
}

func newEvents(w http.ResponseWriter) (*events, error) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, errors.New("streaming unsupported by this connection")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	return &events{w, f}, nil
}

// send writes one event; an error means the page has gone.
func (e *events) send(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return err
	}
	e.f.Flush()
	return nil
}
