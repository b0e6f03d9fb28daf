//! An external bot's command (`dudo arena --external`, `dudo ladder --bot`, `dudo tournament
//! enter --bot`), run as `sh -c COMMAND` in a process group of its own.
//!
//! `sh -c 'python3 bot.py'` may run the bot as a child of the shell, and killing the shell
//! alone leaves the bot running: its stream open, its output mixed into whatever comes after,
//! its calls failing once the server it was given is gone. Dropping a [`BotCommand`] kills
//! the whole group, so no bot outlives the game or the run that started it.

use anyhow::Context;

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
        cmd.args(["-c", command]).envs(set.iter().copied()).stdin(std::process::Stdio::null());
        for name in unset {
            cmd.env_remove(name);
        }
        // The shell alone, where there are no process groups to kill.
        cmd.kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let child = cmd.spawn().with_context(|| format!("starting {command}"))?;
        let group = child.id();
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
        #[cfg(unix)]
        if let Some(pid) = self.group.take().and_then(|g| i32::try_from(g).ok())
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            // The group outlives its shell while anything in it runs; once it is empty the
            // call fails harmlessly.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.start_kill();
    }
}

impl Drop for BotCommand {
    fn drop(&mut self) {
        self.kill();
    }
}
