//! A CPU clock of this process or thread, to the nanosecond (`clock_gettime`): for the
//! criterion measurement in `common/cpu.rs` and the measuring loops in `measure.rs` (also
//! built into the gremlin-client peer).

use std::time::Duration;

/// The time of `clock` (`libc::CLOCK_PROCESS_CPUTIME_ID`, `libc::CLOCK_THREAD_CPUTIME_ID`).
pub fn cpu_time(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock ids passed are constants the
    // kernel knows.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime({clock})");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}
