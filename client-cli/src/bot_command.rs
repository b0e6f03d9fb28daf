//! An external bot's command (`dudo arena --external`, `dudo ladder --bot`, `dudo tournament
//! enter --bot`), run as `sh -c COMMAND` in a process group of its own.
//!
//! `sh -c 'python3 bot.py'` may run the bot as a child of the shell, and killing the shell
//! alone leaves the bot running: its stream open, its output mixed into whatever comes after,
//! its calls failing once the server it was given is gone. Dropping a [`BotCommand`] kills
//! the whole group, so no bot outlives the game or the run that started it.
//!
//! Its standard output is dudo's standard error: a bot's prints are kept apart from the
//! standings and results dudo writes to standard output.
//!
//! In a group of its own a bot does not get the terminal's Ctrl-C, and a signal that ends
//! dudo runs no destructor: so while any bot runs, SIGINT, SIGTERM and SIGHUP are dudo's to
//! handle, and each kills every running group before dudo exits as the signal would have
//! ended it.

use std::collections::BTreeSet;
use std::sync::{Mutex, Once};

use anyhow::Context;

/// The process groups of the bot commands running.
static RUNNING: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
static ON_SIGNALS: Once = Once::new();

/// A running bot command; dropping it kills everything it started.
pub(crate) struct BotCommand {
    child: tokio::process::Child,
    /// The group's id (the shell's process id), until the group has been killed.
    group: Option<u32>,
}

impl BotCommand {
    /// Starts `sh -c command` with `set` in its environment and `unset` taken out of it.
    pub(crate) fn start(command: &str, set: &[(&str, &str)], unset: &[&str]) -> anyhow::Result<BotCommand> {
        let mut cmd = tokio::process::Command::new("sh");
        // What the bot prints goes to dudo's standard error, beside its own, so dudo's
        // standard output (the arena's standings, the ladder's results) is dudo's alone.
        cmd.args(["-c", command])
            .envs(set.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::io::stderr());
        for name in unset {
            cmd.env_remove(name);
        }
        // The shell alone, where there are no process groups to kill.
        cmd.kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        end_bots_on_signals();
        let child = cmd.spawn().with_context(|| format!("starting {command}"))?;
        let group = child.id();
        if let (Some(group), Ok(mut running)) = (group, RUNNING.lock()) {
            running.insert(group);
        }
        Ok(BotCommand { child, group })
    }

    /// Waits for the shell to exit (what it started may still run until this is dropped).
    pub(crate) async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        self.child.wait().await
    }

    /// How the shell exited, if it has.
    pub(crate) fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        self.child.try_wait()
    }

    /// Kills everything the command started.
    pub(crate) fn kill(&mut self) {
        if let Some(group) = self.group.take() {
            kill_group(group);
            if let Ok(mut running) = RUNNING.lock() {
                running.remove(&group);
            }
        }
        let _ = self.child.start_kill();
    }
}

impl Drop for BotCommand {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Kills process group `group`. The group outlives its shell while anything in it runs; once
/// it is empty the call fails harmlessly.
fn kill_group(group: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(group).ok().and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// From the first bot command on: a signal that would end dudo kills every running bot's
/// group first, then ends dudo with the signal's exit code (128 + its number).
fn end_bots_on_signals() {
    #[cfg(unix)]
    ON_SIGNALS.call_once(|| {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        for (kind, code) in
            [(SignalKind::interrupt(), 130), (SignalKind::terminate(), 143), (SignalKind::hangup(), 129)]
        {
            let Ok(mut arrived) = signal(kind) else { continue };
            runtime.spawn(async move {
                if arrived.recv().await.is_some() {
                    if let Ok(running) = RUNNING.lock() {
                        running.iter().copied().for_each(kill_group);
                    }
                    std::process::exit(code);
                }
            });
        }
    });
}
