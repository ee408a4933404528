//go:build !tp3

// gremlin-go 4.0.0-beta.3: a gremlin-lang script over HTTP, GraphBinary 4, bulkResults off.

package main

import (
	"os"

	gremlingo "github.com/apache/tinkerpop/gremlin-go/v4/driver"

	"graphbinary-rs/peers/bench"
)

const (
	program = "gopeer"
	name    = "go"
)

var compressions = []string{"none", "deflate"}

// connect makes the client: its pool sized to pool and the compression of --compression, or,
// with the environment variable PEER_DEFAULTS=1 (the WAN bench's "defaults" rows), the driver's
// own (MaxConnections 128, MaxIdleConnections 8, deflate).
func connect(o bench.Options, pool int) (bench.Peer, error) {
	defaults := os.Getenv("PEER_DEFAULTS") == "1"
	client, err := gremlingo.NewClient(o.URL, func(s *gremlingo.ClientSettings) {
		s.TraversalSource = "g"
		s.LogVerbosity = gremlingo.Off // failures are returned to us and reported once
		s.BulkResults = false
		if defaults {
			return
		}
		s.MaxConnections = pool
		s.MaxIdleConnections = pool
		if o.Compression == "deflate" {
			s.Compression = gremlingo.CompressionDeflate
		} else {
			s.Compression = gremlingo.CompressionNone
		}
	})
	return newPeer(client.Submit, client.Close, o.Query), err
}
