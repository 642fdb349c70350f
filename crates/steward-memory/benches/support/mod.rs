//! What both benchmarks share: running on one thread.
//!
//! Owns: putting `RAYON_NUM_THREADS=1` into the benchmark's initial environment, where candle
//! (its matmul parallelism, `candle_core::utils::get_num_threads`) and rayon (its pool) read
//! it. Setting it from inside the process would need `std::env::set_var`, which is `unsafe`
//! in edition 2024 and forbidden in this workspace, so the benchmark runs itself again with
//! it instead. Does not own any measuring.

use std::process::Command;

const VAR: &str = "RAYON_NUM_THREADS";

/// None when this process already runs on one thread (carry on). Otherwise runs this same
/// benchmark again with `RAYON_NUM_THREADS=1` and the same arguments, and returns the exit
/// code to end with.
pub fn rerun_on_one_thread() -> Option<i32> {
    if std::env::var_os(VAR).is_some_and(|v| v == "1") {
        return None;
    }
    let rerun = std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(VAR, "1")
            .status()
    });
    Some(match rerun {
        Ok(status) => status.code().unwrap_or(1),
        Err(e) => {
            eprintln!("cannot run the benchmark again with {VAR}=1: {e}");
            1
        }
    })
}
