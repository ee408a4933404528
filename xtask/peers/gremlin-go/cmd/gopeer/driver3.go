//go:build tp3

// gremlin-go v3.7.3: a gremlin-groovy script over WebSocket, GraphBinary 1, --compression none
// or deflate (WebSocket permessage-deflate).

package main

import (
	"os"

	gremlingo "github.com/apache/tinkerpop/gremlin-go/v3/driver"

	"graphbinary-rs/peers/bench"
)

const (
	program = "gopeer3"
	name    = "go3"
)

var compressions = []string{"none", "deflate"}

// connect makes the client: its pool sized to pool, or with the environment variable
// PEER_DEFAULTS=1 (the WAN bench's "defaults" rows) the driver's own.
func connect(o bench.Options, pool int) (bench.Peer, error) {
	defaults := os.Getenv("PEER_DEFAULTS") == "1"
	client, err := gremlingo.NewClient(o.URL, func(s *gremlingo.ClientSettings) {
		s.TraversalSource = "g"
		s.LogVerbosity = gremlingo.Off // failures are returned to us and reported once
		if !defaults {
			s.InitialConcurrentConnections = pool
			s.MaximumConcurrentConnections = pool
			s.EnableCompression = o.Compression == "deflate"
		}
		// 0 (the default) makes v3.7.3 refuse every request ("Request size cannot exceed the
		// configured WriteBufferSize"); 64 KiB each, the size of a server frame of results.
		s.WriteBufferSize = 64 * 1024
		s.ReadBufferSize = 64 * 1024
	})
	return newPeer(client.Submit, client.Close, o.Query), err
}
