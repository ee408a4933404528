// Command gopeer is the Go peer for `cargo xtask bench`: it submits a script with the TinkerPop
// Go driver, drains every result and prints one JSON measurement line (see
// xtask/peers/README.md). One source for both driver generations; what differs is in a file of
// each, chosen by the build tag tp3:
//
//   - driver4.go (default, module file go.mod): gremlin-go 4.0.0-beta.3, a gremlin-lang script
//     over HTTP, GraphBinary 4, bulkResults off; built as gopeer (peer `go`);
//   - driver3.go (`-tags tp3 -modfile=go3.mod`): gremlin-go v3.7.3, a gremlin-groovy script over
//     WebSocket, GraphBinary 1; built as gopeer3 (peer `go3`).
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"graphbinary-rs/peers/bench"
)

// resultSet is what both generations' gremlingo.ResultSet offer.
type resultSet[R any] interface {
	Channel() chan R
	GetError() error
}

// peer submits its query with a driver's Client.Submit and drains the results.
type peer[RS resultSet[R], R any] struct {
	submit func(query string, bindings ...map[string]interface{}) (RS, error)
	close  func()
	query  string
}

func (p *peer[RS, R]) Do() (bench.Outcome, error) {
	rs, err := p.submit(p.query)
	if err != nil {
		return bench.Outcome{}, err
	}
	var n int64
	for range rs.Channel() {
		n++
	}
	if err := rs.GetError(); err != nil {
		return bench.Outcome{}, err
	}
	return bench.Outcome{Results: n, Bytes: -1}, nil
}

func (p *peer[RS, R]) Close() { p.close() }

// newPeer is the peer of a driver's client (its methods Submit and Close; not called when
// connecting failed, err).
func newPeer[RS resultSet[R], R any](submit func(string, ...map[string]interface{}) (RS, error), close func(), query string) bench.Peer {
	return &peer[RS, R]{submit: submit, close: close, query: query}
}

func main() {
	o := bench.ParseFlags(program)
	if !slices.Contains(compressions, o.Compression) {
		fmt.Fprintf(os.Stderr, "%s: --compression must be %s\n", program, strings.Join(compressions, " or "))
		os.Exit(2)
	}
	pool := 1
	if o.Mode == "throughput" {
		pool = o.Concurrency
	}
	p, err := connect(o, pool) // p is nil or unusable when err is set
	if err == nil {
		err = bench.Run(name, o, p)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, program+":", err)
		os.Exit(1)
	}
}
