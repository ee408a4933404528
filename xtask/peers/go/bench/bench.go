// Package bench is the measurement harness shared by the Go peers (gopeer, rawdrain): the
// uniform command line, latency and throughput loops, CPU accounting and the JSON report line.
package bench

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Options is the uniform peer command line.
type Options struct {
	URL         string
	Query       string
	Mode        string
	Runs        int
	Concurrency int
	Requests    int
	Warmup      int
	Compression string
}

// Outcome is what one request produced: the number of results decoded (-1 when the peer does
// not decode) and the number of response body bytes read (-1 when unknown).
type Outcome struct {
	Results int64
	Bytes   int64
}

// Peer runs one request of the query and consumes the whole response.
type Peer interface {
	Do() (Outcome, error)
	Close()
}

// ParseFlags parses the uniform command line; exits with status 2 on a usage error.
func ParseFlags(name string) Options {
	var o Options
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.StringVar(&o.URL, "url", "http://127.0.0.1:8182/gremlin", "Gremlin Server HTTP endpoint")
	fs.StringVar(&o.Query, "query", "g.V()", "gremlin-lang script to submit")
	fs.StringVar(&o.Mode, "mode", "latency", "latency | throughput")
	fs.IntVar(&o.Runs, "runs", 5, "latency: measured sequential runs")
	fs.IntVar(&o.Concurrency, "concurrency", 64, "throughput: requests in flight")
	fs.IntVar(&o.Requests, "requests", 1000, "throughput: total measured requests")
	fs.IntVar(&o.Warmup, "warmup", -1, "unmeasured requests first (default: 1 for latency, concurrency for throughput)")
	fs.StringVar(&o.Compression, "compression", "none", "none | deflate")
	_ = fs.Parse(os.Args[1:])
	bad := func(msg string) {
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, msg)
		os.Exit(2)
	}
	if o.Mode != "latency" && o.Mode != "throughput" {
		bad("--mode must be latency or throughput")
	}
	if o.Compression != "none" && o.Compression != "deflate" {
		bad("--compression must be none or deflate")
	}
	if o.Runs < 1 || o.Concurrency < 1 || o.Requests < 1 {
		bad("--runs, --concurrency and --requests must be >= 1")
	}
	if o.Warmup < 0 {
		if o.Mode == "latency" {
			o.Warmup = 1
		} else {
			o.Warmup = o.Concurrency
		}
	}
	return o
}

// CPUSeconds is this process's user+system CPU time so far.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func optional(v int64) any {
	if v < 0 {
		return nil
	}
	return v
}

// Run executes the measurement selected by o against p and prints one JSON line on stdout.
func Run(name string, o Options, p Peer) error {
	defer p.Close()
	var line map[string]any
	var err error
	if o.Mode == "latency" {
		line, err = latency(o, p)
	} else {
		line, err = throughput(o, p)
	}
	if err != nil {
		return err
	}
	line["peer"] = name
	line["mode"] = o.Mode
	line["query"] = o.Query
	line["compression"] = o.Compression
	return json.NewEncoder(os.Stdout).Encode(line)
}

func latency(o Options, p Peer) (map[string]any, error) {
	var first *Outcome
	check := func(out Outcome) error {
		if first == nil {
			first = &out
			return nil
		}
		if out.Results != first.Results || out.Bytes != first.Bytes {
			return fmt.Errorf("inconsistent response: %d results / %d bytes, first run had %d / %d",
				out.Results, out.Bytes, first.Results, first.Bytes)
		}
		return nil
	}
	for i := 0; i < o.Warmup; i++ {
		out, err := p.Do()
		if err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if err := check(out); err != nil {
			return nil, err
		}
	}
	runs := make([]float64, 0, o.Runs)
	cpu0 := CPUSeconds()
	for i := 0; i < o.Runs; i++ {
		t0 := time.Now()
		out, err := p.Do()
		el := time.Since(t0).Seconds()
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		if err := check(out); err != nil {
			return nil, err
		}
		runs = append(runs, el)
	}
	return map[string]any{
		"runs":     runs,
		"results":  optional(first.Results),
		"bytes":    optional(first.Bytes),
		"cpu_secs": CPUSeconds() - cpu0,
	}, nil
}

// fanOut runs n requests with at most c in flight; all responses must agree.
func fanOut(p Peer, n, c int) (Outcome, error) {
	var next atomic.Int64
	var mu sync.Mutex
	var first *Outcome
	var firstErr error
	var wg sync.WaitGroup
	if c > n {
		c = n
	}
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				out, err := p.Do()
				mu.Lock()
				if err == nil && first != nil && (out.Results != first.Results || out.Bytes != first.Bytes) {
					err = fmt.Errorf("inconsistent response: %d results / %d bytes vs %d / %d",
						out.Results, out.Bytes, first.Results, first.Bytes)
				}
				if err == nil && first == nil {
					first = &out
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
				stop := firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return Outcome{}, firstErr
	}
	if first == nil {
		return Outcome{}, errors.New("no request completed")
	}
	return *first, nil
}

func throughput(o Options, p Peer) (map[string]any, error) {
	if o.Warmup > 0 {
		if _, err := fanOut(p, o.Warmup, o.Concurrency); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	cpu0 := CPUSeconds()
	t0 := time.Now()
	out, err := fanOut(p, o.Requests, o.Concurrency)
	wall := time.Since(t0).Seconds()
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"concurrency": o.Concurrency,
		"requests":    o.Requests,
		"wall_secs":   wall,
		"req_per_sec": float64(o.Requests) / wall,
		"results":     optional(out.Results),
		"bytes":       optional(out.Bytes),
		"cpu_secs":    CPUSeconds() - cpu0,
	}, nil
}
