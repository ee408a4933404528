//go:build tp3

package main

import (
	gremlingo "github.com/apache/tinkerpop/gremlin-go/v3/driver"
)

const (
	program = "gowrite3"
	name    = "go3"
)

var (
	tID    interface{} = gremlingo.T.Id
	tLabel interface{} = gremlingo.T.Label
	dirOut interface{} = gremlingo.Direction.Out
	dirIn  interface{} = gremlingo.Direction.In
	drc    *gremlingo.DriverRemoteConnection
	g      *gremlingo.GraphTraversalSource

	onCreate interface{} = gremlingo.Merge.OnCreate
	onMatch  interface{} = gremlingo.Merge.OnMatch
)

// traversal is this generation's GraphTraversal, for main.go's send.
type traversal = gremlingo.GraphTraversal

func connect(url string, pool int) error {
	var err error
	drc, err = gremlingo.NewDriverRemoteConnection(url, func(s *gremlingo.DriverRemoteConnectionSettings) {
		s.TraversalSource = "g"
		s.LogVerbosity = gremlingo.Off
		s.InitialConcurrentConnections = pool
		s.MaximumConcurrentConnections = pool
		// 0 (the default) makes v3.7.3 refuse every request; 1 MiB: a batch of 100 merges.
		s.WriteBufferSize = 1 << 20
		s.ReadBufferSize = 64 * 1024
	})
	if err == nil {
		g = gremlingo.Traversal_().WithRemote(drc)
	}
	return err
}

func closeConn() { drc.Close() }
