// Command w4rss measures workload W4 of shared/bench/WORKLOADS.md in a
// fresh process: it builds the W1 chain in Go, runs it once, then starts
// 1000 runs at once and waits for them, and prints the batch's wall time,
// the resident set size before the batch and the process's peak resident
// set size (Linux getrusage). Run it several times and take medians:
//
//	for i in 1 2 3 4 5; do GOMAXPROCS=1 go run ./bench/w4rss; done
//
// It imports flow only; nothing imports it.
package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/troupe-dev/troupe/flow"
)

func main() {
	def, err := chain(10)
	if err != nil {
		log.Fatal(err)
	}
	eng := flow.NewEngine()
	ctx := context.Background()
	if _, err := eng.Run(ctx, def, map[string]any{"x": int64(0)}); err != nil {
		log.Fatal(err)
	}
	before := currentRSS()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := eng.Run(ctx, def, map[string]any{"x": int64(0)})
			if err == nil && res.State["x"] != int64(10) {
				err = fmt.Errorf("x = %v, want 10", res.State["x"])
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		log.Fatal(err)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("batch %.2f ms, RSS before %.1f MiB, peak RSS %.1f MiB\n",
		float64(elapsed.Microseconds())/1000, float64(before)/(1<<20), float64(ru.Maxrss)/1024)
}

// chain builds W1: n methods in a line, each adding one to x.
func chain(n int) (*flow.Definition, error) {
	inc := func(_ context.Context, in flow.Input) (any, error) {
		x, _ := in.State.Value("x").(int64)
		in.State.Set("x", x+1)
		return nil, nil
	}
	b := flow.New("Chain").State(map[string]any{"x": 0})
	for i := range n {
		m := b.Method(fmt.Sprintf("n%d", i), flow.Go(inc))
		if i == 0 {
			m.Start()
		} else {
			m.ListenTo(fmt.Sprintf("n%d", i-1))
		}
	}
	return b.Build()
}

// currentRSS reads the resident set size from /proc/self/status, in bytes.
func currentRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
