// Command gopeer3 is the TinkerPop 3 Go peer for `cargo xtask bench --only tp3`: it submits a
// gremlin-groovy script with the TinkerPop Go driver (gremlin-go v3.7.3 from the Go module
// proxy, GraphBinary 1 over WebSocket), drains every result and prints one JSON measurement
// line (see xtask/peers/README.md).
package main

import (
	"fmt"
	"os"

	gremlingo "github.com/apache/tinkerpop/gremlin-go/v3/driver"

	"graphbinary-rs/peers/bench"
)

type peer struct {
	client *gremlingo.Client
	query  string
}

func (p *peer) Do() (bench.Outcome, error) {
	rs, err := p.client.Submit(p.query)
	if err != nil {
		return bench.Outcome{}, err
	}
	var n int64
	for r := range rs.Channel() {
		_ = r
		n++
	}
	if err := rs.GetError(); err != nil {
		return bench.Outcome{}, err
	}
	return bench.Outcome{Results: n, Bytes: -1}, nil
}

func (p *peer) Close() { p.client.Close() }

func main() {
	o := bench.ParseFlags("gopeer3")
	if o.Compression != "none" {
		fmt.Fprintln(os.Stderr, "gopeer3: --compression must be none")
		os.Exit(2)
	}
	pool := 1
	if o.Mode == "throughput" {
		pool = o.Concurrency
	}
	client, err := gremlingo.NewClient(o.URL, func(s *gremlingo.ClientSettings) {
		s.TraversalSource = "g"
		s.LogVerbosity = gremlingo.Off // failures are returned to us and reported once
		s.InitialConcurrentConnections = pool
		s.MaximumConcurrentConnections = pool
		// 0 (the default) makes v3.7.3 refuse every request ("Request size cannot exceed the
		// configured WriteBufferSize"); 64 KiB each, the size of a server frame of results.
		s.WriteBufferSize = 64 * 1024
		s.ReadBufferSize = 64 * 1024
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopeer3:", err)
		os.Exit(1)
	}
	if err := bench.Run("go3", o, &peer{client: client, query: o.Query}); err != nil {
		fmt.Fprintln(os.Stderr, "gopeer3:", err)
		os.Exit(1)
	}
}
