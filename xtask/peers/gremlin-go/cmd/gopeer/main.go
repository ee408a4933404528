// Command gopeer is the Go peer for `cargo xtask bench`: it submits a gremlin-lang script with
// the TinkerPop Go driver (gremlin-go 4.0.0-beta.3, GraphBinary 4 over HTTP, bulkResults off),
// drains every result and prints one JSON measurement line (see xtask/peers/README.md).
package main

import (
	"fmt"
	"os"

	gremlingo "github.com/apache/tinkerpop/gremlin-go/v4/driver"

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
	o := bench.ParseFlags("gopeer")
	pool := 1
	if o.Mode == "throughput" {
		pool = o.Concurrency
	}
	client, err := gremlingo.NewClient(o.URL, func(s *gremlingo.ClientSettings) {
		s.TraversalSource = "g"
		s.LogVerbosity = gremlingo.Off // failures are returned to us and reported once
		s.BulkResults = false
		s.MaxConnections = pool
		s.MaxIdleConnections = pool
		if o.Compression == "deflate" {
			s.Compression = gremlingo.CompressionDeflate
		} else {
			s.Compression = gremlingo.CompressionNone
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopeer:", err)
		os.Exit(1)
	}
	if err := bench.Run("go", o, &peer{client: client, query: o.Query}); err != nil {
		fmt.Fprintln(os.Stderr, "gopeer:", err)
		os.Exit(1)
	}
}
