//! Benchmark of the local MiniLM embedder: single-sentence latency on one thread, batch
//! throughput, and resident memory once the model is loaded. Prints; never fails on numbers.
//!
//! Owns: measuring `LocalMiniLm`. Does not own: recall benchmarks (benches/recall.rs).
//! One thread: the benchmark runs with RAYON_NUM_THREADS=1 (`support`), which candle reads for
//! its matmul parallelism (`candle_core::utils::get_num_threads`) and rayon for its pool.

mod support;

use std::time::Instant;

use steward_memory::embed::{LocalMiniLm, test_model_dir};

const SENTENCE: &str = "Remind me to call the dentist about my appointment next Tuesday.";
const RUNS: usize = 200;
const WARMUP: usize = 10;
const BATCH_RUNS: usize = 10;

fn vm_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time consumed by all threads of this process, in ns (from schedstat). Unlike wall time,
/// it barely moves when other processes compete for the cores, which is the usual case on a
/// shared 2-core machine.
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn percentile(sorted_ms: &[f64], p: f64) -> f64 {
    let idx = ((sorted_ms.len() as f64 - 1.0) * p).round() as usize;
    sorted_ms[idx.min(sorted_ms.len() - 1)]
}

fn main() {
    if let Some(code) = support::rerun_on_one_thread() {
        std::process::exit(code);
    }
    if std::env::args().any(|a| a == "--list") {
        // `cargo test --benches` style probes: nothing to list.
        return;
    }

    let rss_before = vm_rss_kib();
    let t = Instant::now();
    let model = match LocalMiniLm::load(&test_model_dir()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot load the model: {e}");
            std::process::exit(1);
        }
    };
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let rss_after = vm_rss_kib();

    let one = vec![SENTENCE.to_string()];
    for _ in 0..WARMUP {
        if let Err(e) = model.embed_blocking(&one) {
            eprintln!("embedding failed: {e}");
            std::process::exit(1);
        }
    }
    let mut times = Vec::with_capacity(RUNS);
    let cpu_start = cpu_ns();
    for _ in 0..RUNS {
        let t = Instant::now();
        let _ = model.embed_blocking(&one);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let cpu_per_sentence_ms = (cpu_ns() - cpu_start) as f64 / 1e6 / RUNS as f64;
    times.sort_by(f64::total_cmp);

    let batch: Vec<String> = (0..32)
        .map(|i| format!("Note {i}: {SENTENCE} Also buy {i} apples on the way home."))
        .collect();
    let _ = model.embed_blocking(&batch);
    let t = Instant::now();
    let cpu_start = cpu_ns();
    for _ in 0..BATCH_RUNS {
        let _ = model.embed_blocking(&batch);
    }
    let batch_secs = t.elapsed().as_secs_f64();
    let batch_cpu_ms = (cpu_ns() - cpu_start) as f64 / 1e6 / BATCH_RUNS as f64;
    let per_sec = (BATCH_RUNS * batch.len()) as f64 / batch_secs;
    let rss_end = vm_rss_kib();
    let load_avg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();

    println!("embed bench (local all-MiniLM-L6-v2, 1 thread: RAYON_NUM_THREADS=1)");
    println!(
        "  machine load average: {} (wall times are noisy when it exceeds the cores)",
        load_avg
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("  model load: {load_ms:.0} ms");
    println!(
        "  one sentence ({RUNS} runs): median {:.2} ms, p99 {:.2} ms, min {:.2} ms  (target <= 10 ms)",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times[0]
    );
    println!("  one sentence, CPU time: mean {cpu_per_sentence_ms:.2} ms");
    println!(
        "  batch of 32: {:.1} ms per batch, {per_sec:.0} sentences/s",
        batch_secs * 1e3 / BATCH_RUNS as f64
    );
    println!("  batch of 32, CPU time: {batch_cpu_ms:.1} ms per batch");
    let kib =
        |v: Option<u64>| v.map_or("?".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
    println!(
        "  VmRSS: before load {}, after load {}, after runs {}",
        kib(rss_before),
        kib(rss_after),
        kib(rss_end)
    );
}
