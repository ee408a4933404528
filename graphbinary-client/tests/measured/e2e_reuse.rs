//! End-to-end: a fully read response returns its connection to the pool, compressed or not
//! (the zlib stream's end must not leave the HTTP body unfinished). Alone in its test binary
//! (`exclusive::alone`) because it counts this process's sockets.

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;
use gremlin_server as common;
use results::Sent;

/// Inodes of this process's TCP sockets connected to `port` (Linux `/proc`).
fn sockets_to(port: u16) -> std::collections::BTreeSet<u64> {
    let mine: std::collections::BTreeSet<u64> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            l.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect();
    let mut out = std::collections::BTreeSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(rem), Some(inode)) = (f.get(2), f.get(9)) else {
                continue;
            };
            let rport = rem
                .rsplit(':')
                .next()
                .and_then(|p| u16::from_str_radix(p, 16).ok());
            let inode: u64 = inode.parse().unwrap_or(0);
            if rport == Some(port) && mine.contains(&inode) {
                out.insert(inode);
            }
        }
    }
    out
}

#[tokio::test]
async fn fully_read_responses_reuse_one_connection() {
    let _alone = graphbinary_testkit::exclusive::alone().await;
    if !common::server_available("fully_read_responses_reuse_one_connection").await {
        return;
    }
    let port = url_port(&common::url());
    // Sockets left by the availability probe's client are not ours to count.
    let before = sockets_to(port);
    for compression in [true, false] {
        let client = common::builder()
            .compression(compression)
            .pool_size(4)
            .build()
            .unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..10 {
            let n = client
                .submit("g.V().repeat(both()).times(3)")
                .expect_count()
                .await;
            assert!(n > 0);
            seen.extend(sockets_to(port).difference(&before).copied());
            assert_eq!(
                seen.len(),
                1,
                "compression {compression}, query {i}: {seen:?}"
            );
        }
    }
}

fn url_port(url: &str) -> u16 {
    let rest = url.split("://").nth(1).unwrap();
    let host = rest.split('/').next().unwrap();
    host.rsplit_once(':')
        .map(|(_, p)| p.parse().unwrap())
        .unwrap_or(if url.starts_with("https") { 443 } else { 80 })
}
