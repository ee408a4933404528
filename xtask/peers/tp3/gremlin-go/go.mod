module graphbinary-rs/peers/gremlingo3

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
replace graphbinary-rs/peers => ../../go
