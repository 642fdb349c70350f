//! `steward-fake-model`: the fake model server as a process, for benchmarks.
//!
//! Serves on `--addr ADDR` (or `FAKE_MODEL_ADDR`, else 127.0.0.1:0), answering "ok"
//! unless scripted over the `/_fake/*` control routes (see the library's `control`), and
//! prints `listening on ADDR` once ready. Recording is off so memory stays flat however long
//! a benchmark runs (so `GET /_fake/requests` lists nothing).

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use steward_testkit::FakeModel;

const DEFAULT_ADDR: &str = "127.0.0.1:0";

fn requested_addr() -> Result<SocketAddr, String> {
    let mut args = std::env::args().skip(1);
    let mut addr = std::env::var("FAKE_MODEL_ADDR").ok();
    while let Some(arg) = args.next() {
        if arg == "--addr" {
            addr = Some(args.next().ok_or("--addr needs a value")?);
        } else if let Some(value) = arg.strip_prefix("--addr=") {
            addr = Some(value.to_owned());
        } else {
            return Err(format!(
                "unknown argument {arg:?}; usage: steward-fake-model [--addr 127.0.0.1:PORT]"
            ));
        }
    }
    let addr = addr.unwrap_or_else(|| DEFAULT_ADDR.to_owned());
    addr.parse()
        .map_err(|e| format!("bad address {addr:?}: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let addr = match requested_addr() {
        Ok(addr) => addr,
        Err(message) => {
            eprintln!("steward-fake-model: {message}");
            return ExitCode::from(2);
        }
    };
    let model = match FakeModel::start_on(addr).await {
        Ok(model) => model,
        Err(e) => {
            eprintln!("steward-fake-model: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    model.set_recording(false);
    let mut stdout = std::io::stdout();
    // Benchmarks read this line from a pipe, so it must not sit in a buffer.
    if writeln!(stdout, "listening on {}", model.addr())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    match tokio::signal::ctrl_c().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("steward-fake-model: cannot wait for ctrl-c: {e}");
            // Without a signal handler, serve until killed.
            std::future::pending::<ExitCode>().await
        }
    }
}
