//! The two generations' protocols, siblings that never name each other: [`http4`] (TinkerPop
//! 4: a GraphBinary 4 response body streamed result by result) and [`ws3`] (TinkerPop 3.x over
//! WebSocket: request and response messages in GraphBinary 1, GraphSON 3 or GraphSON 2).
//! Below the transports that carry their bytes.

pub(crate) mod http4;
// The fuzz targets (`test-util`) read its messages without the transports.
#[cfg(any(feature = "http", feature = "test-util"))]
pub(crate) mod ws3;
