// Command gowrite is the Go write peer of `cargo xtask bench --only write` (see
// xtask/peers/README.md): it writes air-routes' Neptune CSV files through gremlin-go's own
// traversal API, as a user writes it, and prints one JSON line. Two modes:
//
//   - loop: one request per element, one at a time (mergeV / mergeE with onCreate and onMatch,
//     .Iterate()), over the first --sample rows (vertices first, then edges);
//   - batch: --batch merges chained in one traversal per request (mergeV(..).option(..)
//     .mergeV(..)...), --in-flight requests at once for vertices and --edge-in-flight for
//     edges (the numbers `graphbinary load` uses), over every row.
//
// Values are typed as the CSV header says (int, long, double, float, bool, else string) and
// ids are sent as the CSV's strings, as `graphbinary load` sends them. One source for both
// driver generations: conn4.go (gremlin-go 4.0.0-beta.3, GremlinLang over HTTP) and conn3.go
// (build tag tp3: gremlin-go v3.7.3, bytecode over WebSocket).
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

type row struct {
	search map[interface{}]interface{}
	create map[interface{}]interface{}
	match  map[interface{}]interface{}
}

// readRows reads a Neptune CSV file into merge maps (edges: search on label, ends and id).
func readRows(path string, edges bool) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	hdr := recs[0]
	var out []row
	for _, rec := range recs[1:] {
		var id, label, from, to string
		props := map[interface{}]interface{}{}
		for i, h := range hdr {
			cell := rec[i]
			switch h {
			case "~id":
				id = cell
			case "~label":
				label = cell
			case "~from":
				from = cell
			case "~to":
				to = cell
			default:
				if cell == "" {
					continue
				}
				name, kind, _ := strings.Cut(h, ":")
				v, err := typed(strings.ToLower(kind), cell)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %v", path, h, err)
				}
				props[name] = v
			}
		}
		r := row{match: props, create: map[interface{}]interface{}{}}
		for k, v := range props {
			r.create[k] = v
		}
		if edges {
			r.search = map[interface{}]interface{}{tLabel: label, dirOut: from, dirIn: to, tID: id}
		} else {
			r.search = map[interface{}]interface{}{tID: id}
			r.create[tLabel] = label
		}
		out = append(out, r)
	}
	return out, nil
}

func typed(kind, cell string) (interface{}, error) {
	switch kind {
	case "int":
		n, err := strconv.ParseInt(cell, 10, 32)
		return int32(n), err
	case "long":
		return strconv.ParseInt(cell, 10, 64)
	case "double":
		return strconv.ParseFloat(cell, 64)
	case "float":
		f, err := strconv.ParseFloat(cell, 32)
		return float32(f), err
	case "bool", "boolean":
		return strconv.ParseBool(cell)
	}
	return cell, nil
}

// write sends rows in requests of batch merges, at most inFlight at once.
func write(rows []row, edges bool, batch, inFlight int) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	slots := make(chan struct{}, inFlight)
	for i := 0; i < len(rows); i += batch {
		end := min(i+batch, len(rows))
		slots <- struct{}{}
		wg.Add(1)
		go func(part []row) {
			defer wg.Done()
			defer func() { <-slots }()
			if err := send(part, edges); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}(rows[i:end])
	}
	wg.Wait()
	return first
}

func main() {
	url := flag.String("url", "", "server URL")
	nodes := flag.String("nodes", "", "vertex CSV file")
	edgesFile := flag.String("edges", "", "edge CSV file")
	mode := flag.String("mode", "loop", "loop or batch")
	sample := flag.Int("sample", 5000, "loop: rows written (vertices first)")
	batch := flag.Int("batch", 100, "batch: merges per request")
	inFlight := flag.Int("in-flight", 4, "batch: requests in flight for vertices")
	edgeInFlight := flag.Int("edge-in-flight", 1, "batch: requests in flight for edges")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, program+":", err)
		os.Exit(1)
	}
	vs, err := readRows(*nodes, false)
	if err != nil {
		fail(err)
	}
	es, err := readRows(*edgesFile, true)
	if err != nil {
		fail(err)
	}
	if err := connect(*url, max(*inFlight, *edgeInFlight)); err != nil {
		fail(err)
	}
	defer closeConn()
	started := time.Now()
	n := 0
	if *mode == "loop" {
		for i := 0; i < *sample && i < len(vs)+len(es); i++ {
			var err error
			if i < len(vs) {
				err = send(vs[i:i+1], false)
			} else {
				err = send(es[i-len(vs):i-len(vs)+1], true)
			}
			if err != nil {
				fail(err)
			}
			n++
		}
	} else {
		if err := write(vs, false, *batch, *inFlight); err != nil {
			fail(err)
		}
		if err := write(es, true, *batch, *edgeInFlight); err != nil {
			fail(err)
		}
		n = len(vs) + len(es)
	}
	wall := time.Since(started).Seconds()
	line, _ := json.Marshal(map[string]interface{}{
		"peer": name, "mode": *mode, "elements": n, "wall_secs": wall, "per_sec": float64(n) / wall,
	})
	fmt.Println(string(line))
}

// send writes rows as one traversal: g.mergeV(..).option(..).option(..).mergeV(..)...
func send(rows []row, edges bool) error {
	var t *traversal
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
		t = t.Option(onCreate, r.create).Option(onMatch, r.match)
	}
	return <-t.Iterate()
}
