module graphbinary-rs/peers/gremlingo

go 1.25

require (
	github.com/apache/tinkerpop/gremlin-go/v4 v4.0.0-beta.3
	graphbinary-rs/peers v0.0.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/nicksnyder/go-i18n/v2 v2.6.0 // indirect
	golang.org/x/text v0.32.0 // indirect
)

// The shared measurement code of the peers (the raw drain's module).
replace graphbinary-rs/peers => ../go

// gremlin-go v4 is not served by the Go module proxy: build against its 4.0.0-beta.3 module
// source in ../shared beside the repository (setup.sh rewrites this to the absolute path, or to
// $GRAPHBINARY_SHARED, in a copy of this file).
replace github.com/apache/tinkerpop/gremlin-go/v4 => ../../../../shared/gremlin-go-4.0.0-beta.3
