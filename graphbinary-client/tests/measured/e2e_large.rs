//! End-to-end: a 200,766-result response streamed with bounded memory. Alone in its test
//! binary (`exclusive::alone`, and the peak reset before the baseline) so that the process's
//! peak RSS (VmHWM) reflects this test only.

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;
use gremlin_server as common;
use results::Sent;

use futures::StreamExt;
use graphbinary_client::value::Value;

/// The bound on peak RSS growth while streaming: below the body size (about 24 MB), so that
/// keeping the body or the decoded results would break it.
const BOUND_KIB: u64 = 16 * 1024;

/// Peak resident set size of this process, in KiB.
fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM line")
}

#[tokio::test]
async fn large_result_streams_in_bounded_memory() {
    let _alone = graphbinary_testkit::exclusive::alone().await;
    if !common::server_available("large_result_streams_in_bounded_memory").await {
        return;
    }
    let client = common::builder().build().unwrap();
    // Warm up (TLS/provider init, pool, interner) before the baseline.
    let n: i64 = client.submit("g.V().count()").expect_one().await;
    assert_eq!(n, 6);
    // The peak of the tests that ran before in this process is not ours: reset it to the
    // current RSS (Linux's `clear_refs` 5).
    std::fs::write("/proc/self/clear_refs", "5").expect("reset VmHWM");
    let base = vm_hwm_kib();

    let mut s = client
        .submit("g.V().repeat(both()).times(12)")
        .await
        .unwrap()
        .traversers();
    let counters = s.counters();
    let mut results = 0u64;
    let mut per_id = [0u64; 7];
    while let Some(t) = s.next().await {
        let t = t.unwrap();
        assert_eq!(t.bulk, 1);
        let Value::Vertex(v) = &t.value else {
            panic!("{t:?}")
        };
        let Value::Long(id) = v.id else {
            panic!("{v:?}")
        };
        per_id[id as usize] += 1;
        results += 1;
    }
    assert_eq!(results, 200_766);
    assert_eq!(s.status().map(|st| st.code), Some(200));
    // Every Modern vertex shows up; the body is larger than the memory bound.
    assert!(per_id[1..].iter().all(|&n| n > 0), "{per_id:?}");
    let body = counters.body_bytes();
    assert!(body > BOUND_KIB * 1024, "body only {body} bytes");
    let grown_kib = vm_hwm_kib().saturating_sub(base);
    eprintln!(
        "200,766 results, {body} body bytes, {} wire bytes, peak RSS growth {grown_kib} KiB",
        counters.wire_bytes()
    );
    assert!(grown_kib < BOUND_KIB, "peak RSS grew by {grown_kib} KiB");
}
