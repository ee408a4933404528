//! A criterion measurement of the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
//!
//! The benchmark machine is shared: wall time includes the time other jobs hold the cores,
//! which moved medians by 2x between runs. Decoding runs on one thread (a current-thread
//! runtime), so its CPU time is the work done, without the waiting.

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;

#[path = "../support/clock.rs"]
mod clock;

/// The benchmark's `main`: criterion running `targets` measured in [`ThreadCpu`]. For a bench
/// that declares `#[macro_use] mod cpu;` at its root.
#[allow(unused_macros)] // `ab` measures without criterion
macro_rules! thread_cpu_main {
    ($($target:path),+ $(,)?) => {
        criterion::criterion_group! {
            name = benches;
            config = criterion::Criterion::default().with_measurement($crate::cpu::ThreadCpu);
            targets = $($target),+
        }
        criterion::criterion_main!(benches);
    };
}

/// The calling thread's CPU time.
pub fn thread_cpu() -> Duration {
    clock::cpu_time(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Thread CPU time, for `Criterion::with_measurement`.
pub struct ThreadCpu;

impl Measurement for ThreadCpu {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu()
    }
    fn end(&self, i: Duration) -> Duration {
        thread_cpu().saturating_sub(i)
    }
    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, val: &Duration) -> f64 {
        val.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Formatter
    }
}

struct Formatter;

impl ValueFormatter for Formatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (div, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e3, "µs")
        } else if typical < 1e9 {
            (1e6, "ms")
        } else {
            (1e9, "s")
        };
        for v in values.iter_mut() {
            *v /= div;
        }
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (per, unit) = match *throughput {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => (b as f64 / 1e6, "MB/s"),
            Throughput::Elements(e) => (e as f64, "elem/s"),
        };
        for v in values.iter_mut() {
            *v = per * 1e9 / *v;
        }
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
