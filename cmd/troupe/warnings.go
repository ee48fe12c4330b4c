package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// warnings is a logger that prints warnings and errors on w, one line each,
// as "troupe: warning: MESSAGE".
func warnings(w io.Writer) *slog.Logger { return slog.New(&warningHandler{w: w, mu: &sync.Mutex{}}) }

type warningHandler struct {
	w  io.Writer
	mu *sync.Mutex
}

func (h *warningHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *warningHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	level := "warning"
	if r.Level >= slog.LevelError {
		level = "error"
	}
	_, err := fmt.Fprintf(h.w, "troupe: %s: %s\n", level, r.Message)
	return err
}

func (h *warningHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *warningHandler) WithGroup(string) slog.Handler      { return h }
