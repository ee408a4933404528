//! The host rotation's tests over both transports (`hosts.rs` over HTTP, `ws3_hosts.rs` over
//! WebSocket): a port that refuses, and what the rotation must look like around it.

use graphbinary_client::client::HostStatus;
use tokio::net::TcpListener;

/// A loopback port with nothing listening (bound, then closed).
pub async fn dead_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    l.local_addr().unwrap().port()
}

/// After 30 requests over the hosts `[live, refusing, live]`: the refusing one tried once and
/// out of the rotation, the two live ones sharing the 30 round-robin.
pub fn assert_the_refusing_host_left_the_rotation(hosts: &[HostStatus]) {
    assert!(!hosts[1].available, "{hosts:?}");
    assert_eq!(
        hosts[1].requests, 1,
        "the refusing host is out of the rotation after one try: {hosts:?}"
    );
    assert_eq!(hosts[0].requests + hosts[2].requests, 30, "{hosts:?}");
    assert!(
        hosts[0].requests >= 14 && hosts[2].requests >= 14,
        "round-robin over the two live hosts: {hosts:?}"
    );
}
