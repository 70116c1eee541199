//! The signals `overspill run` passes on to its command, so that stopping overspill stops the
//! command as if it ran alone (docs/cli.md#overspill-run): SIGTERM always; SIGINT and SIGHUP
//! unless the terminal that sent them sent them to the command too.

use std::io;

/// The signals overspill listens for while its command runs. Listening replaces their default
/// action (overspill would die and leave the command running), so it starts before the command.
pub struct Relay {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hangup: tokio::signal::unix::Signal,
}

impl Relay {
    /// Starts listening; call it inside the runtime the command is supervised on.
    ///
    /// # Errors
    /// A handler cannot be installed.
    pub fn listen() -> io::Result<Relay> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Relay {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
                hangup: signal(SignalKind::hangup())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Relay {})
    }

    /// Waits for the next signal and passes it on to the process `pid`. Never returns
    /// where there are no such signals.
    pub async fn pass_on(&mut self, pid: u32) {
        #[cfg(unix)]
        {
            use rustix::process::Signal;
            let signal = tokio::select! {
                _ = self.interrupt.recv() => Signal::INT,
                _ = self.terminate.recv() => Signal::TERM,
                _ = self.hangup.recv() => Signal::HUP,
            };
            if signal != Signal::TERM && terminal_sent_it_too() {
                return;
            }
            let Some(pid) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            else {
                return;
            };
            // The command may have ended since: nothing to pass it to.
            let _ = rustix::process::kill_process(pid, signal);
        }
        #[cfg(not(unix))]
        {
            let _ = pid;
            std::future::pending::<()>().await;
        }
    }
}

/// Whether a SIGINT or SIGHUP came from a terminal that sent it to the command as well: Ctrl-C
/// and a hang-up go to the terminal's foreground process group, which the command shares with
/// overspill whenever overspill is in it. Passing it on then would deliver it twice.
#[cfg(unix)]
fn terminal_sent_it_too() -> bool {
    let Ok(terminal) = std::fs::File::open("/dev/tty") else {
        return false;
    };
    rustix::termios::tcgetpgrp(&terminal).is_ok_and(|group| group == rustix::process::getpgrp())
}
