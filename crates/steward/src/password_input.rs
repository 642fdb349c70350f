//! Reading a new password from standard input without echoing it: on a terminal, prompted
//! twice on stderr with echo off (rustix's termios; the terminal's settings come back however
//! the read ends, Ctrl-C included); otherwise one line, for scripts (`echo … | steward user
//! set-password`).
//!
//! Owns: the terminal handling and the line limits. Does not own the password rule
//! (`steward_server::password`), which the caller applies.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::os::fd::AsFd;

use rustix::termios::{LocalModes, OptionalActions, Termios, tcgetattr, tcsetattr};
use steward_server::password::MAX_PASSWORD_BYTES;

/// Why no password was read. Messages never hold what was typed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("no password on standard input")]
    Empty,
    #[error("the password must be at most {MAX_PASSWORD_BYTES} bytes")]
    TooLong,
    #[error("the password is not valid UTF-8")]
    NotUtf8,
    #[error("the two entries differ; nothing was changed")]
    Mismatch,
    #[error("cannot read standard input: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot turn the terminal's echo off: {0}")]
    Terminal(#[from] rustix::io::Errno),
}

/// The new password: asked twice on a terminal, else one line of standard input.
pub async fn read_new_password() -> Result<String, InputError> {
    if !std::io::stdin().is_terminal() {
        return blocking(|| read_line(&mut std::io::stdin().lock())).await;
    }
    let saved = tcgetattr(std::io::stdin().as_fd())?;
    let restore = saved.clone();
    let asked = blocking(move || {
        let first = ask_hidden("New web sign-in password: ", &saved)?;
        let second = ask_hidden("Type it again: ", &saved)?;
        if first == second {
            Ok(first)
        } else {
            Err(InputError::Mismatch)
        }
    });
    tokio::select! {
        answer = asked => answer,
        _ = tokio::signal::ctrl_c() => {
            // The reading thread is still blocked with echo off: put the terminal back, then
            // leave at once (the runtime would otherwise wait for that thread's read to end).
            let _ = tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &restore);
            eprintln!("\ninterrupted; nothing was changed");
            std::process::exit(130)
        }
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, InputError> + Send + 'static,
) -> Result<T, InputError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| InputError::Io(std::io::Error::other(e.to_string())))?
}

/// Puts the terminal's settings back when dropped.
struct EchoOff<'a> {
    saved: &'a Termios,
}

impl Drop for EchoOff<'_> {
    fn drop(&mut self) {
        let _ = tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, self.saved);
    }
}

fn ask_hidden(prompt: &str, saved: &Termios) -> Result<String, InputError> {
    let mut quiet = saved.clone();
    quiet.local_modes.remove(LocalModes::ECHO);
    // Enter still moves to the next line, so the second prompt starts on its own.
    quiet.local_modes.insert(LocalModes::ECHONL);
    let stdin = std::io::stdin();
    tcsetattr(stdin.as_fd(), OptionalActions::Flush, &quiet)?;
    let _back = EchoOff { saved };
    let mut err = std::io::stderr();
    let _ = err.write_all(prompt.as_bytes());
    let _ = err.flush();
    read_line(&mut stdin.lock())
}

/// One line without its line ending (`\n` or `\r\n`), at most `MAX_PASSWORD_BYTES` bytes.
pub fn read_line(input: &mut impl BufRead) -> Result<String, InputError> {
    let limit = u64::try_from(MAX_PASSWORD_BYTES + 2).unwrap_or(u64::MAX);
    let mut raw = Vec::new();
    input.take(limit + 1).read_until(b'\n', &mut raw)?;
    if raw.last() == Some(&b'\n') {
        raw.pop();
        if raw.last() == Some(&b'\r') {
            raw.pop();
        }
    }
    if raw.len() > MAX_PASSWORD_BYTES {
        return Err(InputError::TooLong);
    }
    if raw.is_empty() {
        return Err(InputError::Empty);
    }
    String::from_utf8(raw).map_err(|_| InputError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(bytes: &[u8]) -> Result<String, InputError> {
        read_line(&mut std::io::Cursor::new(bytes.to_vec()))
    }

    #[test]
    fn one_line_without_its_ending() {
        assert_eq!(
            line(b"correct horse battery\n").unwrap(),
            "correct horse battery"
        );
        assert_eq!(
            line(b"correct horse battery\r\nsecond\n").unwrap(),
            "correct horse battery"
        );
        assert_eq!(line(b"no newline at all").unwrap(), "no newline at all");
        // Only the line ending goes: other spaces stay for the rule to judge.
        assert_eq!(line(b" padded \n").unwrap(), " padded ");
    }

    #[test]
    fn empty_long_and_binary_input_is_refused() {
        assert!(matches!(line(b""), Err(InputError::Empty)));
        assert!(matches!(line(b"\n"), Err(InputError::Empty)));
        let long = vec![b'a'; MAX_PASSWORD_BYTES + 1];
        assert!(matches!(line(&long), Err(InputError::TooLong)));
        let mut at_limit = vec![b'a'; MAX_PASSWORD_BYTES];
        at_limit.push(b'\n');
        assert_eq!(line(&at_limit).unwrap().len(), MAX_PASSWORD_BYTES);
        assert!(matches!(
            line(b"\xff\xfe secret\n"),
            Err(InputError::NotUtf8)
        ));
        let msg = line(b"\xff\xfe secret\n").unwrap_err().to_string();
        assert!(!msg.contains("secret"));
    }
}
