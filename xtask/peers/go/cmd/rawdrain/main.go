// Command rawdrain is the floor for `cargo xtask bench`: a plain net/http POST asking for
// GraphBinary 4 that reads the whole response body and decodes nothing. Same command line and
// JSON line as the driver peers (see xtask/peers/README.md); "results" is null, "bytes" is the
// body size as received (compressed size when --compression deflate).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"graphbinary-rs/peers/bench"
)

const graphBinaryV4 = "application/vnd.graphbinary-v4.0"

// okFooter ends every uncompressed successful GraphBinary 4 response: status Int 200, then null
// status message and null exception.
var okFooter = []byte{0x00, 0x00, 0x00, 0xc8, 0x01, 0x01}

// tailWriter discards everything but counts bytes and keeps the last len(okFooter) of them.
type tailWriter struct {
	n    int64
	tail []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	k := len(okFooter)
	if len(p) >= k {
		w.tail = append(w.tail[:0], p[len(p)-k:]...)
	} else {
		w.tail = append(w.tail, p...)
		if len(w.tail) > k {
			w.tail = w.tail[len(w.tail)-k:]
		}
	}
	return len(p), nil
}

type peer struct {
	client  *http.Client
	url     string
	body    []byte
	deflate bool
}

func (p *peer) Do() (bench.Outcome, error) {
	req, err := http.NewRequest(http.MethodPost, p.url, bytes.NewReader(p.body))
	if err != nil {
		return bench.Outcome{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", graphBinaryV4)
	if p.deflate {
		req.Header.Set("Accept-Encoding", "deflate")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return bench.Outcome{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), graphBinaryV4) {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return bench.Outcome{}, fmt.Errorf("HTTP %d (%s): %s", resp.StatusCode, resp.Header.Get("Content-Type"), msg)
	}
	w := &tailWriter{tail: make([]byte, 0, len(okFooter))}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return bench.Outcome{}, err
	}
	if resp.Header.Get("Content-Encoding") == "" && !bytes.Equal(w.tail, okFooter) {
		return bench.Outcome{}, fmt.Errorf("response (%d bytes) does not end with a success footer: % x", w.n, w.tail)
	}
	return bench.Outcome{Results: -1, Bytes: w.n}, nil
}

func (p *peer) Close() { p.client.CloseIdleConnections() }

func main() {
	o := bench.ParseFlags("rawdrain")
	pool := 1
	if o.Mode == "throughput" {
		pool = o.Concurrency
	}
	body, err := json.Marshal(map[string]any{"gremlin": o.Query, "g": "g", "bulkResults": false})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawdrain:", err)
		os.Exit(1)
	}
	transport := &http.Transport{
		MaxConnsPerHost:     pool,
		MaxIdleConnsPerHost: pool,
		MaxIdleConns:        pool,
		DisableCompression:  true, // never let net/http add gzip or decode anything
	}
	p := &peer{client: &http.Client{Transport: transport}, url: o.URL, body: body, deflate: o.Compression == "deflate"}
	if err := bench.Run("raw", o, p); err != nil {
		fmt.Fprintln(os.Stderr, "rawdrain:", err)
		os.Exit(1)
	}
}
