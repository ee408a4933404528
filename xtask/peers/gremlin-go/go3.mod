// The module file of the TinkerPop 3 build of cmd/gopeer (`go build -modfile=go3.mod -tags tp3`,
// as setup.sh does for the peer go3): gremlin-go v3.7.3 from the Go module proxy, checksums in
// go3.sum. go.mod beside it is the gremlin-go 4.0.0-beta.3 build's.
module graphbinary-rs/peers/gremlingo

go 1.25

require (
	github.com/apache/tinkerpop/gremlin-go/v3 v3.7.3
	graphbinary-rs/peers v0.0.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/nicksnyder/go-i18n/v2 v2.4.1 // indirect
	golang.org/x/text v0.19.0 // indirect
)

// The shared measurement code of the peers (the raw drain's module).
replace graphbinary-rs/peers => ../go
