//! A pseudo-terminal for driving `steward chat` as a person at a terminal does: the child's
//! stdin, stdout and stderr are the terminal's, everything it writes is collected, and the
//! test types lines into it.
//!
//! Built on rustix's safe pty calls (no libc, no unsafe). The child gets no controlling
//! terminal (none of Steward's code needs one; `isatty` is what matters).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::pty::{OpenptFlags, grantpt, ioctl_tiocgptpeer, openpt, unlockpt};

pub struct Pty {
    master: std::fs::File,
    pub child: Child,
    screen: Arc<Mutex<Vec<u8>>>,
}

impl Pty {
    /// Spawn `cmd` with the terminal as its stdin, stdout and stderr.
    pub fn spawn(mut cmd: Command) -> Pty {
        let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
        let master = openpt(flags).expect("open a pseudo-terminal");
        grantpt(&master).expect("grantpt");
        unlockpt(&master).expect("unlockpt");
        let user = ioctl_tiocgptpeer(&master, flags).expect("open the terminal's user side");
        let side = || Stdio::from(user.try_clone().expect("dup the terminal"));
        cmd.stdin(side()).stdout(side()).stderr(side());
        let child = cmd.spawn().expect("spawn under the pseudo-terminal");
        // Only the child may hold the user side now, so reading ends when it exits.
        drop(cmd);
        drop(user);
        let master = std::fs::File::from(master);
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().expect("dup the master");
        let sink = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child has closed the terminal: the end of the output.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            master,
            child,
            screen,
        }
    }

    /// Everything the child has written so far (and the terminal's echo of what was typed).
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// Wait until the screen shows `needle` `times` times in all; panics with the screen
    /// after 60 s (a generous limit: it only ever trips when the expected text never comes).
    pub fn wait_for(&self, needle: &str, times: usize) -> String {
        self.wait_for_within(needle, times, Duration::from_secs(60))
    }

    /// `wait_for` with another limit (for what a wall-clock minute brings).
    pub fn wait_for_within(&self, needle: &str, times: usize, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let screen = self.screen();
            if screen.matches(needle).count() >= times {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the terminal never showed {needle:?} {times} time(s):\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Type `line` and Enter.
    pub fn type_line(&mut self, line: &str) {
        self.master
            .write_all(format!("{line}\n").as_bytes())
            .expect("type into the terminal");
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
