//go:build !tp3

package main

import (
	gremlingo "github.com/apache/tinkerpop/gremlin-go/v4/driver"
)

const (
	program = "gowrite"
	name    = "go"
)

var (
	tID    interface{} = gremlingo.T.Id
	tLabel interface{} = gremlingo.T.Label
	dirOut interface{} = gremlingo.Direction.Out
	dirIn  interface{} = gremlingo.Direction.In
	drc    *gremlingo.DriverRemoteConnection
	g      *gremlingo.GraphTraversalSource
)

func connect(url string, pool int) error {
	var err error
	drc, err = gremlingo.NewDriverRemoteConnection(url, func(s *gremlingo.DriverRemoteConnectionSettings) {
		s.TraversalSource = "g"
		s.LogVerbosity = gremlingo.Off
		s.MaxConnections = pool
		s.MaxIdleConnections = pool
	})
	if err == nil {
		g = gremlingo.Traversal_().WithRemote(drc)
	}
	return err
}

func closeConn() { drc.Close() }

// send writes rows as one traversal: g.mergeV(..).option(..).option(..).mergeV(..)...
func send(rows []row, edges bool) error {
	var t *gremlingo.GraphTraversal
	for _, r := range rows {
		switch {
		case t == nil && edges:
			t = g.MergeE(r.search)
		case t == nil:
			t = g.MergeV(r.search)
		case edges:
			t = t.MergeE(r.search)
		default:
			t = t.MergeV(r.search)
		}
		t = t.Option(gremlingo.Merge.OnCreate, r.create).Option(gremlingo.Merge.OnMatch, r.match)
	}
	return <-t.Iterate()
}
