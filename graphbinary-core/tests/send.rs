//! The slow-path futures are `Send`, so reads can run on a multi-threaded runtime.

use graphbinary_core::{Encode, Fq, FqOpt, ReadBuffer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_reads_are_send_and_cross_refills() {
    let mut bytes = Vec::new();
    let value: Vec<Vec<String>> = vec![vec!["a".into(), "bc".into()], vec![], vec!["marko".into()]];
    Fq(value.clone()).encode(&mut bytes).unwrap();
    FqOpt::<i32>(None).encode(&mut bytes).unwrap();
    let handle = tokio::spawn(async move {
        let mut buf = ReadBuffer::with_capacity(5, std::io::Cursor::new(bytes));
        let v = buf.read::<Fq<Vec<Vec<String>>>>().await.unwrap().0;
        let n = buf.read::<FqOpt<i32>>().await.unwrap().0;
        assert!(buf.is_at_end().await.unwrap());
        (v, n)
    });
    let (v, n) = handle.await.unwrap();
    assert_eq!(v, value);
    assert_eq!(n, None);
}

#[tokio::test]
async fn interned_labels_share_one_allocation() {
    use std::sync::Arc;
    let mut bytes = Vec::new();
    let labels: Vec<Arc<str>> = vec!["person".into(), "person".into()];
    labels.encode(&mut bytes).unwrap();
    labels.encode(&mut bytes).unwrap();
    let mut buf = ReadBuffer::with_capacity(7, &bytes[..]);
    let a = buf.read::<Vec<Arc<str>>>().await.unwrap();
    let b = buf.read::<Vec<Arc<str>>>().await.unwrap();
    assert_eq!(a, labels);
    assert!(Arc::ptr_eq(&a[0], &a[1]));
    assert!(Arc::ptr_eq(&a[0], &b[1]));
}
